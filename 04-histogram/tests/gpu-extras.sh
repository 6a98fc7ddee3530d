#!/usr/bin/env bash
# Lesson 04's GPU evidence for its page, run by tools/gpu-check.sh: ncu's shared-memory and stall
# counters on 8-bit pixels for v4 (one shared histogram), v7 (32 lane copies), v8 (two loads in
# flight) and CUB. Writes docs/results/04-histogram-ncu-u8.txt.
# usage: 04-histogram/tests/gpu-extras.sh BUILD_DIR
set -uo pipefail
build="$1"
results="$(dirname "$0")/../../docs/results"
bin="$build/bin/04-histogram"
metrics=smsp__inst_executed_op_shared_atom.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_short_scoreboard.ratio,gpu__time_duration.sum

{
  echo "# ncu $(ncu --version | tail -1), --type u8, n = 2^28, 256 bins, the counting kernel of one launch, clocks as found (--clock-control none)"
  for dist in uniform one; do
    for v in v4_vectorized v7_lane_copies v8_two_loads baseline_cub; do
      echo "## $v, --dist $dist"
      ncu --clock-control none -k regex:'histogram_vectorized|histogram_lane|SweepKernel' -c 1 \
        --metrics "$metrics" "$bin/$v" --n 2^28 --type u8 --dist "$dist" --repeat 1 --warmup 0 \
        --no-check 2>&1 | grep -E "^ *(dram|gpu|l1tex|sm|smsp)__" | sed 's/^ *//'
    done
  done
} > "$results/04-histogram-ncu-u8.txt"
cat "$results/04-histogram-ncu-u8.txt"
