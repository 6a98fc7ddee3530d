#!/usr/bin/env bash
# Lesson 04's GPU evidence for its page, run by tools/gpu-check.sh: ncu's shared-memory and stall
# counters on 8-bit pixels for v4 (one shared histogram), v5 (32 lane copies), v6 (two loads in
# flight) and CUB, and CUB's many-bins failure. Writes docs/results/04-histogram-ncu-u8.txt and
# docs/results/04-histogram-cub-many-bins.txt.
# usage: 04-histogram/experiments/gpu-extras.sh BUILD_DIR
set -uo pipefail
build="$1"
results="$(dirname "$0")/../../docs/results"
bin="$build/bin/04-histogram"
source "$(dirname "$0")/../../tools/ncu.sh"
metrics=smsp__inst_executed_op_shared_atom.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_short_scoreboard.ratio,gpu__time_duration.sum

{
  cl_ncu_header "--type u8, n = 2^28, 256 bins, the counting kernel"
  for dist in uniform one; do
    for v in v4_vectorized v5_lane_copies v6_two_loads baseline_cub; do
      echo "## $v, --dist $dist"
      cl_ncu 'histogram_vectorized|histogram_lane|SweepKernel' "$metrics" \
        "$bin/$v" --n 2^28 --type u8 --dist "$dist"
    done
  done
} > "$results/04-histogram-ncu-u8.txt"
cat "$results/04-histogram-ncu-u8.txt"

# CUB's many-bins failure, without our harness: where it starts, and what compute-sanitizer says.
# The temporary storage CUB asks for is one private histogram per block: bytes / (4 × bins) blocks.
{
  echo "# experiments/cub_many_bins.cu: cub::DeviceHistogram::HistogramEven, u32 values, 32-bit counters"
  for n in 1000003 16777216; do
    for bins in 65536 262144 500000 520000 1048576 4194304 16777216; do
      "$build/04-histogram/cub_many_bins" "$n" "$bins"
    done
  done
  echo "# compute-sanitizer --tool memcheck, n = 1000003, bins = 2^24 (first 12 lines)"
  compute-sanitizer --tool memcheck "$build/04-histogram/cub_many_bins" 1000003 16777216 2>&1 |
    head -12
} > "$results/04-histogram-cub-many-bins.txt"
cat "$results/04-histogram-cub-many-bins.txt"
