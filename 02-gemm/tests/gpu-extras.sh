#!/usr/bin/env bash
# Lesson 02's GPU evidence for its page, run by tools/gpu-check.sh: the min-plus product (seed
# 003's shortcut step) with every kernel at 4096³, which the runner cannot table because cuBLAS has
# no min-plus. Writes docs/results/02-gemm-min-plus.txt.
# usage: 02-gemm/tests/gpu-extras.sh BUILD_DIR
set -uo pipefail
build="$1"
results="$(dirname "$0")/../../docs/results"
bin="$build/bin/02-gemm"
{
  echo "# min-plus product, n = m = k = 4096, checked exactly; one report per kernel"
  for v in "$bin"/v[0-9]*; do
    "$v" --n 4096 --semiring min-plus --repeat 5 --warmup 1 2>&1 | grep -vE "^\s*$"
  done
} > "$results/02-gemm-min-plus.txt"
cat "$results/02-gemm-min-plus.txt"
