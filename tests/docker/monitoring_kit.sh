#!/usr/bin/env bash
# The operator's kit (docker/monitoring/, #68), label quick-loopback: the alert rules pass
# `promtool check rules` and their unit tests `promtool test rules`; the dashboard's PromQL parses
# (promtool, as recording rules); the metric-name extraction passes its selftest; every metric the
# dashboard, the rules and the rules' tests name is in the /metrics of a real server playing a game
# (tag) with 4 bots, under the Agones SDK sidecar (local mode, on loopback) so that
# foothold_agones_state is exported too; and a made-up name planted in the dashboard is refused.
# Without the sidecar the names are checked against a server without Agones, foothold_agones_state is
# reported unchecked, and the test exits 77 (skipped) unless a name is missing.
#   tests/docker/monitoring_kit.sh FOOTHOLD_SERVER FOOTHOLD_BOT AGONES_SDK_SERVER KIT_DIR
set -euo pipefail
[ $# -eq 4 ] || { echo "usage: $0 FOOTHOLD_SERVER FOOTHOLD_BOT AGONES_SDK_SERVER KIT_DIR" >&2; exit 2; }
server_bin=$1 bot_bin=$2 sidecar_bin=$3 kit=$4
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/support/wait_ready.sh
source "$here/../support/wait_ready.sh"
# shellcheck source=tests/support/metrics_scrape.sh
source "$here/../support/metrics_scrape.sh"
work=$(mktemp -d)
bot_pid='' sidecar_pid=''
cleanup() {
  [ -z "$bot_pid" ] || kill "$bot_pid" 2>/dev/null || true
  stop_server
  [ -z "$sidecar_pid" ] || { kill "$sidecar_pid" 2>/dev/null || true; wait "$sidecar_pid" 2>/dev/null || true; }
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "monitoring_kit: FAIL $*" >&2; exit 1; }
command -v promtool >/dev/null || fail "promtool is not installed (./setup.sh --test installs Debian's prometheus package)"

promtool check rules "$kit/foothold-alerts.yml" || fail "promtool check rules"
# The tests name the rule file relative to themselves.
(cd "$kit" && promtool test rules foothold-alerts.test.yml) || fail "promtool test rules"
python3 "$here/monitoring_names.py" --selftest || fail "the name extraction's selftest"
# The dashboard's expressions parse: promtool reads them as recording rules.
{ python3 "$here/monitoring_names.py" --as-rules "$kit/foothold-dashboard.json" "$work/dashboard-rules.yml" &&
  promtool check rules "$work/dashboard-rules.yml"; } || fail "the dashboard's PromQL does not parse"

with_agones=
if [ -x "$sidecar_bin" ]; then
  sidecar_port=$(free_tcp_port)
  "$sidecar_bin" --local --address=127.0.0.1 --http-port "$sidecar_port" --grpc-port "$(free_tcp_port)" \
    --health-port "$(free_tcp_port)" >"$work/sidecar.log" 2>&1 &
  sidecar_pid=$!
  export AGONES_SDK_HTTP_PORT=$sidecar_port
  with_agones=1
fi
serve_bots_and_scrape "$server_bin" "$bot_bin" "$work" 4 --game tag || fail "the server did not start"
[ "${clients:-0}" -eq 4 ] || fail "foothold_clients is '$clients' with 4 bots playing: $(tail -3 "$work/bots.log")"
if [ -n "$with_agones" ]; then
  # The agent reports the state once the sidecar has answered its watch: scrape until it is there.
  for _ in $(seq 50); do
    grep -q '^foothold_agones_state{' <<<"$metrics" && break
    sleep 0.1
    metrics=$(http_get "$metrics_port" /metrics)
  done
  grep -q '^foothold_agones_state{' <<<"$metrics" || fail "no foothold_agones_state under the sidecar: $(tail -3 "$work/server.log")"
fi
[ "$(head -1 <<<"$metrics")" = 200 ] || fail "/metrics answered $(head -1 <<<"$metrics")"
tail -n +2 <<<"$metrics" >"$work/metrics.txt"
[ -n "$with_agones" ] || echo 'foothold_agones_state{state="unchecked"} 1' >>"$work/metrics.txt"

python3 "$here/monitoring_names.py" "$work/metrics.txt" "$kit/foothold-dashboard.json" "$kit/foothold-alerts.yml" \
  "$kit/foothold-alerts.test.yml" || fail "the kit names metrics the server does not export"
# The check can fail: a dashboard naming a metric the server does not export is refused, by name.
sed 's/foothold_inputs_late_total/foothold_inputs_made_up_total/' "$kit/foothold-dashboard.json" >"$work/planted.json"
set +e
out=$(python3 "$here/monitoring_names.py" "$work/metrics.txt" "$work/planted.json" "$kit/foothold-alerts.yml" \
        "$kit/foothold-alerts.test.yml" 2>&1); code=$?
set -e
{ [ $code -eq 1 ] && [[ $out == *"foothold_inputs_made_up_total is not in the server's /metrics"* ]]; } ||
  fail "a made-up metric in the dashboard was not refused (exit $code): $out"
wait "$bot_pid" || fail "the bots failed: $(tail -3 "$work/bots.log")"
bot_pid=
if [ -z "$with_agones" ]; then
  echo "monitoring_kit: SKIP: foothold_agones_state unchecked: no Agones SDK sidecar at $sidecar_bin"
  exit 77
fi
echo "monitoring_kit: ok"
