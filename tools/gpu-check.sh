#!/usr/bin/env bash
# The one GPU job: build for the GPU in hand, run the gpu and sanitize test labels, run every
# lesson's runner into docs/results/, and leave logs and results under $OUT (or ./gpu-check-out).
# Usage: tools/gpu-check.sh [ctest regex of tests to run]   (default: every test)
# Environment: SKIP_TESTS=1 / SKIP_RUNNERS=1 skip a half; LESSONS="04-histogram ..." measures only
# those lessons (results-<lesson> targets and their experiments/gpu-extras.sh) instead of all; EXTRAS=
# "common 04-histogram" chooses the gpu-extras.sh scripts to run (default: common's and every
# lesson's, or those of LESSONS); EXTRAS=none runs none. A full
# pass over every lesson takes over 10 minutes of device time: run the tests and the runners in
# separate calls, a lesson or two at a time.
set -uo pipefail
cd "$(dirname "$0")/.."
out="${OUT:-$PWD/gpu-check-out}"
mkdir -p "$out"
jobs=$(nproc)
status=0

{ nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,memory.total --format=csv
  nvcc --version | tail -1; cmake --version | head -1; date -u; } > "$out/device.txt" 2>&1
cat "$out/device.txt"

echo "== build"
if ! { cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCUDA_LESSONS_WERROR=ON &&
       cmake --build build-gpu -j "$jobs"; } > "$out/build.log" 2>&1; then
  tail -40 "$out/build.log"; exit 1
fi
grep -E "warning" "$out/build.log" | head -20

if [ "${SKIP_TESTS:-0}" = 0 ]; then
echo "== tests: gpu and sanitize labels"
filter=()
[ $# -gt 0 ] && filter=(-R "$1")
ctest --test-dir build-gpu -L "gpu|sanitize|cpu" "${filter[@]}" -j 8 --output-on-failure \
  --timeout 900 > "$out/ctest.log" 2>&1 || status=1
grep -E "tests passed|tests failed|Failed|\*\*\*|Skipped|Not Run" "$out/ctest.log" | tail -40
sed -n '/Label Time Summary/,$p' "$out/ctest.log" | head -8
fi

if [ "${SKIP_RUNNERS:-0}" = 0 ]; then
  echo "== runners (results written to docs/results/)"
  targets=(results)
  if [ -n "${LESSONS:-}" ]; then
    targets=()
    for lesson in $LESSONS; do targets+=("results-$lesson"); done
  fi
  for target in "${targets[@]}"; do
    cmake --build build-gpu --target "$target" 2>&1 | tee -a "$out/runners.txt" || status=1
  done
  extras_list=(common/experiments/gpu-extras.sh [0-9][0-9]-*/experiments/gpu-extras.sh)
  if [ -n "${LESSONS:-}${EXTRAS:-}" ]; then
    extras_list=()
    for lesson in ${EXTRAS:-$LESSONS}; do
      [ -f "$lesson/experiments/gpu-extras.sh" ] && extras_list+=("$lesson/experiments/gpu-extras.sh")
    done
  fi
  for extras in "${extras_list[@]}"; do
    echo "== $extras"
    bash "$extras" build-gpu || status=1
  done
  tar -cf "$out/results.tar" docs/results
fi
exit $status
