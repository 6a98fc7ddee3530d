#!/usr/bin/env bash
# The GPU job for a few lessons, each built on its own (faster than tools/gpu-check.sh's whole
# tree): builds each lesson with its gpu tests registered, runs its gpu and sanitize labels (the
# cases past 2^31 too, unless SMALL=1), its runner into docs/results/<lesson>.csv and, where it has
# exercises, their measurements into docs/results/<lesson>-exercises.csv, with SWEEP=1 its sweep
# (docs/results/<lesson>-sweep.csv), and with EXTRAS=1 its
# experiments/gpu-extras.sh (the evidence files); logs and the lessons' results files go to $OUT
# (or ./lesson-check-out). TESTS=REGEX runs only the matching gpu and sanitize tests (the programs
# that changed). CTEST=0 skips the labels; TARGETS="sweep" (say, or "none") picks the
# measurements to run.
# Usage: tools/lesson-check.sh 03-reduction 07-control-flow
set -uo pipefail
cd "$(dirname "$0")/.."
out="${OUT:-$PWD/lesson-check-out}"
mkdir -p "$out"
status=0
{ nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,memory.total --format=csv
  nvcc --version | tail -1; date -u; } > "$out/device.txt" 2>&1
for lesson in "$@"; do
  b="build-$lesson"
  start=$(date +%s)
  if ! { cmake -S "$lesson" -B "$b" -DCMAKE_BUILD_TYPE=Release -DCUDA_LESSONS_WERROR=ON \
           -DCUDA_LESSONS_GPU_TESTS=ON && cmake --build "$b" -j "$(nproc)"; } > "$out/build-$lesson.log" 2>&1; then
    tail -30 "$out/build-$lesson.log"; status=1; continue
  fi
  echo "$lesson build: $(( $(date +%s) - start )) s"
  exclude=()
  [ "${SMALL:-0}" = 1 ] && exclude=(-E '2p3[1-9]|2\^3[1-9]')
  [ -n "${TESTS:-}" ] && exclude+=(-R "$TESTS")
  start=$(date +%s)
  if [ "${CTEST:-1}" = 1 ]; then
    ctest --test-dir "$b" -L 'gpu|sanitize' "${exclude[@]}" -j 8 --output-on-failure --timeout 600 \
      > "$out/ctest-$lesson.log" 2>&1 || status=1
  fi
  [ -f "$out/ctest-$lesson.log" ] &&
    grep -E "tests passed|tests failed|\*\*\*Failed|Not Run" "$out/ctest-$lesson.log" | tail -20
  echo "$lesson tests: $(( $(date +%s) - start )) s"
  read -r -a targets <<< "${TARGETS:-results exercises}"
  [ "${SWEEP:-0}" = 1 ] && targets+=(sweep)
  for target in "${targets[@]}"; do
    [ "$target" = none ] && continue
    cmake --build "$b" --target "$target-$lesson" >> "$out/runner-$lesson.txt" 2>&1 ||
      { [ "$target" = results ] && status=1; }
  done
  grep -E "FAIL|ERROR" "$out/runner-$lesson.txt" | head
  if [ "${EXTRAS:-0}" = 1 ] && [ -f "$lesson/experiments/gpu-extras.sh" ]; then
    bash "$lesson/experiments/gpu-extras.sh" "$b" > "$out/extras-$lesson.log" 2>&1 || status=1
    echo "$lesson extras: rc $?"
  fi
done
tar -cf "$out/results.tar" docs/results
exit $status
