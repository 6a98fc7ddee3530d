#!/usr/bin/env bash
# Lesson 07's GPU evidence for its page, run by tools/gpu-check.sh after the runner: the slides'
# claims as kernel pairs (experiments/claims.cu), the SASS behind the literal, division and counter
# claims, registers per version, ncu's threads per instruction (divergence) on both views, and
# the two pictures, and the lanes a warp keeps busy as modelled from the reference's counts (CPU).
# Writes docs/results/07-control-flow-{claims,sass,ncu,registers,reduction,lane-model}.txt and
# 07-control-flow-{full,boundary}.pgm.
# usage: 07-control-flow/experiments/gpu-extras.sh BUILD_DIR
set -uo pipefail
build="$1"
results="$(dirname "$0")/../../docs/results"
bin="$build/bin/07-control-flow"
source "$(dirname "$0")/../../tools/ncu.sh"
source "$(dirname "$0")/../../tools/sass.sh"

total() { cl_sass_opcodes "$1" "$2" | awk '{s += $1} END {print s + 0}'; }
only() { cl_sass_opcodes "$1" "$2" | awk -v r="$3" '$2 ~ r {printf "%s %s, ", $1, $2}'; }

{
  echo "# 07-control-flow: the slides' claims as kernel pairs (experiments/claims.cu) on $(nvidia-smi --query-gpu=name --format=csv,noheader)"
  "$build/07-control-flow/claims"
} > "$results/07-control-flow-claims.txt" 2>&1

{
  echo "# cuobjdump -sass, sm_90: instructions of each kernel (static count), and the ones each claim is about"
  echo "## the double literal: double-precision and conversion instructions in the kernel"
  for v in v1_naive v2_float_literal; do
    echo "$v: $(total "$bin/$v" mandel_) instructions; $(only "$bin/$v" mandel_ '^(F2F|DMUL|DFMA|DADD|DSETP)$')"
  done
  echo "## the run-time division by W (64-bit in v1 and v2): calls and integer multiplies"
  for v in v2_float_literal v3_grid_2d v4_warp_tiles; do
    echo "$v: $(total "$bin/$v" mandel_) instructions; $(only "$bin/$v" mandel_ '^(CALL|IMAD|I2F|F2I|MUFU|SHF|LOP3)$')"
  done
  echo "## claims.cu: division by a run-time 32, by the constant 32, and the hand-written shift"
  for k in divide_runtime divide_constant divide_shift; do
    echo "$k: $(total "$build/07-control-flow/claims" "$k") instructions; $(only "$build/07-control-flow/claims" "$k" '^(CALL|IMAD|I2F|F2I|MUFU|SHF|LOP3|IADD3|LEA)$')"
  done
  echo "## claims.cu: int against unsigned loop counter in a[t + k * stride]"
  for k in counter_int counter_unsigned; do
    echo "$k: $(total "$build/07-control-flow/claims" "$k") instructions; $(only "$build/07-control-flow/claims" "$k" '^(IMAD|IADD3|LEA|SHF|LDG|ISETP)$')"
  done
} > "$results/07-control-flow-sass.txt"

{
  echo "# cuobjdump -res-usage: registers per thread of each version's kernel"
  for v in $(ls "$bin" | sort -V); do
    echo "$v: $(cuobjdump -res-usage "$bin/$v" 2>/dev/null | grep -o 'REG:[0-9]*' | head -1)"
  done
} > "$results/07-control-flow-registers.txt"

metrics=smsp__thread_inst_executed_per_inst_executed.ratio,smsp__inst_executed.sum,smsp__sass_thread_inst_executed_op_fp32_pred_on.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum
{
  cl_ncu_header "W = 4096, maxiter 1024"
  for view in full boundary; do
    for v in v3_grid_2d v4_warp_tiles v7_unroll8 v8_checkpoint v10_lane_refill; do
      echo "## $v, --view $view"
      cl_ncu mandel_ "$metrics" "$bin/$v" --n 4096 --view "$view"
    done
  done
} > "$results/07-control-flow-ncu.txt"

for view in full boundary; do
  "$bin/v7_unroll8" --n 400 --view "$view" --repeat 0 --image "$results/07-control-flow-$view.pgm" > /dev/null
done

# the lanes busy per warp shape, from the escape counts alone (CPU, OpenMP): what balance could give
"$build/07-control-flow/lane_model" 4096 > "$results/07-control-flow-lane-model.txt"

# the interleaved against the sequential reduction, as 03-reduction measured them (v1, v3)
awk -F, 'NR == 1 {next} $2 ~ /^v[13]_/ {printf "%s, %s: %s ms, %s %s (%s%% of %s)\n", $2, $3, $10, $12, $13, $16, $15}' \
  "$results/03-reduction.csv" > "$results/07-control-flow-reduction.txt"
cat "$results"/07-control-flow-{claims,sass,registers,ncu,reduction,lane-model}.txt
