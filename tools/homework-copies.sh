#!/usr/bin/env bash
# Follows the README's homework steps in a tree: for every lesson, copies the version its row of
# the README's homework table names to the name it gives, renames the copy's @file and writes its
# @brief as the README says ("vN: vK with a student's change"). Prints each copy as LESSON/FILE,
# one per line, on stdout. Fails if a version is missing or a copy's name is taken.
# usage: tools/homework-copies.sh [TREE]   (default: this repository, whose lessons then hold the
# copies until you delete them; homework-check.sh passes a scratch copy of the tree instead)
set -uo pipefail
src="${1:-$(cd "$(dirname "$0")/.." && pwd)}"
fail() { echo "homework-copies: $*" >&2; exit 1; }

# the README's homework table: | lesson | `copy` | `to` |
rows=$(sed -n '/<!-- homework:begin -->/,/<!-- homework:end -->/p' "$src/README.md" |
       grep -E '^\| [0-9][0-9]-[a-z-]+ \| `v[0-9]+_[a-z0-9_]+\.cu` \| `v[0-9]+_mine\.cu` \|$')
[ -n "$rows" ] || fail "README.md has no homework table rows"
while IFS='|' read -r _ lesson from to _; do
  lesson=$(echo "$lesson" | tr -d ' ') from=$(echo "$from" | tr -d ' `') to=$(echo "$to" | tr -d ' `')
  [ -f "$src/$lesson/$from" ] || fail "$lesson/$from, which the README says to copy, does not exist"
  [ ! -e "$src/$lesson/$to" ] || fail "$lesson/$to, the README's name for the copy, is taken"
  cp "$src/$lesson/$from" "$src/$lesson/$to"
  # "rename @file and write its @brief as the step it is, vN: vK with ..."
  n=${to#v} n=${n%%_*} k=${from#v} k=${k%%_*}
  sed -i -e "s|@file $from|@file $to|" \
         -e "s|@brief v$k: .*|@brief v$n: v$k with a student's change (the homework check's copy).|" \
         "$src/$lesson/$to"
  grep -q "@brief v$n: v$k with" "$src/$lesson/$to" || fail "$lesson/$to: no @brief to rewrite"
  echo "$lesson/$to"
  echo "homework-copies: cp $lesson/$from $lesson/$to" >&2
done <<< "$rows"
