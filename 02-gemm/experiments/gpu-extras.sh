#!/usr/bin/env bash
# Lesson 02's GPU evidence for its page, run by tools/gpu-check.sh: the min-plus product (seed
# 003's shortcut step) with every kernel at 4096³, which the runner cannot table because cuBLAS has
# no min-plus. Writes docs/results/02-gemm-min-plus.txt.
# usage: 02-gemm/experiments/gpu-extras.sh BUILD_DIR
set -uo pipefail
build="$1"
results="$(dirname "$0")/../../docs/results"
bin="$build/bin/02-gemm"
source "$(dirname "$0")/../../tools/ncu.sh"
{
  echo "# min-plus product, n = m = k = 4096, checked exactly; one report per kernel"
  for v in $(ls -v "$bin"/v[0-9]* | grep -v _mine); do   # v1 .. v15 in numeric order, no homework copy
    "$v" --n 4096 --semiring min-plus --repeat 5 --warmup 1 2>&1 | grep -vE "^\s*$"
  done
} > "$results/02-gemm-min-plus.txt"
cat "$results/02-gemm-min-plus.txt"

# Where the issue slots go: ncu on cuBLAS's kernel, the deeper-slices exercise and v8-v11 at 4096³
# (one launch each), with the shared-memory wavefronts of their loads (the same in v10 and
# v11: the warps' shape changes what they wait for, not how much they read) and the L2 sectors
# they read (v8 against v9: the tile's width).
metrics=launch__registers_per_thread,launch__block_size,launch__grid_size,sm__warps_active.avg.per_cycle_active,smsp__inst_executed.sum,smsp__sass_thread_inst_executed_op_ffma_pred_on.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,lts__t_sectors_srcunit_tex_op_read.sum
for stall in short_scoreboard wait dispatch_stall barrier not_selected mio_throttle; do
  metrics="$metrics,smsp__average_warps_issue_stalled_${stall}_per_issue_active.ratio"
done
{
  cl_ncu_header "n = m = k = 4096"
  for v in baseline_cublas exercise_deeper_slices v8_async_copies v9_wider_tile v10_operands_ahead \
           v11_warp_tiles; do
    echo "## $v"
    cl_ncu "gemm|xmma" "$metrics" "$bin/$v" --n 4096
  done
} > "$results/02-gemm-ncu.txt"
cat "$results/02-gemm-ncu.txt"
