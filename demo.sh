#!/usr/bin/env bash
# The main job on the embedded default: ./demo.sh
#
# Sets up what is missing, builds (Release), then: makes a private key in the output folder (the
# game backend's part); starts foothold-server on loopback with that key, the embedded arena and
# recording on; runs 16 bots wandering the arena for 20 seconds; verifies the
# recording; diffs the server's trajectories against every bot's; prints a short table and writes an
# SVG plot of every path. Everything it starts is stopped when it ends, also when interrupted.
# Output goes to out/demo/.
#
#   ./demo.sh                         16 bots, 20 seconds
#   DEMO_BOTS=64 DEMO_SECONDS=30 ./demo.sh
set -euo pipefail
cd "$(dirname "$0")"
# shellcheck source=tests/support/wait_ready.sh
source tests/support/wait_ready.sh
bots=${DEMO_BOTS:-16}
seconds=${DEMO_SECONDS:-20}

./build.sh release >/dev/null
bin=build/release
out=out/demo
rm -rf "$out"
mkdir -p "$out"

server_pid=
bots_pid=
stop_all() {
  for pid in $bots_pid $server_pid; do
    kill -TERM "$pid" 2>/dev/null || true
  done
  for pid in $bots_pid $server_pid; do
    wait "$pid" 2>/dev/null || true
  done
  bots_pid=
  server_pid=
}
trap 'stop_all' EXIT
trap 'echo "demo: interrupted; stopping what it started" >&2; exit 130' INT TERM

# The server's private key: the bots play the backend's part and mint their connect tokens with it.
"$bin/server/foothold-token" keygen --out "$out/server.key" >/dev/null

# Port 0: the server takes a free port and writes it to its ready file once listening.
"$bin/server/foothold-server" --bind 127.0.0.1 --port 0 --ready-file "$out/ready" --key-file "$out/server.key" --record "$out/server.rec" \
  --stats-interval 5 >"$out/server.log" 2>&1 &
server_pid=$!
address=$(wait_ready "$out/ready" "$server_pid") || { cat "$out/server.log" >&2; echo "demo: the server did not start; see $out/server.log" >&2; exit 1; }
echo "== foothold-server on $address (arena, key $out/server.key, recording to $out/server.rec)"
for _ in $(seq 100); do
  "$bin/bots/foothold-bot" --probe "$address" --key-file "$out/server.key" >/dev/null 2>&1 && break
  kill -0 "$server_pid" 2>/dev/null || { cat "$out/server.log" >&2; exit 1; }
  sleep 0.1
done

echo "== $bots bots riding and crowding the arena's movers for $seconds s"
"$bin/bots/foothold-bot" --server "$address" --key-file "$out/server.key" --bots "$bots" --duration "$seconds" \
  --pattern ride --seed 1 --trace-dir "$out/traces" --record "$out/bots" >"$out/bots.log" 2>&1 &
bots_pid=$!
bots_status=0
wait "$bots_pid" || bots_status=$?
bots_pid=
kill -TERM "$server_pid"
wait "$server_pid" || { echo "demo: the server did not stop cleanly; see $out/server.log" >&2; exit 1; }
server_pid=
[ "$bots_status" -eq 0 ] || { tail -5 "$out/bots.log" >&2; echo "demo: the bots reported a problem (exit $bots_status)" >&2; exit 1; }

echo "== verify the recording"
"$bin/replay/foothold-replay" verify "$out/server.rec" | tee "$out/verify.log"

echo "== diff the server's trajectories against every bot's"
"$bin/replay/foothold-replay" run --replay "$out/server.rec" --out "$out/server.csv" >/dev/null
# Every bot's trace in one file (rows are keyed by tick and character id), for one diff and one plot.
{
  head -1 "$out/server.csv"
  for f in "$out"/traces/bot-*.csv; do tail -n +2 "$f"; done
} >"$out/bots.csv"
diff_status=0
"$bin/replay/foothold-replay" diff "$out/server.csv" "$out/bots.csv" --inputs-a "$out/server.rec" --plot "$out/paths.svg" \
  --html "$out/report.html" >"$out/diff.log" || diff_status=$?

# The table.
summary=$(tail -1 "$out/bots.log")
kv() { sed -n "s/.*\b$1=\([^ ]*\).*/\1/p" <<<"$summary"; }
verified=$(tail -1 "$out/verify.log")
ticks=$(sed -n 's/.*\bticks=\([0-9]*\).*/\1/p' <<<"$verified")
p99=$(grep -o 'tick_p99_us=[0-9]*' "$out/server.log" | cut -d= -f2 | sort -n | tail -1)
diverged=$(tail -1 "$out/diff.log" | sed -n 's/.*\bdiverged=\([0-9]*\).*/\1/p')
by_interaction=$(tail -1 "$out/diff.log" | sed -n 's/.*\bby_interaction=\([0-9]*\).*/\1/p')
bytes=$(($(kv bytes_in_per_bot_per_s) + $(kv bytes_out_per_bot_per_s)))
echo
printf "  %-34s %s\n" "bots connected" "$(kv connected) of $(kv bots)"
printf "  %-34s %s\n" "server ticks recorded" "$ticks"
printf "  %-34s %s\n" "corrections (bots)" "$(kv corrections)"
printf "  %-34s %s\n" "  of them by other characters" "$(kv interactions)"
printf "  %-34s %s\n" "unexplained corrections" "$(kv unexplained)"
printf "  %-34s %s\n" "bytes per client per second" "$bytes (in $(kv bytes_in_per_bot_per_s), out $(kv bytes_out_per_bot_per_s))"
printf "  %-34s %s\n" "server tick time p99" "$(awk -v u="${p99:-0}" 'BEGIN {printf "%.2f ms", u / 1000}')"
printf "  %-34s %s\n" "recording verified" "$(grep -q '^verified=1 ' <<<"$verified" && echo yes || echo NO)"
printf "  %-34s %s\n" "bot paths diverging from server" "${diverged:-?} of $(kv connected) (bit-exact comparison; ${by_interaction:-?} where other characters met them)"
echo
echo "plot of every path and the error over time: $out/paths.svg"
echo "3D report (open it in a browser: the world, every path on both sides, a timeline per bot): $out/report.html"
echo "recording: $out/server.rec (replay it: $bin/replay/foothold-replay run --replay $out/server.rec --out trace.csv)"
# Bit-exact, but where other characters met a bot (its client can only guess their moves).
{ [ "$diff_status" -eq 0 ] || [ "${diverged:-x}" = "${by_interaction:-y}" ]; } && grep -q '^verified=1 ' <<<"$verified"
