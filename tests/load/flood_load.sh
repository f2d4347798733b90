#!/usr/bin/env bash
# Flood measurement (not a test): the server's tick time for N honest bots, without and then with a
# flood (one client at 20 times the allowed packet rate plus 20,000 spoofed connect requests per
# second from random loopback addresses; SPOOF_KIND=forged (default) or replayed).
#   tests/load/flood_load.sh [BOTS] [SECONDS]        (default 100 bots, 20 s per run)
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=tests/support/wait_ready.sh
source tests/support/wait_ready.sh
bin=build/release
for b in server/foothold-server bots/foothold-bot tests/foothold-flood; do
  [ -x "$bin/$b" ] || { echo "flood_load: build first: ./build.sh release ($bin/$b missing)" >&2; exit 2; }
done
bots=${1:-100}
secs=${2:-20}
work=$(mktemp -d)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true; rm -rf "$work"' EXIT

run() {  # run NAME FLOOD(0|1)
  local name=$1 flood=$2
  "$bin/server/foothold-server" --bind 127.0.0.1 --port 0 --ready-file "$work/$name.ready" --stats-interval 2 >"$work/$name.log" 2>&1 &
  local server=$!
  pids+=("$server")
  local address
  address=$(wait_ready "$work/$name.ready" "$server") || { cat "$work/$name.log" >&2; exit 1; }
  "$bin/bots/foothold-bot" --server "$address" --bots "$bots" --duration "$secs" --seed 1 >"$work/$name-bots.log" 2>&1 &
  local botpid=$!
  if [ "$flood" = 1 ]; then
    sleep 3  # let the honest bots join first
    # 20 times the allowed rate: the allowed rate is 4 x the tick rate = 240 packets/s.
    "$bin/tests/foothold-flood" --server "$address" --input-rate 4800 --spoof-rate 20000 --spoof-kind "${SPOOF_KIND:-forged}" \
      --duration "$((secs - 5))" >"$work/flood-tool.log" 2>&1 || true
  fi
  wait "$botpid" || true
  kill -INT "$server"
  wait "$server" || true
  # Steady state: windows with every bot connected, the first one left out.
  grep "stats: clients=$((bots + flood)) " "$work/$name.log" | tail -n +2 >"$work/$name.steady" || true
  [ "$flood" = 1 ] || grep "stats: clients=$bots " "$work/$name.log" | tail -n +2 >"$work/$name.steady" || true
}
field() { sed -n "s/.* $1=\([0-9.]*\).*/\1/p" "$2"; }
report() {  # report NAME
  local f=$work/$1.steady
  printf "%-9s wall p50 %6.0f us  p99 %6.0f us | cpu mean %5.0f us  p99 %5.0f us | rate_limited %7s  handshake_limited %7s  dropped_invalid %4s | bots: %s\n" "$1" \
    "$(field tick_p50_us "$f" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')" \
    "$(field tick_p99_us "$f" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')" \
    "$(field tick_cpu_us "$f" | awk '{s+=$1} END {print s/NR}')" \
    "$(field tick_cpu_p99_us "$f" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')" \
    "$(field rate_limited "$f" | awk '{s+=$1} END {print s}')" \
    "$(field handshake_limited "$f" | awk '{s+=$1} END {print s}')" \
    "$(field dropped_invalid "$f" | awk '{s+=$1} END {print s}')" \
    "$(tail -1 "$work/$1-bots.log" | grep -o 'connected=[0-9]* failed=[0-9]* corrections=[0-9]* unexplained=[0-9]*')"
}
run baseline 0
run flood 1
echo "server tick time with $bots honest bots (median over steady-state windows of the per-window p50/p99):"
report baseline
report flood
cat "$work/flood-tool.log"
echo "a stats line during the flood:"
grep "stats: clients=$((bots + 1)) " "$work/flood.log" | tail -2 | head -1
