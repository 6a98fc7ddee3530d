#!/usr/bin/env bash
# Lesson 08's GPU evidence for issue 68 at the BF16 sweep's classes under cuBLAS other than the
# small squares (gpu-extras.sh has those): long k with a small output, few rows at n = k = 4096,
# rectangles. Every kernel of one call of v14 (the zeroing of C, the product), v11 and cuBLAS (its
# product and its split-K reduction), with its duration, DRAM and L2 bytes, grid, block and registers.
# Writes docs/results/08-tensor-cores-ncu-shapes.txt.
# usage: 08-tensor-cores/experiments/ncu-shapes.sh BUILD_DIR
set -uo pipefail
build="$1"
results="$(dirname "$0")/../../docs/results"
bin="$build/bin/08-tensor-cores"
source "$(dirname "$0")/../../tools/ncu.sh"
metrics=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum,sm__cycles_active.avg,smsp__issue_active.avg.pct_of_peak_sustained_active,launch__grid_size,launch__block_size,launch__registers_per_thread,launch__cluster_size
{
  cl_ncu_header "every kernel of one unchecked call (the harness's probe and L2 flushes left out)"
  for shape in "--m 256 --n 256 --k 65536" "--m 512 --n 512 --k 32768" "--m 1024 --n 1024 --k 16384" \
               "--m 16 --n 4096 --k 4096" "--m 128 --n 4096 --k 4096" "--m 3000 --n 5000 --k 2000" \
               "--m 8192 --n 512 --k 8192" "--m 256 --n 8192 --k 8192"; do
    for v in v14_light_barriers v11_split_k_in_l2 baseline_cublas; do
      echo "## $v, $shape"
      # shellcheck disable=SC2086
      cl_ncu_all "$metrics" "$bin/$v" $shape
    done
  done
} > "$results/08-tensor-cores-ncu-shapes.txt"
cat "$results/08-tensor-cores-ncu-shapes.txt"
