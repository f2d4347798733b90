#!/usr/bin/env bash
# The main job on the embedded default: ./demo.sh
#
# Sets up what is missing, builds the four programs it runs (Release; the compiler's output goes to
# build/release/demo-build.log), then: makes a private key in the output folder (the
# game backend's part); starts foothold-server on loopback with that key, the embedded arena, the
# built-in tag game (--game tag, games/tag_game.h) and recording on; runs 16 bots playing tag for 20
# seconds (--pattern tag: "it" chases the nearest, the others run); verifies the recording; diffs the
# server's trajectories against every bot's; prints a short table (with the passes of "it" and the
# scores) and writes an SVG plot of every path. Everything it starts is stopped when it ends, also
# when interrupted. Output goes to out/demo/.
#
#   ./demo.sh                         16 bots, 20 seconds
#   DEMO_BOTS=64 DEMO_SECONDS=30 ./demo.sh
#   DEMO_SECONDS=70 ./demo.sh         a tag round lasts 60 s: then the scores are announced
#   DEMO_BUILD_DIR=build/debug ./demo.sh   use the programs already built there (no ./build.sh)
set -euo pipefail
cd "$(dirname "$0")"
# shellcheck source=tests/support/wait_ready.sh
source tests/support/wait_ready.sh
bots=${DEMO_BOTS:-16}
seconds=${DEMO_SECONDS:-20}

if [ -n "${DEMO_BUILD_DIR:-}" ]; then
  bin=$DEMO_BUILD_DIR
else
  # Only the four programs the demo runs, in Release; the compiler's output goes to a log, so the
  # screen says what is happening in a line and a first build shows no wall of compiler lines.
  ./setup.sh >/dev/null
  bin=build/release
  build_log=$bin/demo-build.log
  mkdir -p "$bin"
  echo "== building foothold-server, foothold-token, foothold-bot and foothold-replay (Release; a first build takes some minutes; log: $build_log)"
  if ! { cmake --preset release && cmake --build --preset release --target foothold-server foothold-token foothold-bot foothold-replay; } \
      >"$build_log" 2>&1; then
    tail -25 "$build_log" >&2
    echo "demo: the build failed; the whole log: $build_log" >&2
    exit 1
  fi
  warnings=$(grep -c 'warning:' "$build_log" || true)
  [ "$warnings" -eq 0 ] || echo "demo: the compiler printed $warnings warning(s); see $build_log" >&2
fi
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
  --stats-interval 5 --game tag >"$out/server.log" 2>&1 &
server_pid=$!
address=$(wait_ready "$out/ready" "$server_pid") || { cat "$out/server.log" >&2; echo "demo: the server did not start; see $out/server.log" >&2; exit 1; }
echo "== foothold-server on $address (arena, game tag, key $out/server.key, recording to $out/server.rec)"
for _ in $(seq 100); do
  "$bin/bots/foothold-bot" --probe "$address" --key-file "$out/server.key" >/dev/null 2>&1 && break
  kill -0 "$server_pid" 2>/dev/null || { cat "$out/server.log" >&2; exit 1; }
  sleep 0.1
done

echo "== $bots bots playing tag in the arena for $seconds s (\"it\" chases the nearest, the others run)"
"$bin/bots/foothold-bot" --server "$address" --key-file "$out/server.key" --bots "$bots" --duration "$seconds" \
  --pattern tag --seed 1 --trace-dir "$out/traces" --record "$out/bots" >"$out/bots.log" 2>&1 &
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
# Paths that parted where the game gave a command (a freeze): the client learns of it only from the
# server. 0 when the diff does not tell them apart.
by_server=$(tail -1 "$out/diff.log" | sed -n 's/.*\bby_server=\([0-9]*\).*/\1/p')
by_server=${by_server:-0}
bytes=$(($(kv bytes_in_per_bot_per_s) + $(kv bytes_out_per_bot_per_s)))
# The tag game: every bot hears every pass of "it" (tags_seen sums them over the bots); the newest
# scores and the standing of the round under way, as foothold-bot prints them (bots/bot_main.cpp).
tags_seen=$(kv tags_seen)
connected=$(kv connected)
passes=$(( ${connected:-0} > 0 ? ${tags_seen:-0} / connected : 0 ))
[ $(( ${connected:-0} > 0 ? ${tags_seen:-0} % connected : 0 )) -eq 0 ] || passes="about $passes"
# "ROUND ID:SECONDS ..." as "round ROUND: ID:SECONDS ..."; "none" as it is.
round_text() { sed -n "s/^$1=//p" "$out/bots.log" | tail -1 | sed 's/^\([0-9][0-9]*\)\( \|$\)/round \1:\2/'; }
scores=$(round_text last_scores)
[ "${scores:-none}" != none ] || scores="none yet: a round lasts 60 s"
standings=$(round_text standings)
# The game's commands the server applied, summed over its stats lines (each covers its own window),
# when its stats line has them.
game_commands=$({ grep -o '\bgame_commands=[0-9]*' "$out/server.log" || true; } | cut -d= -f2 | awk '{n += $1} END {if (NR) print n}')
echo
printf "  %-34s %s\n" "bots connected" "$(kv connected) of $(kv bots)"
printf "  %-34s %s\n" "server ticks recorded" "$ticks"
printf "  %-34s %s\n" "corrections (bots)" "$(kv corrections)"
printf "  %-34s %s\n" "  of them by other characters" "$(kv interactions)"
printf "  %-34s %s\n" "  of them by the game's commands" "$(kv server_corrections) (a character tagged is frozen for 1 s)"
printf "  %-34s %s\n" "unexplained corrections" "$(kv unexplained)"
printf "  %-34s %s\n" "bytes per client per second" "$bytes (in $(kv bytes_in_per_bot_per_s), out $(kv bytes_out_per_bot_per_s))"
printf "  %-34s %s\n" "server tick time p99" "$(awk -v u="${p99:-0}" 'BEGIN {printf "%.2f ms", u / 1000}')"
printf "  %-34s %s\n" "recording verified" "$(grep -q '^verified=1 ' <<<"$verified" && echo yes || echo NO)"
printf "  %-34s %s\n" "bot paths diverging from server" "${diverged:-?} of $(kv connected) (bit-exact comparison; ${by_interaction:-?} where other characters met them)"
printf "  %-34s %s\n" "  of them after a game command" "$by_server"
printf "  %-34s %s\n" "tag: passes of \"it\"" "$passes (tags_seen=$tags_seen, summed over the $connected bots)"
[ -z "$game_commands" ] || printf "  %-34s %s\n" "tag: game commands (server)" "$game_commands"
printf "  %-34s %s\n" "tag: last scores (seconds as it)" "$scores"
printf "  %-34s %s\n" "tag: standings at the end" "${standings:-none}"
echo
echo "plot of every path and the error over time: $out/paths.svg"
echo "3D report (open it in a browser: the world, every path on both sides, a timeline per bot): $out/report.html"
echo "recording: $out/server.rec (replay it: $bin/replay/foothold-replay run --replay $out/server.rec --out trace.csv)"
# Bit-exact, but where other characters met a bot (its client can only guess their moves) or the game
# gave a command (it learns of it from the server).
explained=${by_interaction:+$((by_interaction + by_server))}
{ [ "$diff_status" -eq 0 ] || { [ "${diverged:-x}" = "${explained:-y}" ] && [ "$diverged" -gt 0 ]; }; } && grep -q '^verified=1 ' <<<"$verified"
