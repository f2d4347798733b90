# Sourced by scripts that start foothold-server with --ready-file (demo, soak, load, cross-arch, and the
# install, play and report tests).
#   address=$(wait_ready READY_FILE SERVER_PID) || ...
# Prints the address the server wrote once listening; fails when the server exits first or does not
# write it within 5 seconds.
wait_ready() {
  local file=$1 pid=$2 address=
  for _ in $(seq 100); do
    address=$(cat "$file" 2>/dev/null || true)
    [ -n "$address" ] && { echo "$address"; return 0; }
    kill -0 "$pid" 2>/dev/null || return 1
    sleep 0.05
  done
  return 1
}

# start_server SERVER_BIN DIR [ARGS...]: foothold-server on 127.0.0.1 (port 0: a free one) in the
# background, with its ready file DIR/ready and its log DIR/server.log. Sets server_pid and address;
# fails, with the log on stderr, when the server does not come up. Pair it with stop_server.
start_server() {
  local bin=$1 dir=$2
  shift 2
  "$bin" --bind 127.0.0.1 --port 0 --ready-file "$dir/ready" "$@" >"$dir/server.log" 2>&1 &
  server_pid=$!
  address=$(wait_ready "$dir/ready" "$server_pid") || { cat "$dir/server.log" >&2; return 1; }
}

# stop_server: SIGTERM to the server start_server started (when there is one), and waits for it.
stop_server() {
  [ -z "${server_pid:-}" ] || { kill -TERM "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; }
  server_pid=
}
