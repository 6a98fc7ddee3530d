# Shared by the lessons' experiments/gpu-extras.sh (source it): one ncu recipe for every page's evidence.
#   cl_ncu_header "WHAT WAS RUN"        the first line of a results file: ncu's version and the case
#   cl_ncu KERNELS METRICS PROGRAM ARGS one launch of the first kernel whose name matches the regex
#                                        KERNELS, clocks as the card runs them (--clock-control none,
#                                        so the numbers match the timed runs), a lesson's program
#                                        unchecked and untimed; prints the kernel's name and one line
#                                        per metric
#   cl_ncu_run NCU_OPTIONS... -- COMMAND  the same for any command, with more ncu options (-s N...)
#   CL_NCU_LAUNCHES=N (environment)      profile the first N matching launches instead of one
#   ... | cl_ncu_drop_harness            with N > 1: leaves out the harness's probe and flushes
#   cl_ncu_all METRICS PROGRAM ARGS      every kernel of one unchecked, untimed call (its first 12
#                                        launches), less the harness's probe and flushes
cl_ncu_header() {
  echo "# ncu $(ncu --version | tail -1), $1, one launch each, clocks as found (--clock-control none)"
}

cl_ncu_run() {
  local options=()
  while [ "$1" != "--" ]; do options+=("$1"); shift; done
  shift
  ncu --clock-control none -c "${CL_NCU_LAUNCHES:-1}" "${options[@]}" "$@" 2>&1 |
    grep -E ", Context [0-9]|^ *[a-z0-9_]+__[a-z]" | grep -v "^==" |
    sed -E 's/^ *//; s/ \([0-9, ]*\)x\([0-9, ]*\), Context.*//'
}

cl_ncu() {
  local kernels="$1" metrics="$2"
  shift 2
  cl_ncu_run -k regex:"$kernels" --metrics "$metrics" -- "$@" --repeat 1 --warmup 0 --no-check
}

# A filter for cl_ncu_run's output with CL_NCU_LAUNCHES > 1: drops the harness's own kernels (the
# read probe that measures the ceiling, the L2 flush between timed runs) and their metrics, keeping
# the lesson's and the library's kernels in launch order.
cl_ncu_drop_harness() {
  awk '/^[a-z0-9_]+__[a-z]/ { if (!harness) print; next }
       { harness = ($0 ~ /^(read_probe|l2_clean_read|fma_probe)\(/); if (!harness) print }'
}

cl_ncu_all() {
  local metrics="$1"
  shift
  CL_NCU_LAUNCHES="${CL_NCU_LAUNCHES:-12}" cl_ncu_run --metrics "$metrics" -- "$@" --repeat 1 \
    --warmup 0 --no-check | cl_ncu_drop_harness
}
