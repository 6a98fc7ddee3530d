#!/usr/bin/env bash
# The host's share of the largest cases: a benchmark, not a test. Runs the largest case of lessons
# 02 to 06 and 08 (the README's "Sizes past 2^31" table, with 06 at three containers of 2^33 floats
# and cuBLAS beside 08's v10) once each, checked, with one warm-up and two timed runs, and prints a
# table of where the time went: the whole run, the host setting up (inputs, reference, copies to
# the GPU), the host checking, and the GPU (its runs, the cache flushes between them and the
# bandwidth and FLOP/s probes that measure the ceilings), from the program's own wall line. Above
# the table, the bus's rate from pinned memory (common/experiments/bus_probe.cu): a case whose
# inputs take t seconds to cross at that rate cannot be set up in less.
#   SIZES=large   the largest cases, past 2^31 (default); SIZES=2p31: each about 2^31 elements
#   OMP_NUM_THREADS=N   the host threads (default: every core); 1 is the serial baseline
# usage: tools/host-bench.sh [BUILD_DIR]   (default: build/)
set -uo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
runs="--repeat 2 --warmup 1"
if [ "${SIZES:-large}" = large ]; then
  cases=(
    "03-reduction v9_one_pass --n 2^34"
    "04-histogram v6_two_loads --n 2^35 --type u8"
    "05-convolution v13_trimmed_band --n 2^33 --mask 127"
    "06-atomics-counting v14_lane_tiles --n 2^28 --lengths powerlaw"
    "06-atomics-counting v14_lane_tiles --n 3 --mean 2^33"
    "02-gemm v15_padded_operands --n 32768"
    "08-tensor-cores v10_vector_copies --m 65536 --n 65536 --k 16384"
    "08-tensor-cores baseline_cublas --m 65536 --n 65536 --k 16384"
  )
else
  cases=(
    "03-reduction v9_one_pass --n 2^31"
    "04-histogram v6_two_loads --n 2^32 --type u8"
    "05-convolution v13_trimmed_band --n 2^31 --mask 127"
    "06-atomics-counting v14_lane_tiles --n 2^26 --lengths powerlaw"
    "02-gemm v15_padded_operands --n 16384"
    "08-tensor-cores v10_vector_copies --m 32768 --n 32768 --k 8192"
  )
fi
# the yardsticks: a case whose inputs take t seconds to cross the bus cannot be set up in less, and
# none runs in less than a small case does (the process, the CUDA context, the ceiling probes)
"$build/common/bus_probe" 2>&1 | head -1
start=$(date +%s.%N)
"$build/bin/03-reduction/v9_one_pass" --n 1024 $runs > /dev/null 2>&1
echo "a small case (03-reduction v9_one_pass --n 1024 $runs): $(awk "BEGIN { printf \"%.2f\", $(date +%s.%N) - $start }") s"
printf "%-72s %4s %7s %7s %7s %7s  %s\n" "case" "exit" "total" "setup" "check" "GPU" "check verdict"
for c in "${cases[@]}"; do
  read -r lesson program args <<< "$c"
  start=$(date +%s.%N)
  # shellcheck disable=SC2086
  output=$(timeout 900 "$build/bin/$lesson/$program" $args $runs 2>&1)
  code=$?
  total=$(awk "BEGIN { print $(date +%s.%N) - $start }")
  wall=$(echo "$output" | sed -n 's/^  wall   .*: \([0-9.]*\) s setting up.*), \([0-9.]*\) s checking.*; \([0-9.]*\) s on the GPU.*/\1 \2 \3/p')
  read -r setup check gpu <<< "${wall:-- - -}"
  verdict=$(echo "$output" | sed -n 's/^  check  \([A-Z]*\).*/\1/p' | head -1)
  [ -n "$verdict" ] || verdict=$(echo "$output" | grep -v '^\(filling\|drawing\|summing\|counting\|checking\)' | head -1 | cut -c1-90)
  printf "%-72s %4s %7.1f %7s %7s %7s  %s\n" "$lesson $program $args" "$code" "$total" "$setup" \
    "$check" "$gpu" "$verdict"
  echo "$output" | grep -E "threads \(about|^  wall" | sed 's/^/    /' || true
done
