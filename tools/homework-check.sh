#!/usr/bin/env bash
# The README's homework steps, followed in a scratch copy of the tree: for every lesson, copy the
# version its row of the README's homework table names to the name it gives, rename the copy's
# @file and write its @brief as the README says (tools/homework-copies.sh), then configure (gpu tests registered, so that
# their names can be counted), build everything, and run the whole cpu suite. It fails if a copy's
# name is taken, if a homework file gets no gpu or sanitize test, if a cpu test fails, or if the
# build or the tests change any file of the copy besides the homework files (a student's added
# file must change nothing that is committed).
# usage: tools/homework-check.sh [SCRATCH_DIR]   (default: a new folder under ${TMPDIR:-/tmp})
# CUDA_ARCHS (default 75) is what the scratch build compiles for: one architecture, to save time.
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
scratch="${1:-$(mktemp -d "${TMPDIR:-/tmp}/homework-check.XXXXXX")}"
src="$scratch/src"
fail() { echo "homework-check: $*" >&2; exit 1; }

rm -rf "$src" && mkdir -p "$src" || fail "cannot make $src"
# the tree as a fresh student has it: the files git knows (tracked, or new and not ignored), less
# any homework copy already made here (vN_mine.cu: this check makes its own)
if git -C "$root" rev-parse --git-dir > /dev/null 2>&1; then
  (cd "$root" && git ls-files -z -co --exclude-standard | grep -zv '/v[0-9]*_mine\.cu$' |
   tar --null -T - -cf -) | tar -xf - -C "$src"
else
  (cd "$root" && tar --exclude='./build*' --exclude='v[0-9]*_mine.cu' -cf - .) | tar -xf - -C "$src"
fi

# the README's homework steps, followed in the copy
list=$("$root/tools/homework-copies.sh" "$src") || fail "the README's homework steps failed"
mapfile -t copies <<< "$list"
[ -n "$list" ] || fail "the README's homework steps made no copy"

snapshot() { (cd "$src" && find . -path ./build -prune -o -type f -print0 | sort -z |
              xargs -0 sha1sum); }
before=$(snapshot)

echo "homework-check: configure and build in $src/build (CUDA architectures ${CUDA_ARCHS:-75})"
cmake -S "$src" -B "$src/build" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCHS:-75}" -DCUDA_LESSONS_GPU_TESTS=ON \
  > "$scratch/configure.log" 2>&1 || { tail -20 "$scratch/configure.log"; fail "configure failed"; }
cmake --build "$src/build" -j "$(nproc)" > "$scratch/build.log" 2>&1 ||
  { grep -E "error|Error" "$scratch/build.log" | head -20; fail "the build failed"; }

for copy in "${copies[@]}"; do
  lesson=${copy%%/*} stem=$(basename "$copy" .cu)
  [ -x "$src/build/bin/$lesson/$stem" ] || fail "the build made no bin/$lesson/$stem"
  count=$(ctest --test-dir "$src/build" -N -R "^$lesson/$stem/" | sed -n 's/^Total Tests: //p')
  [ "${count:-0}" -gt 0 ] || fail "$copy got no gpu or sanitize tests"
  echo "homework-check: $copy: built, $count gpu and sanitize tests registered"
done

# the whole cpu suite, this test left out (it would run itself)
ctest --test-dir "$src/build" -L cpu -LE homework -j "$(nproc)" --output-on-failure \
  > "$scratch/ctest.log" 2>&1
status=$?
grep -E "tests passed|tests failed|\*\*\*Failed" "$scratch/ctest.log"
[ $status -eq 0 ] || { grep -B2 -A25 "\*\*\*Failed" "$scratch/ctest.log" | head -80; fail "a cpu test failed"; }

after=$(snapshot)
changed=$(diff <(echo "$before") <(echo "$after") | grep '^[<>]' | awk '{print $3}' | sort -u)
[ -z "$changed" ] || fail "the build or the tests changed committed files: $changed"
echo "homework-check: every lesson's homework copy built and was registered, the cpu suite passed, and no committed file changed"
rm -rf "$scratch"
