#!/usr/bin/env bash
# Determinism across architectures: the arm64 cross build (run under qemu-user) against this
# machine's x86-64 build, byte for byte:
#   1. world and settings hashes, and traces, of every world and settings file the tests use, plus
#      generated worlds whose coordinates need all 17 digits (a terrain, a tilted V crevice);
#   2. the scenario traces of the test suite (shared_tests writes them with FOOTHOLD_TRACE_DIR);
#   3. a long stress walk with jumps over the terrain;
#   4. a bot session recorded by the x86-64 server on the terrain: verified, and re-simulated, on arm64;
#   5. arm64 bots playing against the x86-64 server on the terrain: every snapshot matches.
#
#   cross_arch.sh HOST_BUILD ARM64_BUILD      (HOST_BUILD: server, bots, replay and shared_tests of this machine)
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: $0 HOST_BUILD ARM64_BUILD" >&2; exit 2; }
host=$1 arm=$2
src=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/support/wait_ready.sh
source "$src/tests/support/wait_ready.sh"
# shellcheck source=tests/determinism/cross_inputs.sh
source "$src/tests/determinism/cross_inputs.sh"
command -v qemu-aarch64 >/dev/null || { echo "cross_arch: qemu-aarch64 is missing (./setup.sh --test)" >&2; exit 2; }
for b in "$host/replay/foothold-replay" "$host/server/foothold-server" "$host/bots/foothold-bot" "$host/tests/shared_tests" \
         "$arm/replay/foothold-replay" "$arm/bots/foothold-bot" "$arm/tests/shared_tests"; do
  [ -x "$b" ] || { echo "cross_arch: $b is not built (./build.sh arm64 and the host build)" >&2; exit 2; }
done
arch=$(file -b "$arm/replay/foothold-replay")
[[ "$arch" == *aarch64* ]] || { echo "cross_arch: $arm/replay/foothold-replay is not an arm64 binary: $arch" >&2; exit 2; }
host_replay=("$host/replay/foothold-replay")
arm_replay=(qemu-aarch64 "$arm/replay/foothold-replay")

work=$(mktemp -d)
server_pid=
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "cross_arch: FAILED: $*" >&2; exit 1; }

# Generated worlds, settings and a tour (tests/determinism/cross_inputs.sh).
write_cross_inputs "$work"
awk 'BEGIN { srand(11); for (i = 0; i < 150; i++) printf "%d %.3f %.3f %s\n", 5 + int(rand() * 30), 2 * rand() - 1, 2 * rand() - 1, (rand() < 0.2 ? "jump" : "-") }' \
  >"$work/stress.txt"

# 1. Hashes and traces of every world and settings file.
compare_run() {  # compare_run NAME WORLD SPAWN SCRIPT [SETTINGS]
  local name=$1 world=$2 spawn=$3 script=$4 settings=${5:-}
  local extra=()
  [ -n "$settings" ] && extra=(--settings "$settings")
  "${host_replay[@]}" run --world "$world" --spawn "$spawn" --inputs "$script" --out "$work/$name.x86.csv" "${extra[@]}" \
    >"$work/$name.x86.log" || fail "$name: the x86-64 run failed: $(cat "$work/$name.x86.log")"
  "${arm_replay[@]}" run --world "$world" --spawn "$spawn" --inputs "$script" --out "$work/$name.arm.csv" "${extra[@]}" \
    >"$work/$name.arm.log" || fail "$name: the arm64 run failed: $(cat "$work/$name.arm.log")"
  local hx ha
  hx=$(grep -E '^(world|settings)' "$work/$name.x86.log")
  ha=$(grep -E '^(world|settings)' "$work/$name.arm.log")
  [ "$hx" = "$ha" ] || fail "$name: hashes differ: x86-64 '$hx', arm64 '$ha'"
  cmp -s "$work/$name.x86.csv" "$work/$name.arm.csv" || {
    diff "$work/$name.x86.csv" "$work/$name.arm.csv" | head -4 >&2
    fail "$name: traces differ"
  }
  echo "$name: $(tr '\n' ' ' <<<"$hx")and $(($(wc -l <"$work/$name.x86.csv") - 1)) trace rows identical"
}
compare_run arena arena 0,2,0 "$work/tour.txt"
for obj in "$src"/tests/fuzz/corpus/obj/*.obj; do
  compare_run "$(basename "$obj" .obj)" "$obj" 0,3,0 "$work/tour.txt"
done
compare_run terrain "$work/terrain.obj" 0,3,0 "$work/tour.txt"
compare_run crevice "$work/crevice.obj" 0.3,5,0.2 "$work/tour.txt"
for toml in "$src"/tests/fuzz/corpus/settings/defaults.toml "$src"/tests/fuzz/corpus/settings/small.toml "$work/hard.toml"; do
  compare_run "terrain-$(basename "$toml" .toml)" "$work/terrain.obj" 0,3,0 "$work/tour.txt" "$toml"
done

# 2. The scenario suite's traces.
mkdir -p "$work/scn-x86" "$work/scn-arm"
FOOTHOLD_TRACE_DIR="$work/scn-x86" "$host/tests/shared_tests" --gtest_brief=1 >"$work/scn-x86.log" 2>&1 ||
  fail "the x86-64 shared_tests failed: $(tail -5 "$work/scn-x86.log")"
FOOTHOLD_TRACE_DIR="$work/scn-arm" qemu-aarch64 "$arm/tests/shared_tests" --gtest_brief=1 >"$work/scn-arm.log" 2>&1 ||
  fail "the arm64 shared_tests failed: $(tail -5 "$work/scn-arm.log")"
count=$(find "$work/scn-x86" -name '*.csv' | wc -l)
[ "$count" -gt 20 ] || fail "only $count scenario traces were written"
diff -rq "$work/scn-x86" "$work/scn-arm" >&2 || fail "scenario traces differ"
echo "scenario suite: $count traces identical, and every test passes on arm64"

# 3. A stress walk.
compare_run stress "$work/terrain.obj" 0,3,0 "$work/stress.txt"

# 4 and 5. A session on the terrain: x86-64 server, recorded; x86-64 bots, then arm64 bots.
"$host/server/foothold-server" --bind 127.0.0.1 --port 0 --ready-file "$work/ready" --world "$work/terrain.obj" --record "$work/session.rec" \
  >"$work/server.log" 2>&1 &
server_pid=$!
address=$(wait_ready "$work/ready" "$server_pid") || fail "the server did not start: $(cat "$work/server.log")"
"$host/bots/foothold-bot" --server "$address" --world "$work/terrain.obj" --bots 4 --duration 3 --seed 3 >"$work/x86-bots.log" 2>&1 ||
  fail "x86-64 bots: $(tail -3 "$work/x86-bots.log")"
qemu-aarch64 "$arm/bots/foothold-bot" --server "$address" --world "$work/terrain.obj" --bots 2 --duration 5 --seed 4 \
  --connect-timeout 10 >"$work/arm-bots.log" 2>&1 || fail "arm64 bots: $(tail -3 "$work/arm-bots.log")"
summary=$(tail -1 "$work/arm-bots.log")
grep -q ' connected=2 ' <<<"$summary" || fail "arm64 bots did not connect: $summary"
grep -q ' corrections=0 unexplained=0 ' <<<"$summary" || fail "arm64 bots were corrected: $summary"
compared=$(sed -n 's/.* compared=\([0-9]*\).*/\1/p' <<<"$summary")
[ "$compared" -gt 100 ] || fail "arm64 bots compared only $compared snapshots"
echo "arm64 bots against the x86-64 server on the terrain: $compared snapshots compared, 0 corrections"
kill -TERM "$server_pid"
wait "$server_pid" || fail "the server did not stop cleanly"
server_pid=
qemu-aarch64 "$arm/replay/foothold-replay" verify "$work/session.rec" --world "$work/terrain.obj" >"$work/verify.log" 2>&1 ||
  fail "the recording does not verify on arm64: $(tail -3 "$work/verify.log")"
"${host_replay[@]}" run --replay "$work/session.rec" --world "$work/terrain.obj" --out "$work/session.x86.csv" >/dev/null
"${arm_replay[@]}" run --replay "$work/session.rec" --world "$work/terrain.obj" --out "$work/session.arm.csv" >/dev/null
cmp -s "$work/session.x86.csv" "$work/session.arm.csv" || fail "the re-simulated session differs"
echo "recorded session: verifies on arm64; $(($(wc -l <"$work/session.x86.csv") - 1)) re-simulated rows identical"
echo "cross-arch: every comparison identical"
