#!/usr/bin/env bash
# Is the ceiling a ceiling on this GPU? Runs a lesson's sweep (its best versions and the library
# over its cases) with every case unchecked (--no-check: the gpu tests check the results; this
# looks at the rates alone, and the host's reference would take most of the time), and prints the
# highest % of its ceiling that any row reached. The rows go to $OUT/<lesson>-sweep-unchecked.csv.
#   FROM, TO   run only the sweep's cases FROM..TO (counted from 1), to split a long sweep
# usage: tools/ceiling-check.sh BUILD_DIR LESSON [FROM [TO]]   (BUILD_DIR: a configured build tree)
set -uo pipefail
build="$1" lesson="$2" from="${3:-1}" to="${4:-1000}"
out="${OUT:-$PWD/ceiling-check-out}"
mkdir -p "$out"
args_file="$build/measure/$lesson-sweep.args"
[ -f "$args_file" ] || { echo "ceiling-check: $args_file: no sweep for $lesson in $build" >&2; exit 2; }
mapfile -t args < "$args_file"
# the runner's arguments again, each part of the sweep (its --only and --case, then its BIN_DIR)
# kept where it has a case in FROM..TO
run=() part=() part_cases=0 k=0
for ((i = 0; i < ${#args[@]}; i++)); do
  case "${args[i]}" in
    --case)
      k=$((k + 1)); i=$((i + 1))
      if [ "$k" -ge "$from" ] && [ "$k" -le "$to" ]; then
        part+=(--case "${args[i]} --no-check"); part_cases=$((part_cases + 1))
      fi ;;
    --only) part+=(--only "${args[i + 1]}"); i=$((i + 1)) ;;
    *) [ "$part_cases" -gt 0 ] && run+=("${part[@]}" "${args[i]}"); part=(); part_cases=0 ;;
  esac
done
[ ${#run[@]} -gt 0 ] || { echo "ceiling-check: no case of $lesson's sweep in $from..$to" >&2; exit 2; }
[ -n "${DRY:-}" ] && { printf '%s\n' "${run[@]}"; exit 0; }
csv="$out/$lesson-sweep-unchecked.csv"
"$build/bin/cl_runner" --csv "$csv" "${run[@]}"
status=$?
[ -f "$csv.new" ] && mv "$csv.new" "$csv"
awk -F, 'NR > 1 && $16 + 0 > max { max = $16 + 0; row = $2 " at " $3 " (" $12 " of " $14 " " $13 ")" }
         END { printf "highest %% of ceiling in %d rows: %.1f%%, %s\n", NR - 1, max, row }' "$csv"
exit $status
