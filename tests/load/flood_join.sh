#!/usr/bin/env bash
# Flood measurement (not a test): while 20,000 spoofed connect requests a second arrive, evenly spread,
# from random loopback addresses, can a player join and does the status probe answer? Every second a
# new bot joins (its own token) and a probe asks; prints how many succeeded and how long they took.
#   tests/load/flood_join.sh [SECONDS] [KIND]      (default 20 s, forged; KIND: forged or replayed)
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=tests/support/wait_ready.sh
source tests/support/wait_ready.sh
bin=build/release
for b in server/foothold-server bots/foothold-bot server/foothold-token tests/foothold-flood; do
  [ -x "$bin/$b" ] || { echo "flood_join: build first: ./build.sh release ($bin/$b missing)" >&2; exit 2; }
done
secs=${1:-20}
kind=${2:-forged}
work=$(mktemp -d)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true; rm -rf "$work"' EXIT
"$bin/server/foothold-token" keygen --out "$work/key" >/dev/null
"$bin/server/foothold-server" --bind 127.0.0.1 --port 0 --ready-file "$work/ready" --key-file "$work/key" --stats-interval 5 >"$work/server.log" 2>&1 &
pids+=($!)
address=$(wait_ready "$work/ready" "${pids[0]}") || { echo "flood_join: the server did not start" >&2; exit 1; }
"$bin/tests/foothold-flood" --server "$address" --spoof-rate 20000 --spoof-kind "$kind" --duration "$((secs + 3))" \
  --key-file "$work/key" >"$work/flood.log" 2>&1 &
pids+=($!)
sleep 2
joined=0 probed=0
: >"$work/join_ms"
: >"$work/probe_ms"
for i in $(seq "$secs"); do
  out=$("$bin/bots/foothold-bot" --server "$address" --key-file "$work/key" --bots 1 --duration 0.8 --connect-timeout 5 --seed "$i" 2>&1 || true)
  if grep -q ' connected=1 ' <<<"$out"; then
    joined=$((joined + 1))
    sed -n 's/.* connect_ms_p50=\([0-9.]*\).*/\1/p' <<<"$out" >>"$work/join_ms"
  fi
  if p=$("$bin/bots/foothold-bot" --probe "$address" --key-file "$work/key" 2>&1); then
    probed=$((probed + 1))
    sed -n 's/.* rtt_ms=\([0-9.]*\).*/\1/p' <<<"$p" >>"$work/probe_ms"
  fi
done
wait "${pids[1]}" || true
med() { sort -n "$1" | awk '{a[NR]=$1} END {if (NR) printf "%.1f", a[int((NR+1)/2)]; else printf "-"}'; }
mx() { sort -n "$1" | tail -1; }
echo "flood: $(tail -1 "$work/flood.log")"
echo "joins: $joined of $secs (median $(med "$work/join_ms") ms, worst $(mx "$work/join_ms") ms); probes: $probed of $secs (median $(med "$work/probe_ms") ms)"
grep -o 'dropped_invalid=[0-9]* .*token_limited=[0-9]*' "$work/server.log" | tail -1
