#!/usr/bin/env bash
# Lesson 05's GPU evidence for its page, run by tools/gpu-check.sh: why v4 collapses at K = 127
# (ncu's stall reasons for v4 against v5), what v6, v8 and v9 each change (bank conflicts, stalls,
# instructions), the algorithm cuDNN picks for each runner case, the time v14 spends copying
# against multiplying, v15-v17 against cuBLAS's kernel, v18 against v19's pick on a narrow and on
# a wide layer, memcheck on the course notes' unguarded kernel, the throughput against
# the mask width, and the register-bank conflicts of the FFMAs (v9 against v10). Writes
# docs/results/05-convolution-{ncu-k127,ncu-direct,cudnn-algos,cudnn-layer,ncu-im2col,seed-unguarded,
# ncu-implicit,ncu-narrow,ncu-wide,spread,vs-mask,ffma-banks,ncu-resident}.txt.
# usage: [PARTS="implicit banks ..."] 05-convolution/experiments/gpu-extras.sh BUILD_DIR
# PARTS picks the files to write (k127 direct resident cudnn cudnn-layer im2col seed implicit narrow wide spread vs-mask
# banks;
# default all), so that a run that changed one version need not re-measure the rest.
set -uo pipefail
build="$1"
results="$(dirname "$0")/../../docs/results"
bin="$build/bin/05-convolution"
source "$(dirname "$0")/../../tools/ncu.sh"
source "$(dirname "$0")/../../tools/sass.sh"
parts=" ${PARTS:-k127 direct resident cudnn cudnn-layer im2col seed implicit narrow wide spread vs-mask banks} "
part() { [[ "$parts" == *" $1 "* ]]; }
metrics=launch__registers_per_thread,sm__warps_active.avg.per_cycle_active,smsp__inst_executed.sum,smsp__sass_thread_inst_executed_op_ffma_pred_on.sum,smsp__issue_active.avg.pct_of_peak_sustained_active
for stall in imc_miss short_scoreboard long_scoreboard barrier mio_throttle; do
  metrics="$metrics,smsp__average_warps_issue_stalled_${stall}_per_issue_active.ratio"
done
part k127 && {
  cl_ncu_header "--n 2^24 --mask 127 (one channel)"
  for v in v4_register_tiled v5_shared_taps; do
    echo "## $v"
    cl_ncu conv_ "$metrics" "$bin/$v" --n 2^24 --mask 127
  done
} > "$results/05-convolution-ncu-k127.txt" && cat "$results/05-convolution-ncu-k127.txt"

# v6, v8, v9: each against its predecessor where its change should show (one channel, L = 2^24)
metrics=launch__registers_per_thread,sm__warps_active.avg.per_cycle_active,smsp__inst_executed.sum,smsp__sass_thread_inst_executed_op_ffma_pred_on.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,gpu__time_duration.sum
for stall in barrier long_scoreboard short_scoreboard mio_throttle not_selected; do
  metrics="$metrics,smsp__average_warps_issue_stalled_${stall}_per_issue_active.ratio"
done
part direct && {
  cl_ncu_header "one channel, L = 2^24"
  for run in "v4_register_tiled 7" "v6_contiguous_lanes 7" "v6_contiguous_lanes 31" \
    "v8_pipelined 31" "v8_pipelined 127" "v9_unrolled_taps 127"; do
    set -- $run
    echo "## $1 --mask $2"
    cl_ncu conv_ "$metrics" "$bin/$1" --n 2^24 --mask "$2"
  done
} > "$results/05-convolution-ncu-direct.txt" && cat "$results/05-convolution-ncu-direct.txt"
# v6 against v7, its resident grid alone, and v8, at the runner's K = 7 (one channel, L = 2^26): what the
# grid of one block per tile costs against a grid of resident blocks
part resident && {
  cl_ncu_header "one channel, L = 2^26, K = 7"
  for v in v6_contiguous_lanes v7_resident_tiles v8_pipelined; do
    echo "## $v"
    cl_ncu conv_ "launch__grid_size,$metrics" "$bin/$v" --n 2^26 --mask 7
  done
} > "$results/05-convolution-ncu-resident.txt" && cat "$results/05-convolution-ncu-resident.txt"
if part cudnn && [ -x "$bin/baseline_cudnn" ]; then
  {
    echo "# the algorithm cudnnFindConvolutionForwardAlgorithm picked (FMA math), per runner case"
    for args in "--n 2^26 --mask 3" "--n 2^26 --mask 7" "--n 2^26 --mask 31" "--n 2^26 --mask 127" \
      "--n 16384 --mask 7 --channels 64 --batch 16" "--n 16384 --mask 3 --channels 128 --batch 16"; do
      # shellcheck disable=SC2086
      echo "$args: $("$bin/baseline_cudnn" $args --repeat 0 --no-check 2>&1 >/dev/null | grep '^cudnn:')"
    done
  } > "$results/05-convolution-cudnn-algos.txt"
  cat "$results/05-convolution-cudnn-algos.txt"
fi

# the reproducer of the layer the baseline once failed (the harness's upload race, not cuDNN's):
# every sum-of-products algorithm on three kinds of stream, checked exactly
repro="$build/05-convolution/cudnn_layer"
[ -x "$repro" ] || repro="$(find "$build" -name cudnn_layer -type f | head -1)"
if part cudnn-layer && [ -n "$repro" ] && [ -x "$repro" ]; then
  { echo "# cudnn_layer 33 1024 7 1 on $(nvidia-smi --query-gpu=name --format=csv,noheader), $(date -u +%F): the layer the baseline once failed"
    "$repro" 33 1024 7 1; } > "$results/05-convolution-cudnn-layer.txt" 2>&1
  tail -1 "$results/05-convolution-cudnn-layer.txt"
fi

# v14: what the copy and the product each cost (two launches per run: im2col, then cuBLAS)
part im2col && {
  cl_ncu_header "v14_im2col_gemm, each launch of one run (im2col, then the product's kernel)"
  for args in "--n 16384 --mask 7 --channels 64 --batch 16" \
    "--n 16384 --mask 3 --channels 128 --batch 16" "--n 2^24 --mask 7" "--n 2^24 --mask 127"; do
    echo "## $args"
    # shellcheck disable=SC2086
    CL_NCU_LAUNCHES=2 cl_ncu_run -k regex:"im2col|gemm|gemv|Kernel" \
      --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum \
      -- "$bin/v14_im2col_gemm" $args --repeat 1 --warmup 0 --no-check
  done
} > "$results/05-convolution-ncu-im2col.txt" && cat "$results/05-convolution-ncu-im2col.txt"

# the course notes' kernel without its bounds test, under memcheck
part seed && {
  echo "# compute-sanitizer --tool memcheck on the course notes' convolution_1D_basic_kernel (experiments/seed_unguarded.cu): 1000 outputs, 4 blocks of 256"
  seed="$build/05-convolution/seed_unguarded" # the top-level build; a lesson built alone: $build/
  [ -x "$seed" ] || seed="$build/seed_unguarded"
  compute-sanitizer --tool memcheck "$seed" 2>&1 |
    grep -E "Invalid|by thread|is out of bounds|ERROR SUMMARY|launched" | sed -E 's/0x[0-9a-f]+/0x.../g' |
    awk '/ERROR SUMMARY|launched/ {print; next} n < 9 {print; n++}'
} > "$results/05-convolution-seed-unguarded.txt" && cat "$results/05-convolution-seed-unguarded.txt"

# v15-v17 against cuBLAS's kernel in v14 on the C = 128, K = 3 layer: issue and stall reasons
metrics=launch__registers_per_thread,sm__warps_active.avg.per_cycle_active,smsp__inst_executed.sum,smsp__sass_thread_inst_executed_op_ffma_pred_on.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum
for stall in barrier long_scoreboard short_scoreboard mio_throttle lg_throttle wait not_selected math_pipe_throttle; do
  metrics="$metrics,smsp__average_warps_issue_stalled_${stall}_per_issue_active.ratio"
done
part implicit && {
  cl_ncu_header "--n 16384 --mask 3 --channels 128 --batch 16"
  for v in v15_implicit_gemm v16_small_tiles v17_fast_index v18_transposed_weights; do
    echo "## $v"
    cl_ncu conv_implicit "$metrics" "$bin/$v" --n 16384 --mask 3 --channels 128 --batch 16
  done
  echo "## v18_transposed_weights: its second launch, the transposition of the weights"
  cl_ncu transpose gpu__time_duration.sum "$bin/v18_transposed_weights" --n 16384 --mask 3 \
    --channels 128 --batch 16
  echo "## v14_im2col_gemm: the product's kernel"
  cl_ncu gemm "$metrics" "$bin/v14_im2col_gemm" --n 16384 --mask 3 --channels 128 --batch 16
} > "$results/05-convolution-ncu-implicit.txt" && cat "$results/05-convolution-ncu-implicit.txt"

# a narrow layer: the FMAs v18's 64-row tile spends on rows the layer does not have, against v19's
part narrow && {
  cl_ncu_header "--n 16384 --mask 7 --channels 32 --batch 16"
  for v in v18_transposed_weights v19_tile_per_shape; do
    echo "## $v"
    cl_ncu "conv_implicit|conv_rows" "$metrics,gpu__time_duration.sum" "$bin/$v" --n 16384 --mask 7 \
      --channels 32 --batch 16
  done
} > "$results/05-convolution-ncu-narrow.txt" && cat "$results/05-convolution-ncu-narrow.txt"

# a wide layer: v18's 64-row tiles against v19's 128 rows and 16-deep slices (the copies and
# barriers per FMA)
part wide && {
  cl_ncu_header "--n 16384 --mask 7 --channels 128 --batch 16"
  for v in v18_transposed_weights v19_tile_per_shape; do
    echo "## $v"
    cl_ncu "conv_implicit|conv_rows" "$metrics" "$bin/$v" --n 16384 --mask 7 --channels 128 --batch 16
  done
} > "$results/05-convolution-ncu-wide.txt" && cat "$results/05-convolution-ncu-wide.txt"

# run-to-run spread of the memory-bound goal cases: 8 separate processes each (% of the roofline)
part spread && {
  echo "# 05-convolution, --n 2^26, one channel: % of the roofline in 8 separate processes each"
  for i in 1 2 3 4 5 6 7 8; do
    for run in "v4_register_tiled 7" "v6_contiguous_lanes 7" "v6_contiguous_lanes 31" \
      "v8_pipelined 31" "v8_pipelined 7"; do
      set -- $run
      "$bin/$1" --n 2^26 --mask "$2" --csv 2>/dev/null | tail -1
    done
  done | awk -F, '{k = $2 " " $3; v[k] = v[k] " " $16} END {for (k in v) print k ":" v[k]}' | sort
} > "$results/05-convolution-spread.txt" && cat "$results/05-convolution-spread.txt"

# throughput against the mask width, one channel, L = 2^26: the roofline's bend (plotted from the
# committed file by experiments/vs-mask.gp at docs time)
part vs-mask && {
  echo "# 05-convolution, --n 2^26, one channel: GFLOP/s against K, and the roofline each run measured"
  echo "# K v4_register_tiled v5_shared_taps v6_contiguous_lanes v8_pipelined v9_unrolled_taps v10_split_sums baseline_cudnn roofline"
  for mask in 1 3 5 7 11 15 23 31 47 63 95 127 191 255; do
    row="$mask"
    roofline=""
    for v in v4_register_tiled v5_shared_taps v6_contiguous_lanes v8_pipelined v9_unrolled_taps \
      v10_split_sums baseline_cudnn; do
      if [ -x "$bin/$v" ]; then
        csv=$("$bin/$v" --n 2^26 --mask "$mask" --repeat 10 --csv 2>/dev/null | tail -1)
        row="$row $(echo "$csv" | cut -d, -f12)"
        roofline=$(echo "$csv" | cut -d, -f14)
      else
        row="$row NaN"
      fi
    done
    echo "$row $roofline"
  done
} > "$results/05-convolution-vs-mask.txt" && cat "$results/05-convolution-vs-mask.txt"

# Why v9 issues on under three quarters of the cycles at K = 127 while the FP32 probe issues on
# nearly all: register-bank conflicts of the FFMAs (tools/sass.sh), and the stalls ncu counts;
# v10, whose split sums let ptxas place them apart, beside it
metrics=smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,smsp__sass_thread_inst_executed_op_ffma_pred_on.sum,smsp__cycles_active.avg.per_second
for stall in dispatch_stall not_selected selected barrier short_scoreboard long_scoreboard wait; do
  metrics="$metrics,smsp__average_warps_issue_stalled_${stall}_per_issue_active.ratio"
done
part banks && {
  echo "# cuobjdump -sass, sm_90: each kernel's FFMAs (static count) and those that read two"
  echo "# registers of one bank from the register file (tools/sass.sh, cl_sass_ffma_banks)"
  for v in v5_shared_taps v6_contiguous_lanes v8_pipelined v9_unrolled_taps v10_split_sums \
    v15_implicit_gemm v16_small_tiles v17_fast_index v18_transposed_weights; do
    cl_sass_ffma_banks "$bin/$v" | grep -v fma_probe | sed "s/^/$v: /"
  done
  echo "the FP32 probe (common/cl_ceilings.cu), in every program:"
  cl_sass_ffma_banks "$bin/v9_unrolled_taps" | grep fma_probe
  cl_ncu_header "--n 2^26 --mask 127 (one channel)"
  for v in v9_unrolled_taps v10_split_sums; do
    echo "## $v"
    cl_ncu conv_ "$metrics" "$bin/$v" --n 2^26 --mask 127
  done
} > "$results/05-convolution-ffma-banks.txt" && cat "$results/05-convolution-ffma-banks.txt"
