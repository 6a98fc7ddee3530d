#!/usr/bin/env bash
# Lesson 06's GPU evidence for its page, run by tools/gpu-check.sh after the runner: the SASS of the
# atomics (does the compiler aggregate v1's per-thread atomicAdd by itself?), ncu's count of atomic
# instructions and DRAM traffic for every version, the stall reasons of the merge path, and the
# runner's rows as containers per second, and where short containers (mean 4) lose the bandwidth
# that mean 16 reaches, and at 2^20 containers what a run is made of (the read probe over the same
# bytes, each kernel's time alone). Writes
# docs/results/06-atomics-counting-{sass,ncu,rates,ncu-short,small}.txt.
# usage: [PARTS="short ..."] 06-atomics-counting/experiments/gpu-extras.sh BUILD_DIR
# PARTS picks the files to write (sass ncu rates short small; default all).
set -uo pipefail
build="$1"
results="$(dirname "$0")/../../docs/results"
bin="$build/bin/06-atomics-counting"
source "$(dirname "$0")/../../tools/ncu.sh"
parts=" ${PARTS:-sass ncu rates short small} "
part() { [[ "$parts" == *" $1 "* ]]; }

part sass && {
  echo "# cuobjdump -sass, sm_90: the atomic and warp-vote instructions of each counting kernel"
  for v in v1_thread_atomics v3_syncthreads_count v4_warp_ballot exercise_unaggregated_atomics; do
    echo "## $v"
    cuobjdump -sass -arch sm_90 "$bin/$v" |
      grep -E "Function : _Z[0-9]+count|VOTE|POPC|FLO|ATOM|RED|BAR\.RED|SHFL" |
      sed -E 's@^ +/\*[0-9a-f]+\*/ +@@; s@ +/\* 0x[0-9a-f]+ \*/@@; s@ +;@;@'
  done
} > "$results/06-atomics-counting-sass.txt" && cat "$results/06-atomics-counting-sass.txt"

atomics=smsp__sass_inst_executed_op_global_atom.sum,smsp__sass_inst_executed_op_global_red.sum,smsp__sass_inst_executed_op_shared_atom.sum,smsp__inst_executed.sum,smsp__thread_inst_executed_per_inst_executed.ratio,dram__bytes_read.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,gpu__time_duration.sum
stalls=""
for s in barrier long_scoreboard short_scoreboard mio_throttle wait not_selected selected math_pipe_throttle branch_resolving no_instruction; do
  stalls="$stalls,smsp__average_warps_issue_stalled_${s}_per_issue_active.ratio"
done
part ncu && {
  cl_ncu_header "n = 2^24 containers, the counting kernel of each version"
  for lengths in fixed powerlaw; do
    for v in v1_thread_atomics v2_block_flags v3_syncthreads_count v4_warp_ballot v6_resident_grid \
             v7_merge_path; do
      echo "## $v, --lengths $lengths"
      cl_ncu 'count_' "$atomics" "$bin/$v" --n 2^24 --lengths "$lengths"
    done
    for v in v8_split_long v9_thread_short v10_staged_short v11_warp_medium v12_vector_walks \
             v13_equal_slices; do
      echo "## $v, --lengths $lengths: both kernels (short containers, then the pieces)"
      CL_NCU_LAUNCHES=2 cl_ncu 'count_' "$atomics" "$bin/$v" --n 2^24 --lengths "$lengths"
    done
  done
  echo "## v10_staged_short to v13_equal_slices, --lengths powerlaw: the short kernel's issue, occupancy, shared-memory bank conflicts"
  for v in v10_staged_short v11_warp_medium v12_vector_walks v13_equal_slices; do
    echo "## $v"
    cl_ncu 'count_short' "smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio" \
      "$bin/$v" --n 2^24 --lengths powerlaw
  done
  echo "## v13_equal_slices at n = 2^20: the two kernels' own durations (the runner's median also holds the memset and the launches)"
  for lengths in fixed uniform powerlaw; do
    echo "## v13_equal_slices, n = 2^20, --lengths $lengths"
    CL_NCU_LAUNCHES=2 cl_ncu 'count_' "gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed" \
      "$bin/v13_equal_slices" --n 2^20 --lengths "$lengths"
  done
} > "$results/06-atomics-counting-ncu.txt" && cat "$results/06-atomics-counting-ncu.txt"

# Containers per second, n / median time, from the runner's own rows (run it first): no program
# runs again for them.
part rates && awk -F, 'NR == 1 { print "# Gcontainers/s = n / median ms / 1e6, each row of 06-atomics-counting.csv" }
  NR > 1 { printf "%-22s %-22s %8.2f Gcontainers/s\n", $3, $2, $4 / $10 * 1e-6 }' \
  "$results/06-atomics-counting.csv" > "$results/06-atomics-counting-rates.txt" &&
  cat "$results/06-atomics-counting-rates.txt"

# Short containers: the same bytes per container shrink from 72 (mean 16) to 24 (mean 4), a third
# of them offsets. The short kernels of v11 and v12 at both means, 2^24 fixed lengths: DRAM
# throughput, occupancy, what the warps wait on, and the instructions per container; then v13's
# tiled kernel at mean 4 (at mean 16 it runs v12's kernel).
part short && {
  cl_ncu_header "n = 2^24 containers, fixed lengths, the short-container kernel at mean 4 and 16"
  short_metrics=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum
  for s in long_scoreboard barrier membar short_scoreboard mio_throttle; do
    short_metrics="$short_metrics,smsp__average_warps_issue_stalled_${s}_per_issue_active.ratio"
  done
  for v in v12_vector_walks v13_equal_slices; do
    for mean in 4 16; do
      echo "## $v, --mean $mean"
      cl_ncu 'count_short' "$short_metrics" "$bin/$v" --n 2^24 --lengths fixed --mean "$mean"
    done
  done
  echo "## v14_lane_tiles, --mean 4"
  cl_ncu 'count_short' "$short_metrics" "$bin/v14_lane_tiles" --n 2^24 --lengths fixed --mean 4
} > "$results/06-atomics-counting-ncu-short.txt" && cat "$results/06-atomics-counting-ncu-short.txt"

# 2^20 containers: a run lasts tens of microseconds. The read probe (the ceiling's kernel) over the
# bytes of mean 4 (25 MB) and mean 16 (75 MB), timed as the harness times a version; then every
# kernel of v5, v11 and v13 alone (ncu's duration, caches flushed) at mean 16 on each distribution
# and v13's at mean 4: what the count's memset, the second launch and the gaps add is the rest of
# the runner's time.
part small && {
  echo "# common/flush_compare clean: the read probe after the harness's flush, at 06's sizes"
  "$build/common/flush_compare" clean 25 75 1024
  cl_ncu_header "n = 2^20 containers, every counting kernel of a run"
  for lengths in fixed uniform powerlaw; do
    for v in v6_resident_grid v12_vector_walks v14_lane_tiles; do
      echo "## $v, --lengths $lengths"
      CL_NCU_LAUNCHES=2 cl_ncu 'count' gpu__time_duration.sum,dram__bytes_read.sum "$bin/$v" \
        --n 2^20 --lengths "$lengths"
    done
  done
  echo "## v14_lane_tiles, --lengths fixed --mean 4"
  CL_NCU_LAUNCHES=2 cl_ncu 'count' gpu__time_duration.sum,dram__bytes_read.sum \
    "$bin/v14_lane_tiles" --n 2^20 --lengths fixed --mean 4
} > "$results/06-atomics-counting-small.txt" && cat "$results/06-atomics-counting-small.txt"

# The ncu-tails, ncu-streams and ncu-async files were written by parts of this script for the
# tiled and streamed variants that left the numbered path (v14-v19 at commit b928ee6350ae); they
# stay as the tries' evidence.
