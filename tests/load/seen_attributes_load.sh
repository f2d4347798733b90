#!/usr/bin/env bash
# Load tool (a measurement, not a test): what attributes others see cost on the wire (#66). 16 bots
# on one test-game-server on loopback, once per game: none (no game), self4 (4 attributes per
# character, visibility self, each changed every second) and seen4 (the same 4, visibility all: each
# bot receives its 15 others'). Prints per game the bytes per bot per second both ways and the mean
# snapshot datagram.
#
#   tests/load/seen_attributes_load.sh                      (wandering bots, 20 s a game)
#   PATTERN=script:FILE DURATION=30 tests/load/seen_attributes_load.sh
#   BUILD=build/release tests/load/seen_attributes_load.sh  (default build/debug: sizes do not depend on it)
#
# A bot that stands still (a script of "600 0 0 -") sends its snapshots nothing but the attributes'
# changes, so PATTERN=script:FILE of that line shows their cost alone.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${BUILD:-build/debug}
server=$build/tests/test-game-server
bot=$build/bots/foothold-bot
[ -x "$server" ] && [ -x "$bot" ] || { echo "seen_attributes_load: build test-game-server and foothold-bot in $build first" >&2; exit 2; }
duration=${DURATION:-20}
pattern=${PATTERN:-wander}
work=$(mktemp -d)
server_pid=
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

printf "%6s %17s %18s %12s\n" game down_B_per_bot_s up_B_per_bot_s snapshot_B
for game in none self4 seen4; do
  port=$((20000 + RANDOM % 20000))
  "$server" --bind 127.0.0.1 --port "$port" --game "$game" >"$work/server.log" 2>&1 &
  server_pid=$!
  for _ in $(seq 50); do "$bot" --probe "127.0.0.1:$port" >/dev/null 2>&1 && break; sleep 0.1; done
  "$bot" --server "127.0.0.1:$port" --bots 16 --duration "$duration" --pattern "$pattern" --seed 1 >"$work/bots.log" 2>&1 || true
  kill -INT "$server_pid"
  wait "$server_pid" || true
  server_pid=
  last=$(tail -1 "$work/bots.log")
  kv() { sed -n "s/.*\b$1=\([0-9.]*\).*/\1/p" <<<"$last"; }
  printf "%6s %17s %18s %12s\n" "$game" "$(kv bytes_in_per_bot_per_s)" "$(kv bytes_out_per_bot_per_s)" "$(kv bytes_per_packet_in)"
done
