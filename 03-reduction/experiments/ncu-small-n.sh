#!/usr/bin/env bash
# Lesson 03's GPU evidence for issue 68 at 2^20 floats, where v9 leads CUB by less than the goal:
# every kernel of one call of v9 and of CUB (the harness's probe and flushes left out), with its
# duration, DRAM bytes and grid, then each program's own timing of its runs, so that a
# call's time splits into its kernels and what lies between them. Writes
# docs/results/03-reduction-ncu-small-n.txt.
# usage: 03-reduction/experiments/ncu-small-n.sh BUILD_DIR
set -uo pipefail
build="$1"
results="$(dirname "$0")/../../docs/results"
bin="$build/bin/03-reduction"
source "$(dirname "$0")/../../tools/ncu.sh"
metrics=gpu__time_duration.sum,dram__bytes_read.sum,sm__cycles_active.avg,launch__grid_size,launch__block_size
{
  cl_ncu_header "every kernel of one unchecked call at 2^20 floats (the harness's probe and L2 flushes left out)"
  for v in v9_one_pass baseline_cub; do
    echo "## $v, --n 2^20: the kernels"
    cl_ncu_all "$metrics" "$bin/$v" --n 2^20
  done
  for v in v9_one_pass baseline_cub; do
    echo "## $v, --n 2^20: the program's own timing (its timed runs, no profiler)"
    "$bin/$v" --n 2^20 2>&1 | grep -E "median|^ *$v|ms"
  done
} > "$results/03-reduction-ncu-small-n.txt"
cat "$results/03-reduction-ncu-small-n.txt"
