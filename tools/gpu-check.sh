#!/usr/bin/env bash
# The one GPU job: build for the GPU in hand, run the gpu, sanitize and cpu test labels, run every
# lesson's runner into docs/results/, run the lessons' evidence scripts, and leave logs and results
# under $OUT (or ./gpu-check-out). A whole pass takes longer than one device call may: the
# environment picks the parts, and a later call reuses the build tree it finds.
#   TESTS=REGEX     the ctest regex of the tests to run (default: every test); TESTS=none: none
#   TEST_SECONDS=S  stop ctest after S seconds (default 500), so that the logs come back
#   LESSONS="04-histogram ..."  the lessons whose runner (results-<lesson>) to run; default none;
#                   LESSONS=all: every lesson (the `results` target)
#   EXTRAS="common 07-control-flow ..."  the experiments/gpu-extras.sh scripts to run; default none
#   SWEEPS="02-gemm ..."  the lessons whose sweep (sweep-<lesson>) to run; default none
# Usage: TESTS='^0[1-4]' tools/gpu-check.sh
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
start=$(date +%s)
if ! { cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCUDA_LESSONS_WERROR=ON &&
       cmake --build build-gpu -j "$jobs"; } > "$out/build.log" 2>&1; then
  tail -40 "$out/build.log"; exit 1
fi
grep -E "warning" "$out/build.log" | head -20
echo "build: $(( $(date +%s) - start )) s"

if [ "${TESTS:-}" != none ]; then
  echo "== tests ${TESTS:-(all)}"
  start=$(date +%s)
  filter=()
  [ -n "${TESTS:-}" ] && filter=(-R "$TESTS")
  timeout "${TEST_SECONDS:-500}" ctest --test-dir build-gpu -L "gpu|sanitize|cpu" "${filter[@]}" -j 8 \
    --output-on-failure --timeout 600 > "$out/ctest.log" 2>&1 || status=1
  grep -E "tests passed|tests failed|Failed|\*\*\*|Not Run" "$out/ctest.log" | tail -40
  sed -n '/Label Time Summary/,$p' "$out/ctest.log" | head -8
  echo "tests: $(( $(date +%s) - start )) s"
fi

if [ -n "${LESSONS:-}" ]; then
  echo "== runners (results written to docs/results/)"
  targets=(results)
  if [ "$LESSONS" != all ]; then
    targets=()
    for lesson in $LESSONS; do targets+=("results-$lesson"); done
  fi
  for target in "${targets[@]}"; do
    start=$(date +%s)
    cmake --build build-gpu --target "$target" >> "$out/runners.txt" 2>&1 || status=1
    echo "$target: $(( $(date +%s) - start )) s"
  done
  grep -E "FAIL|ERROR" "$out/runners.txt" | head
fi

for lesson in ${SWEEPS:-}; do
  start=$(date +%s)
  cmake --build build-gpu --target "sweep-$lesson" >> "$out/sweeps.txt" 2>&1 || status=1
  echo "sweep-$lesson: $(( $(date +%s) - start )) s"
done

for name in ${EXTRAS:-}; do
  echo "== $name/experiments/gpu-extras.sh"
  start=$(date +%s)
  bash "$name/experiments/gpu-extras.sh" build-gpu > "$out/extras-$name.log" 2>&1 || status=1
  echo "$name extras: $(( $(date +%s) - start )) s"
done
[ -n "${LESSONS:-}${EXTRAS:-}${SWEEPS:-}" ] && tar -cf "$out/results.tar" docs/results
exit $status
