#!/usr/bin/env bash
# Load tool (a measurement, not a test): bytes on the wire per snapshot and per input packet, with
# every bot seeing V others (V + 1 wandering bots on one foothold-server on loopback), on a clean
# network and an impaired one (10% loss, 2% duplicates, 5% reordering, 60 +- 20 ms each way).
# Prints a row per (V, network): mean datagram sizes both ways, bytes per bot per second both ways,
# corrections and unexplained corrections as the bots saw them.
#
#   tests/load/wire_load.sh [VISIBLE...]          (default: 1 16 48)
#   DURATION=20 tests/load/wire_load.sh 16         (seconds of play per row; default 15)
#   SERVER_ARGS="--snapshot-rate 30" tests/load/wire_load.sh
#
# Uses the Release build (./build.sh release). Sizes are whole UDP payloads: prefix, sequence,
# encryption tag included.
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=build/release/server
[ -x "$bin/foothold-server" ] && [ -x "$bin/bots/foothold-bot" ] || { echo "wire_load: build first: ./build.sh release" >&2; exit 2; }
visible=("$@")
[ ${#visible[@]} -gt 0 ] || visible=(1 16 48)
duration=${DURATION:-15}
read -r -a server_args <<<"${SERVER_ARGS:-}"
work=$(mktemp -d)
server_pid=
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

printf "%8s %9s %12s %15s %17s %18s %12s %12s\n" visible network snapshot_B input_packet_B down_B_per_bot_s up_B_per_bot_s corrections unexplained
for v in "${visible[@]}"; do
  for network in clean impaired; do
    n=$((v + 1))
    port=$((20000 + RANDOM % 20000))
    "$bin/foothold-server" --bind 127.0.0.1 --port "$port" "${server_args[@]}" >"$work/server.log" 2>&1 &
    server_pid=$!
    for _ in $(seq 50); do "$bin/bots/foothold-bot" --probe "127.0.0.1:$port" >/dev/null 2>&1 && break; sleep 0.1; done
    impair=()
    [ "$network" = impaired ] && impair=(--loss 0.1 --duplicate 0.02 --reorder 0.05 --latency 60 --jitter 20)
    "$bin/bots/foothold-bot" --server "127.0.0.1:$port" --bots "$n" --duration "$duration" --pattern wander --seed 1 \
      "${impair[@]}" >"$work/bots.log" 2>&1 || true
    kill -INT "$server_pid"
    wait "$server_pid" || true
    server_pid=
    last=$(tail -1 "$work/bots.log")
    kv() { sed -n "s/.*\b$1=\([0-9.]*\).*/\1/p" <<<"$last"; }
    printf "%8s %9s %12s %15s %17s %18s %12s %12s\n" "$v" "$network" "$(kv bytes_per_packet_in)" "$(kv bytes_per_packet_out)" \
      "$(kv bytes_in_per_bot_per_s)" "$(kv bytes_out_per_bot_per_s)" "$(kv corrections)" "$(kv unexplained)"
  done
done
