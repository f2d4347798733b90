# shellcheck shell=bash disable=SC2034,SC2154  # sets variables for its caller; address comes from start_server
# Sourced by the tests that scrape a real server's /metrics (tests/server/metrics_endpoint.sh,
# tests/docker/monitoring_kit.sh). Needs tests/support/wait_ready.sh sourced first for start_server.

# http_get PORT PATH: GET http://127.0.0.1:PORT/PATH; prints the status on the first line, the body after it.
http_get() { python3 - "$1" "$2" <<'PY'
import sys, urllib.request, urllib.error
try:
    r = urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}{sys.argv[2]}", timeout=5)
    print(r.status); print(r.read().decode(), end="")
except urllib.error.HTTPError as e:
    print(e.code); print(e.read().decode(), end="")
PY
}

# metric_value SERIES TEXT: the value of SERIES (its name and labels as the exposition writes them) in TEXT.
metric_value() { awk -v s="$1" '$1 == s {print $2}' <<<"$2"; }

# free_tcp_port: a TCP port on 127.0.0.1 that nothing listens on now.
free_tcp_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# serve_bots_and_scrape SERVER_BIN BOT_BIN DIR BOTS [SERVER_ARGS...]: start_server with /metrics on a
# free port (metrics_port), BOTS bots wandering for 6 s (bot_pid, their log DIR/bots.log), then scrapes
# until foothold_clients counts them all (8 s at most). Sets metrics (the status line, then the body)
# and clients; fails when the server does not start.
serve_bots_and_scrape() {
  local server=$1 bot=$2 dir=$3 bots=$4
  shift 4
  metrics_port=$(free_tcp_port)
  start_server "$server" "$dir" --metrics-address "127.0.0.1:$metrics_port" "$@" || return 1
  "$bot" --server "$address" --bots "$bots" --duration 6 --pattern wander --seed 3 >"$dir/bots.log" 2>&1 &
  bot_pid=$!
  clients=0
  for _ in $(seq 80); do
    metrics=$(http_get "$metrics_port" /metrics)
    clients=$(metric_value foothold_clients "$metrics")
    [ "${clients:-0}" -ge "$bots" ] && break
    sleep 0.1
  done
}
