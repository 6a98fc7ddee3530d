#!/usr/bin/env bash
# The foundation's GPU evidence, run by tools/gpu-check.sh: a read-only kernel timed after a
# write-only L2 flush and after the harness's clean flush, and what ncu says the kernel writes to
# DRAM after each (it writes nothing itself); and the same kernel timed alone and right after the
# ceilings' probes, with the SM clock after them. Writes docs/results/common-l2-flush.txt and
# docs/results/common-ceiling-order.txt.
# usage: common/experiments/gpu-extras.sh BUILD_DIR
set -uo pipefail
build="$1"
results="$(dirname "$0")/../../docs/results"
source "$(dirname "$0")/../../tools/ncu.sh"
metrics=dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum
{
  echo "# common/experiments/flush_compare.cu: the same read-only kernel, two flushes, same process"
  "$build/common/flush_compare" both 4 64 256 1024
  echo "# the memset, then a read of 3 and 4 times the L2 size (the harness reads 2)"
  "$build/common/flush_compare" read3 4 64 256 1024
  "$build/common/flush_compare" read4 4 64 256 1024
  # ncu must not flush the caches itself (--cache-control none); -s 1 skips the untimed first
  # launch, so the profiled one follows a flush (readN's own flush reads with the same kernel, so
  # ncu cannot single out its timed launch: readN is timed only)
  cl_ncu_header "read_probe kernel over 64 MB, the second launch, no cache control by ncu"
  for mode in memset clean; do
    echo "## after the $mode flush"
    cl_ncu_run --cache-control none -k regex:read_probe -s 1 --metrics "$metrics" -- \
      "$build/common/flush_compare" "$mode" 64
  done
} > "$results/common-l2-flush.txt" 2>&1
cat "$results/common-l2-flush.txt"

{
  echo "# common/experiments/ceiling_order.cu: a read timed alone, then right after the ceilings"
  "$build/common/ceiling_order" 25 75 256 1024
} > "$results/common-ceiling-order.txt" 2>&1
cat "$results/common-ceiling-order.txt"
