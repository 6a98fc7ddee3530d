#!/usr/bin/env bash
# The targets the README documents, run against a course of one fake lesson (fake_course/: its
# programs print a results row as a version does, with no GPU), built beside copies of the real
# cmake/, common/, docs/pages.py and tools/lessons.py: run, run-all and run-<lesson> print their
# tables; results, sweep and exercises (and their -<lesson> forms) write their CSVs into the copy's
# docs/results/ and regenerate its pages. Fails on the first target that fails or writes the wrong thing.
# usage: common/tests/targets-check.sh [SCRATCH_DIR]
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
scratch="${1:-$(mktemp -d "${TMPDIR:-/tmp}/targets-check.XXXXXX")}"
fail() { echo "targets-check: $*" >&2; exit 1; }
rm -rf "$scratch" && mkdir -p "$scratch/docs" "$scratch/tools" || fail "cannot make $scratch"
cp -r "$root/cmake" "$root/common" "$scratch/" && cp "$root/docs/pages.py" "$scratch/docs/" &&
  cp "$root/tools/lessons.py" "$root/tools/grade.py" "$scratch/tools/" &&
  cp -r "$root/common/tests/fake_course/." "$scratch/" || fail "cannot copy the fake course"
# a student's homework copy (README: "copy vK to vN_mine.cu"): the run targets show it, the
# committed results must not
cp "$scratch/01-fake/v2_fast.cu" "$scratch/01-fake/v3_mine.cu" || fail "cannot make a homework copy"
build="$scratch/build"
cmake -S "$scratch" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=75 \
  -DCUDA_LESSONS_GPU_TESTS=OFF > "$scratch/configure.log" 2>&1 ||
  { tail -20 "$scratch/configure.log"; fail "configure failed"; }

target() { # TARGET: build it; its output in $scratch/TARGET.log
  cmake --build "$build" -j "$(nproc)" --target "$1" > "$scratch/$1.log" 2>&1 ||
    { tail -30 "$scratch/$1.log"; fail "cmake --build --target $1 failed"; }
  echo "targets-check: $1 ok"
}
rows() { [ -f "$scratch/docs/results/$1" ] && tail -n +2 "$scratch/docs/results/$1" | grep -c "$2"; }
expect_rows() { # FILE PATTERN COUNT
  local got; got=$(rows "$1" "$2")
  [ "${got:-0}" = "$3" ] || fail "docs/results/$1: $3 rows matching '$2' expected, ${got:-no file} found"
}

for t in run run-all run-01-fake; do
  target "$t"
  grep -q "^v2_fast .* PASS" "$scratch/$t.log" || fail "$t printed no table with v2_fast"
done
grep -q "n=2000" "$scratch/run-all.log" || fail "run-all did not run every case"

grep -q "^v3_mine .* PASS" "$scratch/run-01-fake.log" || fail "run-01-fake left out the homework copy"

target results-01-fake
expect_rows 01-fake.csv "" 6
expect_rows 01-fake.csv ",v3_mine," 0
rm "$scratch/docs/results/01-fake.csv"
target results
expect_rows 01-fake.csv "^01-fake,v2_fast,n=2000," 1
expect_rows 01-fake.csv ",v3_mine," 0
grep -q '^| v2_fast' "$scratch/01-fake/README.md" || fail "results did not fill the page's table"
grep -q 'v2 runs <!--m v2_fast "n=1000" vs-->1.333×<!--/m-->' "$scratch/01-fake/README.md" ||
  fail "results did not fill the page's numbers"
grep -q '^| \[01-fake\].* v2_fast ' "$scratch/README.md" || fail "results did not fill the headline"

target sweep-01-fake
expect_rows 01-fake-sweep.csv "" 6
rm "$scratch/docs/results/01-fake-sweep.csv"
target sweep
expect_rows 01-fake-sweep.csv "^01-fake,baseline_lib,n=30," 1
grep -q "01-fake-sweep.csv" "$scratch/01-fake/README.md" || fail "sweep did not fill the page's sweep"

target exercises-01-fake
expect_rows 01-fake-exercises.csv "^01-fake,exercise_faster," 1
rm "$scratch/docs/results/01-fake-exercises.csv"
target exercises
expect_rows 01-fake-exercises.csv "" 3
# the grader (tools/grade.py) on the fake lesson: a version that passes, with its time ratios to
# its parent and the library; homework whose check fails; and no device (the build and the @brief
# graded, the rest named, exit 77). The fake programs run without a GPU; compute-sanitizer finds
# none, so the sanitizer item reads "not run" here.
grade() { "${PYTHON3:-python3}" "$scratch/tools/grade.py" --build "$build" --seed 7 --csv "$scratch/grades.csv" "$@"; }
out=$(grade 01-fake v2_fast 2>&1); code=$?
echo "$out" | tail -12
[ $code = 0 ] || fail "the grade of v2_fast exited $code, not 0"
echo "$out" | grep -q "pass  brief      names its parent, v1_slow" || fail "the @brief item is wrong"
echo "$out" | grep -q "pass  tests      3 of 3 passed" || fail "the tests item (the large case too) is wrong"
echo "$out" | grep -q "pass  speed      n=1000: 0.5000 ms, 66.7% of the read bandwidth, 2.00× its parent's speed, 1.333× the library's" ||
  fail "the speed item is wrong"
echo "$out" | grep -q "^verdict: correct everywhere it ran, sanitizers not run; 2.00× its parent's speed" ||
  fail "the verdict is wrong"
out=$(grade 01-fake homework_wrong 2>&1); code=$?
[ $code = 1 ] || fail "the grade of homework_wrong exited $code, not 1"
echo "$out" | grep -q "FAIL  tests      0 of 3 passed" || fail "homework_wrong's tests item is wrong"
echo "$out" | grep -q "n1 \`--n 1\`: check  FAIL (first run): error 1" || fail "homework_wrong's reason is missing"
echo "$out" | grep -q "^ *where  the sum is 999; the reference is 1000" || fail "homework_wrong's wrong value is missing"
echo "$out" | grep -q "^verdict: not correct: tests, shapes failed" || fail "homework_wrong's verdict is wrong"
out=$(FAKE_NO_DEVICE=1 grade 01-fake v2_fast 2>&1); code=$?
[ $code = 77 ] || fail "the grade without a device exited $code, not 77"
echo "$out" | grep -q "needs a CUDA GPU: no CUDA device found" || fail "without a device, the items that need one are not named"
[ "$(grep -c . "$scratch/grades.csv")" = 4 ] || fail "grades.csv should hold a header and three rows"
head -1 "$scratch/grades.csv" | grep -q "^lesson,version,parent,seed," || fail "grades.csv has no header"
echo "targets-check: every documented target ran and wrote what it should, and the grader graded"
rm -rf "$scratch"
