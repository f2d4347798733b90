#!/usr/bin/env bash
# foothold-server --metrics-address end to end (label quick-loopback): a server with 4 bots playing;
# /metrics counts them (clients, accepted handshakes, bytes both ways, the tick histogram) and passes
# `promtool check metrics` (Debian's prometheus package); /healthz and /readyz answer 200; a bad
# address is refused with exit 2 and its name; an address in use stops the server with exit 1.
#   tests/server/metrics_endpoint.sh FOOTHOLD_SERVER FOOTHOLD_BOT
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: $0 FOOTHOLD_SERVER FOOTHOLD_BOT" >&2; exit 2; }
server_bin=$1 bot_bin=$2
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/support/wait_ready.sh
source "$here/../support/wait_ready.sh"
# shellcheck source=tests/support/metrics_scrape.sh
source "$here/../support/metrics_scrape.sh"
work=$(mktemp -d)
bot_pid=
cleanup() {
  [ -z "$bot_pid" ] || kill "$bot_pid" 2>/dev/null || true
  stop_server
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "metrics_endpoint: FAIL $*" >&2; exit 1; }

# Bad usage: exit 2, naming the value.
set +e
out=$("$server_bin" --port 0 --metrics-address nonsense 2>&1); code=$?
set -e
[ $code -eq 2 ] || fail "--metrics-address nonsense exited $code: $out"
[[ $out == *"metrics_address: 'nonsense' is not HOST:PORT"* ]] || fail "the refusal does not name it: $out"

serve_bots_and_scrape "$server_bin" "$bot_bin" "$work" 4 || fail "the server did not start"
port=$metrics_port
[ "$(head -1 <<<"$metrics")" = 200 ] || fail "/metrics answered $(head -1 <<<"$metrics")"
[ "${clients:-0}" -eq 4 ] || fail "foothold_clients is '$clients' with 4 bots playing"
accepted=$(metric_value 'foothold_handshakes_total{outcome="accepted"}' "$metrics")
[ "${accepted:-0}" -eq 4 ] || fail "4 bots, $accepted accepted handshakes"
for series in foothold_bytes_in_total foothold_bytes_out_total foothold_packets_in_total foothold_tick_duration_seconds_count; do
  [ "$(metric_value "$series" "$metrics" | cut -d. -f1)" -gt 0 ] || fail "$series is not counting"
done
tail -n +2 <<<"$metrics" >"$work/metrics.txt"
if command -v promtool >/dev/null; then
  promtool check metrics <"$work/metrics.txt" || fail "promtool check metrics"
  echo "promtool check metrics: ok ($(grep -c '^# TYPE' "$work/metrics.txt") families)"
else
  fail "promtool is not installed (./setup.sh --test installs Debian's prometheus package)"
fi
health=$(http_get "$port" /healthz)
[ "$(head -1 <<<"$health")" = 200 ] || fail "/healthz: $health"
ready=$(http_get "$port" /readyz)
[ "$(head -1 <<<"$ready")" = 200 ] || fail "/readyz: $ready"
echo "healthz: $(tail -1 <<<"$health"); readyz: $(tail -1 <<<"$ready"); clients=$clients accepted=$accepted"

# The same address again: the second server cannot listen there and says so.
set +e
out=$("$server_bin" --port 0 --metrics-address "127.0.0.1:$port" 2>&1); code=$?
set -e
[ $code -eq 1 ] || fail "a second server on the metrics port exited $code"
[[ $out == *"--metrics-address 127.0.0.1:$port: cannot listen there"* ]] || fail "it does not say why: $out"
wait "$bot_pid" || fail "the bots failed: $(tail -3 "$work/bots.log")"
bot_pid=
echo "metrics_endpoint: ok"
