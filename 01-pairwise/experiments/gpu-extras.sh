#!/usr/bin/env bash
# Lesson 01's GPU evidence for its page, run by tools/gpu-check.sh: ncu's shared-memory counters
# for v3 (every lane reads one word) and exercise 1's solution (v3 with the blog post's diagonal),
# racecheck on the blog post's tiled kernel, the blog post's float accumulation at 2^20, and the
# registers per program. Writes docs/results/01-pairwise-*.txt.
# usage: 01-pairwise/experiments/gpu-extras.sh BUILD_DIR
set -uo pipefail
build="$1"
results="$(dirname "$0")/../../docs/results"
bin="$build/bin/01-pairwise"
# the lesson's own programs: in build/01-pairwise/ from the top level, in the build root alone
lesson_build="$build/01-pairwise"
[ -d "$lesson_build" ] || lesson_build="$build"
source "$(dirname "$0")/../../tools/ncu.sh"
source "$(dirname "$0")/../../tools/sass.sh"
metrics=l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,smsp__sass_inst_executed_op_shared_ld.sum,smsp__inst_executed.sum,gpu__time_duration.sum

{
  cl_ncu_header "n = 2^16"
  for v in v3_block_reduce exercise_diagonal; do
    echo "## $v"
    cl_ncu pairs_ "$metrics" "$bin/$v" --n 2^16
  done
} > "$results/01-pairwise-ncu-bank-conflicts.txt"

{
  echo "# compute-sanitizer --tool racecheck on the blog post's tiled kernel (no barrier after the tile load)"
  compute-sanitizer --tool racecheck "$lesson_build/seed_tiled_race" 2>&1 | head -20
} > "$results/01-pairwise-seed-racecheck.txt"

{
  echo "# the blog post's v1 with its float result (tests/float_atomics.cu), n = 2^20, real inputs"
  "$lesson_build/float_atomics" --n 2^20 --repeat 0
  echo "# the same work with a double result (v1_per_thread)"
  "$bin/v1_per_thread" --n 2^20 --repeat 0
} > "$results/01-pairwise-float-atomics.txt" 2>&1
{
  echo "# cuobjdump -sass v8_register_budget: the 12 most frequent opcodes of its kernel"
  cl_sass_opcodes "$bin/v8_register_budget" pairs_kernel | head -12
} > "$results/01-pairwise-sass.txt"

{
  echo "# cuobjdump -res-usage: registers per thread of each program's kernel"
  for v in $(ls "$bin" | sort -V); do
    echo "$v registers $(cuobjdump -res-usage "$bin/$v" 2>/dev/null | grep -o 'REG:[0-9]*' | head -1 | cut -d: -f2)"
  done
} > "$results/01-pairwise-registers.txt"

# v7 against v8: registers, warps per scheduler, issue slots used and where the others went.
metrics=launch__registers_per_thread,sm__warps_active.avg.per_cycle_active,smsp__warps_active.avg.per_cycle_active,smsp__inst_executed.sum,smsp__sass_thread_inst_executed_op_fadd_pred_on.sum,smsp__issue_active.avg.pct_of_peak_sustained_active
for stall in dispatch_stall barrier short_scoreboard not_selected; do
  metrics="$metrics,smsp__average_warps_issue_stalled_${stall}_per_issue_active.ratio"
done
{
  cl_ncu_header "n = 2^18"
  for v in v7_block_shape v8_register_budget; do
    echo "## $v"
    cl_ncu pairs_ "$metrics" "$bin/$v" --n 2^18
  done
} > "$results/01-pairwise-ncu-v7.txt"
cat "$results"/01-pairwise-*.txt
