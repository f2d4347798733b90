#!/usr/bin/env bash
# Determinism across builds and processes: runs the same scenarios through two foothold-replay
# binaries (normally a Debug and a Release build) and requires byte-identical traces.
#   compare_builds.sh REPLAY_A REPLAY_B
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: $0 REPLAY_A REPLAY_B" >&2; exit 2; }
a=$1 b=$2
[ -x "$a" ] || { echo "compare_builds: $a is not an executable" >&2; exit 2; }
# The other build may simply not be built yet (each preset tests on its own): skip, as ctest code 77.
[ -x "$b" ] || { echo "compare_builds: $b is not built; nothing to compare with (./build.sh builds it)"; exit 77; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

# A tour of the arena: stairs, the ledge and the drop, slopes, walls, wedges, jumps everywhere.
cat >"$dir/tour.txt" <<'SCRIPT'
30 0 0 -
90 1 0 -
20 1 0.2 jump
60 0.3 1 -
40 -1 0.5 jump
120 0.7 -0.7 -
1 0 1 jump
90 0 1 -
80 -1 0 -
1 0.5 0.5 jump
120 0.9 0.4 -
SCRIPT
spawns=("-30,2,-14" "-10,5,-26" "-22,2,-2" "-20,4,15" "-8,4,15" "12,2,12")
i=0
for spawn in "${spawns[@]}"; do
  "$a" run --world arena --spawn "$spawn" --inputs "$dir/tour.txt" --out "$dir/a$i.csv" >/dev/null
  "$b" run --world arena --spawn "$spawn" --inputs "$dir/tour.txt" --out "$dir/b$i.csv" >/dev/null
  if ! cmp -s "$dir/a$i.csv" "$dir/b$i.csv"; then
    echo "compare_builds: traces from spawn $spawn differ:" >&2
    diff "$dir/a$i.csv" "$dir/b$i.csv" | head -5 >&2
    exit 1
  fi
  rows=$(($(wc -l <"$dir/a$i.csv") - 1))
  echo "spawn $spawn: $rows rows identical ($(sha256sum <"$dir/a$i.csv" | cut -c1-16))"
  i=$((i + 1))
done
