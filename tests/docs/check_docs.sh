#!/usr/bin/env bash
# Keeps the documentation true to the code that cites it:
#   1. every section the code cites ("§4.2", in shared/, client/, bots/, server/, proto/, replay/,
#      tests/) is a heading of docs/movement.md, and nothing cites the old numbered design documents
#      ("doc 003"), in the code, the README, ARCHITECTURE.md or the site's pages;
#   2. every figure the document shows exists, and docs/figures/draw.sh draws exactly the committed SVGs;
#   3. every file under docs/ that the repository names (docs/fleet.md in a manifest's comment, a
#      README's link) exists: pages that move must leave nothing pointing at their old place;
#   4. every C++ block of the tutorial (docs/game-tutorial.md) is quoted verbatim from the game it
#      walks through (examples/hill_game/hill_game.cpp).
# (The site itself, its links and the API reference: tests/docs/build_docs.sh.)
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
           "$src/README.md" "$src/ARCHITECTURE.md" "$src/docs" --include='*.h' --include='*.cpp' --include='*.md' |
         grep -v '^[^:]*tests/docs/'); then
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

# 3. Names of files under docs/, anywhere in the repository (build trees, git and this check's own
#    planted faults aside).
named=0
while IFS= read -r hit; do
  file=${hit%%:*}
  path=${hit#*:}
  path=${path#*:}
  named=$((named + 1))
  [ -e "$src/$path" ] || fail "${file#"$src"/} names $path, which does not exist"
done < <(grep -rnoE '\bdocs/[A-Za-z0-9_-]+(/[A-Za-z0-9_-]+)*\.(md|png|svg)' "$src" \
           --exclude-dir=.git --exclude-dir=build --exclude-dir=out --exclude-dir=site | grep -v '^[^:]*tests/docs/' || true)

# 4. The tutorial's code, quoted from the game.
tutorial=$src/docs/game-tutorial.md
game=$src/examples/hill_game/hill_game.cpp
quotes=0
if [ -f "$tutorial" ] && [ -f "$game" ]; then
  block=$work/block.cpp
  in_block=0
  while IFS= read -r line; do
    if [ "$in_block" -eq 0 ] && [ "$line" = '```cpp' ]; then
      in_block=1
      : >"$block"
    elif [ "$in_block" -eq 1 ] && [ "$line" = '```' ]; then
      in_block=0
      quotes=$((quotes + 1))
      python3 - "$block" "$game" <<'PY' || fail "docs/game-tutorial.md quotes code that examples/hill_game/hill_game.cpp does not have: $(head -1 "$block")"
import sys
sys.exit(0 if open(sys.argv[1]).read() in open(sys.argv[2]).read() else 1)
PY
    elif [ "$in_block" -eq 1 ]; then
      printf '%s\n' "$line" >>"$block"
    fi
  done <"$tutorial"
fi

[ "$failed" -eq 0 ] &&
  echo "check_docs: $(wc -l <<<"$sections") sections, $named names of docs/ files, $quotes quotes of the tutorial; every citation, figure, name and quote checks"
exit "$failed"
