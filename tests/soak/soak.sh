#!/usr/bin/env bash
# Soak (ctest label "soak", not in the default run): 200 bots for 10 minutes over an impaired network
# (10% loss, 2% duplicates, 5% reordering, 60 +- 20 ms). Passes when every bot stayed connected with
# zero unexplained corrections, the server's memory stayed flat after warm-up, and its recording
# verifies. Prints the memory samples and the figures.
#   soak.sh BUILD_DIR [BOTS] [SECONDS]      (defaults: 200 bots, 600 s)
set -euo pipefail
# shellcheck source=tests/support/wait_ready.sh
source "$(dirname "$0")/../support/wait_ready.sh"
build=${1:?usage: soak.sh BUILD_DIR [BOTS] [SECONDS]}
bots=${2:-${SOAK_BOTS:-200}}
secs=${3:-${SOAK_SECONDS:-600}}
warmup=60                    # seconds before memory counts as settled
bound_kb=$((16 * 1024))      # allowed growth after warm-up
work=$(mktemp -d)
server=
trap '[ -n "$server" ] && kill "$server" 2>/dev/null; rm -rf "$work"' EXIT

"$build/server/foothold-server" --bind 127.0.0.1 --port 0 --ready-file "$work/ready" --record "$work/soak.rec" --stats-interval 30 >"$work/server.log" 2>&1 &
server=$!
address=$(wait_ready "$work/ready" "$server") || { cat "$work/server.log"; exit 1; }
echo "soak: $bots bots for $secs s against $address, impaired: loss 10%, duplicates 2%, reordering 5%, 60 +- 20 ms"
"$build/bots/foothold-bot" --server "$address" --bots "$bots" --duration "$secs" --pattern wander --seed 11 \
  --loss 0.1 --duplicate 0.02 --reorder 0.05 --latency 60 --jitter 20 --connect-timeout 20 >"$work/bots.log" 2>&1 &
bots_pid=$!
start=$SECONDS
: >"$work/rss"
while kill -0 "$bots_pid" 2>/dev/null; do
  rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$server/status")
  echo "$((SECONDS - start)) $rss" >>"$work/rss"
  sleep 10
done
bots_status=0
wait "$bots_pid" || bots_status=$?
kill -INT "$server"
server_status=0
wait "$server" || server_status=$?
server=

echo "server RSS (s kB):"
awk '{printf "  %4d s %8d kB\n", $1, $2}' "$work/rss"
settled=$(awk -v w="$warmup" '$1 >= w {print $2}' "$work/rss")
[ -n "$settled" ] || { echo "soak: too short to judge memory (need more than $warmup s)"; exit 1; }
lo=$(sort -n <<<"$settled" | head -1)
hi=$(sort -n <<<"$settled" | tail -1)
first=$(head -1 <<<"$settled")
last=$(tail -1 <<<"$settled")
echo "after warm-up: min $lo kB, max $hi kB, first $first kB, last $last kB, growth $((last - first)) kB (bound $bound_kb kB)"
tail -3 "$work/bots.log"
grep "stats:" "$work/server.log" | tail -2
verify=$("$build/replay/foothold-replay" verify "$work/soak.rec") || true
echo "$verify"
fail=0
[ "$bots_status" -eq 0 ] || { echo "soak: FAILED: the bots exited with $bots_status"; fail=1; }
[ "$server_status" -eq 0 ] || { echo "soak: FAILED: the server exited with $server_status"; fail=1; }
grep -q " connected=$bots failed=0 " "$work/bots.log" || { echo "soak: FAILED: not every bot connected"; fail=1; }
grep -q " unexplained=0 " "$work/bots.log" || { echo "soak: FAILED: unexplained corrections"; fail=1; }
[ $((hi - lo)) -le "$bound_kb" ] || { echo "soak: FAILED: memory grew by $((hi - lo)) kB after warm-up"; fail=1; }
tail -1 <<<"$verify" | grep -q "^verified=1 " || { echo "soak: FAILED: the recording does not verify"; fail=1; }
[ "$fail" -eq 0 ] && echo "soak: passed"
exit "$fail"
