#!/usr/bin/env bash
# Load tool (a measurement, not a test): one foothold-server on loopback and foothold-bot processes
# against it, for each bot count. Prints, per row: the server's tick time p50/p99 (wall clock; the
# p99 is the worst of the steady-state windows), the CPU time per tick of its tick thread and of its
# sender thread, bytes per client per second both ways, and what the bots saw.
#
#   tests/load/server_load.sh [BOTS...]        (default: 1 100 500 1000)
#   DURATION=20 tests/load/server_load.sh 1000  (seconds of play per row; default 20)
#
# Uses the Release build (./build.sh release). Steady-state figures only: the first and last stats
# windows (joining, leaving) are left out.
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=build/release/server
[ -x "$bin/foothold-server" ] && [ -x "$bin/bots/foothold-bot" ] || { echo "server_load: build first: ./build.sh release" >&2; exit 2; }
counts=("$@")
[ ${#counts[@]} -gt 0 ] || counts=(1 100 500 1000)
duration=${DURATION:-20}
work=$(mktemp -d)
server_pid=
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

printf "%6s %9s %12s %12s %12s %12s %16s %16s %11s %12s %10s\n" bots connected tick_p50_ms tick_p99_ms tick_cpu_ms send_cpu_ms \
  out_B_per_client_s in_B_per_client_s corrections unexplained rtt_p50_ms
for n in "${counts[@]}"; do
  port=$((20000 + RANDOM % 20000))
  "$bin/foothold-server" --bind 127.0.0.1 --port "$port" --stats-interval 2 >"$work/server-$n.log" 2>&1 &
  server_pid=$!
  for _ in $(seq 50); do "$bin/bots/foothold-bot" --probe "127.0.0.1:$port" >/dev/null 2>&1 && break; sleep 0.1; done
  "$bin/bots/foothold-bot" --server "127.0.0.1:$port" --bots "$n" --duration "$duration" --pattern wander --seed 1 \
    >"$work/bots-$n.log" 2>&1 || true
  kill -INT "$server_pid"
  wait "$server_pid" || true
  server_pid=
  # Steady-state windows: every stats line with all clients present, but the first one.
  grep "stats: clients=$n " "$work/server-$n.log" | tail -n +2 >"$work/steady-$n" || true
  if [ ! -s "$work/steady-$n" ]; then
    echo "server_load: no steady state for $n bots (see below)" >&2
    tail -n 5 "$work/server-$n.log" "$work/bots-$n.log" >&2
    continue
  fi
  field() { sed -n "s/.* $1=\([0-9.]*\).*/\1/p" "$2"; }
  p50=$(field tick_p50_us "$work/steady-$n" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]/1000}')
  p99=$(field tick_p99_us "$work/steady-$n" | sort -n | tail -1 | awk '{print $1/1000}')
  cpu=$(field tick_cpu_us "$work/steady-$n" | awk '{s+=$1} END {printf "%.2f", s/NR/1000}')
  send=$(field send_cpu_us "$work/steady-$n" | awk '{s+=$1} END {printf "%.2f", s/NR/1000}')
  out=$(field bytes_out_per_s "$work/steady-$n" | awk -v n="$n" '{s+=$1} END {printf "%.0f", s/NR/n}')
  inb=$(field bytes_in_per_s "$work/steady-$n" | awk -v n="$n" '{s+=$1} END {printf "%.0f", s/NR/n}')
  last=$(tail -1 "$work/bots-$n.log")
  kv() { sed -n "s/.*\b$1=\([0-9.]*\).*/\1/p" <<<"$last"; }
  printf "%6s %9s %12s %12s %12s %12s %16s %16s %11s %12s %10s\n" "$n" "$(kv connected)" "$p50" "$p99" "$cpu" "$send" "$out" "$inb" \
    "$(kv corrections)" "$(kv unexplained)" "$(kv rtt_ms_p50)"
done
