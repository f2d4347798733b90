# Sourced by scripts that start foothold-server with --ready-file (demo, soak, load, cross-arch).
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
