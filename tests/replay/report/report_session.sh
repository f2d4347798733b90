#!/usr/bin/env bash
# ReportOfAnImpairedSession: a real session on loopback (foothold-server recording, 4 bots with 10%
# loss, duplicates, reordering and jitter, writing their traces and input streams), the server's
# trace re-simulated from its recording, and `foothold-replay diff --html` of the server against a
# bot the network made the server correct. Then headless Chromium opens the report from file://
# with the network off (check_report.sh): no console error, a non-blank WebGL canvas, the scrubber
# moves the capsule, and the corrected bot's lane shows the correction at its parting tick.
#
#   tests/replay/report/report_session.sh FOOTHOLD_SERVER FOOTHOLD_BOT FOOTHOLD_REPLAY [KEEP_DIR]
#
# KEEP_DIR keeps the report (and a screenshot, report.png) there. Exit 77 when Chromium is missing.
set -euo pipefail
[ $# -ge 3 ] && [ $# -le 4 ] || { echo "usage: $0 FOOTHOLD_SERVER FOOTHOLD_BOT FOOTHOLD_REPLAY [KEEP_DIR]" >&2; exit 2; }
server_bin=$1 bot_bin=$2 replay_bin=$3 keep=${4:-}
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/support/wait_ready.sh
source "$here/../../support/wait_ready.sh"
command -v chromium >/dev/null || { echo "report_session: skipped: chromium is not installed" >&2; exit 77; }

work=$(mktemp -d)
server_pid=
cleanup() {
  stop_server
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "report_session: FAIL $*" >&2; exit 1; }

start_server "$server_bin" "$work" --record "$work/server.rec" || fail "foothold-server did not start"
timeout 60 "$bot_bin" --server "$address" --bots 4 --duration 6 --seed 5 --loss 0.1 --duplicate 0.02 --reorder 0.05 \
  --latency 30 --jitter 10 --trace-dir "$work/traces" --record "$work/inputs" >"$work/bots.log" 2>&1 ||
  { cat "$work/bots.log" >&2; fail "foothold-bot"; }
stop_server  # closes the recording
"$replay_bin" run --replay "$work/server.rec" --out "$work/server.csv" >/dev/null || fail "run --replay"

# The first bot whose trace parts from the server's: the network made the server correct it.
chosen=
for trace in "$work"/traces/bot-*.csv; do
  id=${trace##*/bot-}
  id=${id%.csv}
  out=$("$replay_bin" diff "$work/server.csv" "$trace" --inputs-a "$work/server.rec" --inputs-b "$work/inputs/bot-$id.rec" \
        --html "$work/report.html" || true)
  if grep -q "diverged=1" <<<"$out"; then
    chosen=$id
    break
  fi
done
[ -n "$chosen" ] || fail "no bot was corrected under 10% loss (the test needs one)"
grep -q "^report: $work/report.html" <<<"$out" || fail "diff --html did not say it wrote the report: $out"
tail -n 1 <<<"$out" | grep -q "^characters=" || fail "diff's last line is no longer its summary: $(tail -n 1 <<<"$out")"
size=$(stat -c %s "$work/report.html")
echo "report of bot $chosen against the server: $size bytes"
# The parting tick the page must show, from the diff's own table.
parting=$(awk -v id="$chosen" '$1 == id {print $3}' <<<"$out")
grep -q "\"id\":$chosen,\"parting_tick\":$parting," "$work/report.html" || fail "the report does not part bot $chosen at tick $parting"

shot=()
[ -z "$keep" ] || { mkdir -p "$keep"; shot=("$keep/report.png"); cp "$work/report.html" "$keep/"; }
bash "$here/check_report.sh" "$work/report.html" "${shot[@]}" || fail "check_report.sh"
echo "report_session: ok (bot $chosen parts at tick $parting)"
