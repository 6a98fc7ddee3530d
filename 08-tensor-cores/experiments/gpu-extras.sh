#!/usr/bin/env bash
# Lesson 08's GPU evidence for issue 68 (small squares, where cuBLAS leads): ncu's speed-of-light,
# launch, scheduler and warp-state sections (stall reasons per instruction, as metric names) on the
# last two versions' kernels (v14 trims v13's barriers) and cuBLAS's, at 1024³ and at 1024 × 1024 × 64. Writes
# docs/results/08-tensor-cores-ncu-small.txt.
# usage: 08-tensor-cores/experiments/gpu-extras.sh BUILD_DIR
set -uo pipefail
build="$1"
results="$(dirname "$0")/../../docs/results"
bin="$build/bin/08-tensor-cores"
source "$(dirname "$0")/../../tools/ncu.sh"
{
  cl_ncu_header "the product's kernel (the first whose name holds gemm or nvjet, cuBLAS 13's)"
  for shape in "--n 1024" "--m 1024 --n 1024 --k 64"; do
    for v in v13_tile_per_shape v14_light_barriers baseline_cublas; do
      echo "## $v, $shape"
      # shellcheck disable=SC2086
      cl_ncu_run -k regex:'gemm|nvjet' --section SpeedOfLight --section LaunchStats \
        --section SchedulerStats --section WarpStateStats --print-metric-name name -- \
        "$bin/$v" $shape --repeat 1 --warmup 0 --no-check
    done
  done
} > "$results/08-tensor-cores-ncu-small.txt"
cat "$results/08-tensor-cores-ncu-small.txt"
