#!/usr/bin/env bash
# The lesson's sweep (sweep-06-atomics-counting) in three parts, one per input size, for a device
# session whose commands stop at ten minutes: each part writes its rows to OUT_DIR/sweep-2pN.csv;
# `join` concatenates the three into docs/results/06-atomics-counting-sweep.csv (one header) and
# redraws the pages. The programs and cases are the CMakeLists' SWEEP_VERSIONS and SWEEP_CASES.
# usage: 06-atomics-counting/experiments/sweep-in-parts.sh BUILD_DIR OUT_DIR 20|22|24|join
set -euo pipefail
build="$1" out="$2" part="$3"
root="$(cd "$(dirname "$0")/../.." && pwd)"
csv="$root/docs/results/06-atomics-counting-sweep.csv"
if [ "$part" = join ]; then
  head -1 "$out/sweep-2p20.csv" > "$csv"
  for p in 20 22 24; do tail -n +2 "$out/sweep-2p$p.csv" >> "$csv"; done
  cmake -DROOT="$root" -DMODE=update -P "$root/docs/pages.cmake"
  exit 0
fi
only=()
for v in v5_lane_groups v11_vector_walks v12_equal_slices v13_lane_tiles v14_dependent_launch \
  v15_short_tails v16_small_blocks v17_streamed_tiles v18_warp_sums v19_async_chunks \
  v20_vector_dependent baseline_cub baseline_cub_scan; do
  only+=(--only "$v")
done
means="1 4 16 64 256"
[ "$part" = 24 ] && means="1 4 16 64" # mean 256 at 2^24 would need 16 GB of floats
cases=()
for lengths in fixed uniform powerlaw; do
  for mean in $means; do cases+=(--case "--n 2^$part --lengths $lengths --mean $mean"); done
done
"$build/bin/cl_runner" --csv "$out/sweep-2p$part.csv" "${only[@]}" "${cases[@]}" \
  "$build/bin/06-atomics-counting"
