#!/usr/bin/env bash
# The GPU job spread over the GPUs of one host: one build (every lesson's homework copy made first,
# as the README says), then a list of jobs per GPU, run in order until a deadline, so that the
# logs come back within one device call. Logs, grade cards, grades CSV, the benchmark's tables and
# the times go into $OUT/logs.tar (a device call brings back few files), with a summary in
# $OUT/summary.txt ($OUT defaults to ./multi-gpu-out).
#   GPU_JOBS="JOB JOB;JOB ..."  one list per GPU, ';' between GPUs; a JOB is
#       tests:LESSON      LESSON's gpu tests (the cases past 2^31 left out)
#       large:LESSON      LESSON's cases past 2^31
#       sanitize:LESSON   LESSON's sanitize tests
#       match:REGEX       the gpu tests (those past 2^31 too) whose names match REGEX
#       some:REGEX        the gpu tests whose names match REGEX, less those past 2^31
#       somesan:REGEX     the sanitize tests whose names match REGEX
#       grade:LESSON      tools/grade.py on LESSON's homework copy, timed
#       bench:SIZES:T     tools/host-bench.sh at SIZES (large or 2p31) on T host threads
#       measure:LESSON:KIND[:REGEX]  LESSON's runner measurement KIND (results, sweep or
#                         exercises) into measure-LESSON-KIND[-REGEX].csv, with only the cases
#                         that match REGEX (no spaces): one measurement in parts on several GPUs,
#                         whose CSVs, joined in the order of the cases, are the target's own
#       extras:LESSON     LESSON's experiments/gpu-extras.sh (its evidence files come back in
#                         results.tar)
#     (default: the gpu tests, then the grades, then the sanitize tests of every lesson)
#   SKIP=FILE      test names, one per line, that a test job leaves out (passed in an earlier call)
#   DEADLINE=S     seconds from the start by which every job stops (default 560)
# usage: GPU_JOBS="grade:03-reduction tests:03-reduction;bench:large:16" tools/multi-gpu-check.sh
set -uo pipefail
cd "$(dirname "$0")/.."
final="${OUT:-$PWD/multi-gpu-out}"
out="$(mktemp -d "${TMPDIR:-/tmp}/multi-gpu.XXXXXX")"
mkdir -p "$final"
begin=$(date +%s)
deadline=$((begin + ${DEADLINE:-560}))
left() { local s=$((deadline - $(date +%s))); echo $((s > 1 ? s : 1)); }

{ nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv
  nvcc --version | tail -1; date -u; nproc; free -g | head -2; } > "$out/device.txt" 2>&1
cat "$out/device.txt"
gpus=$(nvidia-smi --query-gpu=index --format=csv,noheader | wc -l)
lessons="01-pairwise 02-gemm 03-reduction 04-histogram 05-convolution 06-atomics-counting 07-control-flow 08-tensor-cores"
if [ -z "${GPU_JOBS:-}" ]; then
  GPU_JOBS=""
  for lesson in $lessons; do GPU_JOBS+="tests:$lesson grade:$lesson sanitize:$lesson "; done
fi

tools/homework-copies.sh > "$out/homework-copies.txt" || exit 1
echo "== build"
start=$(date +%s)
if ! { cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCUDA_LESSONS_WERROR=ON \
         -DCUDA_LESSONS_GPU_TESTS=ON && cmake --build build-gpu -j "$(nproc)"; } > "$out/build.log" 2>&1; then
  grep -E "error" "$out/build.log" | head -20; tail -20 "$out/build.log"
  cp "$out/build.log" "$final/"; exit 1
fi
echo "build: $(( $(date +%s) - start )) s"

# ctest's -I file for LESSON's tests of LABEL (less those named in $SKIP), or nothing to run
select_tests() {
  local lesson=$1 label=$2 exclude=$3 file=$4
  ctest --test-dir build-gpu -N -L "$label" ${exclude:+-LE "$exclude"} -R "^$lesson/" |
    sed -n 's/^ *Test *#\([0-9]*\): \(.*\)$/\1 \2/p' |
    while read -r number name; do
      if [ -z "${SKIP:-}" ] || ! grep -qxF "$name" "$SKIP"; then echo "$number"; fi
    done | paste -sd, | sed 's/^\(.\)/0,0,0,\1/' > "$file"
  [ -s "$file" ]
}

run_job() {
  local gpu=$1 job=$2 kind=${2%%:*} rest=${2#*:} start status=0
  start=$(date +%s)
  case $kind in
    tests|large|sanitize)
      local label=gpu exclude=large
      [ "$kind" = large ] && label=large exclude=""
      [ "$kind" = sanitize ] && label=sanitize exclude=""
      if select_tests "$rest" "$label" "$exclude" "$out/select-$kind-$rest.txt"; then
        timeout "$(left)" ctest --test-dir build-gpu -I "$out/select-$kind-$rest.txt" -j 8 \
          --output-on-failure --timeout 300 > "$out/$kind-$rest.log" 2>&1
        status=$?
      else
        echo "nothing to run" > "$out/$kind-$rest.log"
      fi ;;
    match|some|somesan)
      local log label=gpu exclude=""
      [ "$kind" = some ] && exclude=large
      [ "$kind" = somesan ] && label=sanitize
      log="$out/$kind-$(echo "$rest" | tr -c 'a-zA-Z0-9_-' '_' | cut -c1-60).log"
      timeout "$(left)" ctest --test-dir build-gpu -L "$label" ${exclude:+-LE "$exclude"} \
        -R "$rest" -j 8 --output-on-failure --timeout 300 > "$log" 2>&1
      status=$? ;;
    grade)
      local copy version
      copy=$(grep "^$rest/" "$out/homework-copies.txt" | head -1)
      version=$(basename "$copy" .cu)
      OMP_NUM_THREADS=8 timeout "$(left)" python3 tools/grade.py --no-build --build build-gpu \
        --seed 2026 --csv "$out/grades.csv" "$rest" "$version" > "$out/grade-$rest.txt" 2>&1
      status=$? ;;
    measure)
      local lesson=${rest%%:*} kind part regex=""
      part=${rest#*:}
      kind=${part%%:*}
      [ "$part" != "$kind" ] && regex=${part#*:}
      local name="measure-$lesson-$kind${regex:+-$(printf "%s" "$regex" | tr -c 'a-zA-Z0-9_-' '_')}"
      local -a runner_args
      # the target's arguments, less the cases that do not match (a --case and its value), and
      # less a BIN_DIR whose cases all went (the runner would run its default case there)
      mapfile -t runner_args < <(python3 -c '
import re, sys
lines = open(sys.argv[1]).read().splitlines()
group, cases, i = [], 0, 0
while i < len(lines):
    if lines[i] in ("--case", "--only"):
        if lines[i] == "--only" or re.search(sys.argv[2], lines[i + 1]):
            group += lines[i:i + 2]; cases += lines[i] == "--case"
        i += 2
    elif lines[i].startswith("-"):
        group.append(lines[i]); i += 1
    else:
        if cases or not sys.argv[2]:
            print("\n".join(group + [lines[i]]))
        group, cases, i = [], 0, i + 1' "build-gpu/measure/$lesson-$kind.args" "$regex")
      timeout "$(left)" build-gpu/bin/cl_runner --csv "$out/$name.csv" "${runner_args[@]}" \
        > "$out/$name.txt" 2>&1
      status=$? ;;
    extras)
      timeout "$(left)" bash "$rest/experiments/gpu-extras.sh" build-gpu > "$out/extras-$rest.log" 2>&1
      status=$? ;;
    bench)
      local sizes=${rest%%:*} threads=${rest#*:}
      SIZES=$sizes OMP_NUM_THREADS=$threads timeout "$(left)" tools/host-bench.sh build-gpu \
        > "$out/bench-$sizes-$threads.txt" 2>&1
      status=$? ;;
  esac
  echo "gpu $gpu $job: rc $status, $(( $(date +%s) - start )) s" >> "$out/times.txt"
}

IFS=';' read -r -a lists <<< "$GPU_JOBS"
gpu=0
for list in "${lists[@]}"; do
  ( export CUDA_VISIBLE_DEVICES=$gpu
    for job in $list; do run_job "$gpu" "$job"; done ) &
  gpu=$(( (gpu + 1) % gpus ))
done
wait
{
sort "$out/times.txt"
for log in "$out"/tests-*.log "$out"/large-*.log "$out"/sanitize-*.log "$out"/match-*.log \
  "$out"/some-*.log "$out"/somesan-*.log; do
  [ -f "$log" ] || continue
  echo "== $(basename "$log"): $(grep -E "tests passed|tests failed|nothing to run" "$log" | tail -1)"
  grep -E "\*\*\*Failed|\*\*\*Timeout|\*\*\*Exception" "$log" | head -10
done
grep -H "^verdict" "$out"/grade-*.txt 2>/dev/null
cat "$out"/bench-*.txt 2>/dev/null
} | tee "$out/summary.txt"
cp "$out/summary.txt" "$final/summary.txt"
(cd "$out" && tar -cf "$final/logs.tar" ./*)
# the evidence files that extras jobs wrote (docs/results is the repository's own, all of it)
tar -cf "$final/results.tar" docs/results
exit 0
