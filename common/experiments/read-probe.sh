#!/usr/bin/env bash
# The read-bandwidth probe's evidence: every variant of common/experiments/read_probe_variants.cu
# at 1 to 8 GiB, then the lessons' fastest readers (03's v9 and CUB) at 1, 2 and 4 GiB in the same
# session, each reporting the ceiling its program measured. Writes docs/results/common-read-probe.txt.
# usage: common/experiments/read-probe.sh [BUILD_DIR]   (builds 03-reduction alone there if needed)
set -uo pipefail
cd "$(dirname "$0")/../.."
build="${1:-build-probe}"
if [ ! -x "$build/bin/03-reduction/v9_one_pass" ]; then
  cmake -S 03-reduction -B "$build" -DCMAKE_BUILD_TYPE=Release > /dev/null &&
    cmake --build "$build" -j "$(nproc)" --target read_probe_variants 03-reduction_v9_one_pass \
      03-reduction_baseline_cub > /dev/null || exit 1
fi
{
  echo "# common/experiments/read_probe_variants.cu: ways to read a buffer, same process"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
  "$build/common/read_probe_variants" 1 2 4 8
  echo
  echo "# the lessons' fastest readers in the same session (--csv rows: throughput, then the"
  echo "# ceiling that program measured and the % of it)"
  for n in 2^28 2^29 2^30+3; do
    for p in v9_one_pass baseline_cub; do
      "$build/bin/03-reduction/$p" --n "$n" --repeat 20 --csv | cut -d, -f2,3,10,12,14,16,17
    done
  done
} 2>&1 | tee docs/results/common-read-probe.txt
