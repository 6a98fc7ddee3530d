#!/usr/bin/env bash
# Lesson 02's GPU evidence for issue 68 at the FP32 sweep's shapes under 0.92× cuBLAS (the sizes
# one off a power of two or prime, and 8192² × 128): every kernel of one call of v15 (the padding
# copies, the product, the slices' reduction), v12 and cuBLAS, with its duration, DRAM bytes, grid,
# block and registers, so that each program's time splits into its kernels. Writes
# docs/results/02-gemm-ncu-odd-sizes.txt.
# usage: 02-gemm/experiments/ncu-odd-sizes.sh BUILD_DIR
set -uo pipefail
build="$1"
results="$(dirname "$0")/../../docs/results"
bin="$build/bin/02-gemm"
source "$(dirname "$0")/../../tools/ncu.sh"
metrics=gpu__time_duration.sum,dram__bytes_read.sum,lts__t_bytes.sum,sm__cycles_active.avg,smsp__issue_active.avg.pct_of_peak_sustained_active,launch__grid_size,launch__block_size,launch__registers_per_thread
{
  cl_ncu_header "every kernel of one unchecked call (the harness's probe and L2 flushes left out)"
  for shape in "--n 1023" "--n 2049" "--n 2039" "--m 8192 --n 8192 --k 128"; do
    for v in v15_padded_operands v12_predicated_edges baseline_cublas; do
      echo "## $v, $shape"
      # shellcheck disable=SC2086
      cl_ncu_all "$metrics" "$bin/$v" $shape
    done
  done
} > "$results/02-gemm-ncu-odd-sizes.txt"
cat "$results/02-gemm-ncu-odd-sizes.txt"
