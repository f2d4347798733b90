#!/usr/bin/env bash
# Writes the traces that a behaviour-preserving change must leave byte-identical: the scenario
# suite's (shared_tests with FOOTHOLD_TRACE_DIR), and foothold-replay runs of a tour and a long
# stress walk on the arena, the benchmark terrain and every OBJ of the fuzz corpus.
#
#   write_traces.sh BUILD_DIR OUT_DIR
#
# Refactoring the core: write the traces before and after, then `diff -r BEFORE AFTER` (no output: same).
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: $0 BUILD_DIR OUT_DIR" >&2; exit 2; }
build=$1 out=$2
src=$(cd "$(dirname "$0")/../.." && pwd)
replay=$build/replay/foothold-replay
tests=$build/tests/shared_tests
for b in "$replay" "$tests"; do
  [ -x "$b" ] || { echo "write_traces: $b is not built" >&2; exit 2; }
done
mkdir -p "$out/scenarios"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
FOOTHOLD_TRACE_DIR="$out/scenarios" "$tests" --gtest_brief=1 >"$log" 2>&1 ||
  { echo "write_traces: shared_tests failed:" >&2; tail -20 "$log" >&2; exit 1; }
printf '20 0 0 -\n60 1 0 -\n15 1 0.3 jump\n50 0.2 1 -\n40 -1 0.4 jump\n90 0.7 -0.7 -\n30 -0.3 -1 jump\n60 0 -1 -\n' >"$out/tour.txt"
awk 'BEGIN { srand(11); for (i = 0; i < 400; i++) printf "%d %.3f %.3f %s\n", 5 + int(rand() * 30), 2 * rand() - 1, 2 * rand() - 1, (rand() < 0.2 ? "jump" : "-") }' \
  >"$out/stress.txt"
run() {  # run NAME WORLD SPAWN SCRIPT
  "$replay" run --world "$2" --spawn "$3" --inputs "$4" --out "$out/$1.csv" >/dev/null ||
    { echo "write_traces: the $1 run failed" >&2; exit 1; }
}
run arena-tour arena 0,2,0 "$out/tour.txt"
run arena-stress arena 0,2,0 "$out/stress.txt"
run terrain-tour "$src/tests/bench/scenes/terrain128.obj" 0,30,0 "$out/tour.txt"
run terrain-stress "$src/tests/bench/scenes/terrain128.obj" 0,30,0 "$out/stress.txt"
for obj in "$src"/tests/fuzz/corpus/obj/*.obj; do
  run "corpus-$(basename "$obj" .obj)" "$obj" 0,3,0 "$out/tour.txt"
done
echo "write_traces: $(find "$out" -name '*.csv' | wc -l) traces in $out"
