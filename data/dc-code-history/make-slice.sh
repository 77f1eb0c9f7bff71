#!/usr/bin/env bash
# Makes slice.bundle (see PROVENANCE.md) from the D.C. Council's law-xml-codified history: every commit of the
# default branch's first-parent line, the off-line publication 2023-11-05 and the unrelated `main`, each rewritten to
# hold only the section files named below (same blobs, authors, committers, dates and messages; the commit ids differ).
# Usage: make-slice.sh FULL.bundle OUT.bundle        (run once; tests read OUT.bundle, never the full history)
set -euo pipefail
full=$1 out=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git clone -q --bare "$full" "$work/full.git"
cd "$work/full.git"
sections=us/dc/council/code/titles
keep=(
  "$sections/22/sections/22-404.05.xml" "$sections/22/sections/22-405.01.xml" "$sections/22/sections/22-406.01.xml"
  "$sections/22/sections/22-432.xml" "$sections/22/sections/22-407.xml" "$sections/22/sections/22-451.xml"
  "$sections/22/sections/22-408.xml" "$sections/22/sections/22-471.xml" "$sections/22/sections/22-4234.xml"
  "$sections/31/sections/31–3302.06a.xml" "$sections/47/sections/[47-2887.16a].xml" "$sections/47/sections/47-2887.16a.xml"
  "$sections/28/sections/28~1-101.xml" "$sections/28/sections/28-3871.xml" "$sections/42/sections/42-3502.15a.xml"
  "$sections/2/sections/2-534.xml"
)
declare -A mapped
rewrite() { # COMMIT NEW_PARENT... → prints the rewritten commit
  local c=$1; shift
  local parents=()
  for p in "$@"; do parents+=(-p "$p"); done
  export GIT_INDEX_FILE="$work/index"
  rm -f "$GIT_INDEX_FILE"
  git ls-tree -r -z "$c" -- "${keep[@]}" | git update-index -z --index-info
  local tree
  tree=$(git write-tree)
  eval "$(git log -1 --format='export GIT_AUTHOR_NAME=%(quote)%an%(quote) GIT_AUTHOR_EMAIL=%(quote)%ae%(quote) GIT_AUTHOR_DATE=%(quote)%aD%(quote) GIT_COMMITTER_NAME=%(quote)%cn%(quote) GIT_COMMITTER_EMAIL=%(quote)%ce%(quote) GIT_COMMITTER_DATE=%(quote)%cD%(quote)' "$c" | sed "s/%(quote)/'/g")"
  git log -1 --format=%B "$c" | git commit-tree "$tree" "${parents[@]}"
}
prev=()
for c in $(git rev-list --first-parent --reverse HEAD); do
  n=$(rewrite "$c" "${prev[@]}")
  mapped[$c]=$n
  prev=("$n")
done
git update-ref refs/heads/slice/line "${prev[0]}"
off=$(git rev-parse refs/heads/publication/2021-10-18.2023-11-05)
git update-ref refs/heads/slice/off-line "$(rewrite "$off" "${mapped[$(git rev-parse "$off^")]}")"
git update-ref refs/heads/slice/main "$(rewrite "$(git rev-parse refs/heads/main)")"
git symbolic-ref HEAD refs/heads/slice/line
git bundle create "$out" HEAD refs/heads/slice/line refs/heads/slice/off-line refs/heads/slice/main
