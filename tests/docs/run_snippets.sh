#!/usr/bin/env bash
# Runs the documentation's shell blocks as a reader would type them, so that they keep working:
#   run_snippets.sh SOURCE_DIR FOOTHOLD_TOKEN FOOTHOLD_SERVER FOOTHOLD_BOT FOOTHOLD_REPLAY
# The blocks: every ```sh (or bash, shell) block of the README's "Quick start" section, and every one
# of docs/getting-started.md. Each document's blocks run in order, in one bash (so a server started
# in one block is stopped in a later one, as in a reader's terminal), with -e and pipefail, in an
# empty temporary folder, with the four programs given first on PATH under their own names.
# Loopback only: the documents start their server on 127.0.0.1 port 7777, which is replaced by a
# free port, so that runs side by side do not collide. Each document gets at most 120 s; whatever it
# left running is stopped (its process group), and the folder removed.
# Exit 0 when every block ran, 1 when a command failed, a document has no block, or time ran out.
set -euo pipefail
[ $# -eq 5 ] || { echo "usage: $0 SOURCE_DIR FOOTHOLD_TOKEN FOOTHOLD_SERVER FOOTHOLD_BOT FOOTHOLD_REPLAY" >&2; exit 2; }
src=$1
shift
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/bin"
for program in "$@"; do
  [ -x "$program" ] || { echo "run_snippets: $program is not an executable" >&2; exit 2; }
  ln -s "$(cd "$(dirname "$program")" && pwd)/$(basename "$program")" "$work/bin/$(basename "$program" .exe)"
done
limit=120

# The shell blocks of FILE (from its heading SECTION to the next heading of that level, or all of
# it when SECTION is empty), as one script.
blocks() {
  local file=$1 section=$2
  awk -v section="$section" '
    BEGIN { inside = (section == "") }
    section != "" && /^## / { inside = ($0 == "## " section) }
    inside && !code && /^```(sh|bash|shell)$/ { code = 1; blocks++; print "# --- block " blocks; next }
    code && /^```$/ { code = 0; next }
    code && inside { print }
  ' "$file"
}

free_port() {
  python3 -c 'import socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

failed=0
run() {  # run NAME FILE SECTION
  local name=$1 file=$2 section=$3
  local dir=$work/run-$(basename "$file" .md)
  mkdir "$dir"
  local text
  text=$(blocks "$file" "$section")
  local count
  count=$(grep -c '^# --- block ' <<<"$text" || true)
  if [ "$count" -eq 0 ]; then
    echo "run_snippets: $name has no shell block" >&2
    failed=1
    return
  fi
  local port
  port=$(free_port)
  { echo 'set -e -o pipefail'; sed "s/\b7777\b/$port/g" <<<"$text"; } >"$dir/snippets.sh"
  # timeout runs in a process group of its own, which the snippets' background jobs share: once
  # it returns, whatever they left running is stopped with the group.
  local status=0
  (cd "$dir" && PATH="$work/bin:$PATH" exec timeout -k 5 "$limit" bash snippets.sh >"$dir/log" 2>&1) &
  local pid=$!
  wait "$pid" || status=$?
  kill -TERM -- "-$pid" 2>/dev/null || true
  if [ "$status" -ne 0 ]; then
    [ "$status" -ne 124 ] || echo "run_snippets: $name did not finish within $limit s" >&2
    echo "run_snippets: $name failed (exit $status); its commands, as run:" >&2
    cat -n "$dir/snippets.sh" >&2
    echo "run_snippets: the last of its output:" >&2
    tail -30 "$dir/log" >&2
    failed=1
    return
  fi
  echo "run_snippets: $name: $count block(s), every command succeeded"
}

run "README.md, Quick start" "$src/README.md" "Quick start"
run "docs/getting-started.md" "$src/docs/getting-started.md" ""
exit "$failed"
