#!/usr/bin/env bash
# Keeps docs/movement.md true to the code that cites it:
#   1. every section the code cites ("§4.2", in shared/, client/, bots/, server/, proto/, replay/,
#      tests/) is a heading of docs/movement.md, and nothing cites the old numbered design documents
#      ("doc 003");
#   2. every figure the document shows exists, and docs/figures/draw.sh draws exactly the committed SVGs.
#   check_docs.sh SOURCE_DIR
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: $0 SOURCE_DIR" >&2; exit 2; }
src=$1
doc=$src/docs/movement.md
[ -f "$doc" ] || { echo "check_docs: $doc is missing" >&2; exit 1; }
failed=0
fail() { echo "check_docs: $*" >&2; failed=1; }

# 1. Citations. The folders searched: those of them that exist (a copy may hold only some).
folders=()
for folder in shared client bots server proto replay tests; do
  [ -d "$src/$folder" ] && folders+=("$src/$folder")
done
sections=$(grep -oE '^#{2,3} §[0-9]+(\.[0-9]+)?' "$doc" | grep -oE '§[0-9.]+' | sort -u)
while IFS= read -r hit; do
  file=${hit%%:*}
  rest=${hit#*:}
  line=${rest%%:*}
  for cited in $(grep -oE '§[0-9]+(\.[0-9]+)?' <<<"${rest#*:}"); do
    grep -qxF "$cited" <<<"$sections" || fail "$file:$line cites $cited, which docs/movement.md does not have"
  done
done < <(grep -rnE '§[0-9]' "${folders[@]}" \
           --include='*.h' --include='*.cpp' --include='*.sh' --include='*.md' | grep -v '^[^:]*tests/docs/' || true)
if old=$(grep -rniE '(design )?doc 00[0-9]' "${folders[@]}" \
           "$src/README.md" "$src/ARCHITECTURE.md" --include='*.h' --include='*.cpp' --include='*.md' | grep -v '^[^:]*tests/docs/'); then
  fail "citations of design documents that are not in the repository:"$'\n'"$old"
fi

# 2. Figures.
for fig in $(grep -oE '\(figures/[a-z_]+\.svg\)' "$doc" | tr -d '()'); do
  [ -f "$src/docs/$fig" ] || fail "docs/movement.md shows $fig, which does not exist"
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$src/docs/figures/draw.sh" "$work"
for svg in "$work"/*.svg; do
  cmp -s "$svg" "$src/docs/figures/$(basename "$svg")" ||
    fail "docs/figures/$(basename "$svg") is not what docs/figures/draw.sh draws (run it and commit the result)"
done
[ "$failed" -eq 0 ] && echo "check_docs: $(wc -l <<<"$sections") sections; every citation and figure checks"
exit "$failed"
