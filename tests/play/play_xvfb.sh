#!/usr/bin/env bash
# PlayUnderXvfb: foothold-play, the playable client, runs a scripted walk against a real
# foothold-server on loopback inside a virtual X display, saves frames, and the frames are checked
# (tests/play/check_frames.cpp) to show the sky, the arena's floor and the local character, and to
# change as the character walks.
#
#   tests/play/play_xvfb.sh FOOTHOLD_SERVER FOOTHOLD_TOKEN FOOTHOLD_PLAY CHECK_FRAMES
#
# Exit codes: 0 pass; 1 fail (the reason on stderr, with the logs); 2 bad usage; 77 skipped, when
# xvfb-run or xauth is not installed (Debian: xvfb xauth).
# PLAY_XVFB_KEEP=DIR keeps the saved frames and logs in DIR (the work folder itself is removed).
set -euo pipefail
if [ $# -ne 4 ]; then
  echo "usage: $0 FOOTHOLD_SERVER FOOTHOLD_TOKEN FOOTHOLD_PLAY CHECK_FRAMES" >&2
  exit 2
fi
server_bin=$1 token_bin=$2 play_bin=$3 check_bin=$4
for tool in xvfb-run xauth; do
  command -v "$tool" >/dev/null || { echo "play_xvfb: skipped: $tool is not installed (apt-get install xvfb xauth)" >&2; exit 77; }
done
# shellcheck source=tests/support/wait_ready.sh
source "$(dirname "$0")/../support/wait_ready.sh"

work=$(mktemp -d)
server_pid=
cleanup() {
  stop_server
  if [ -n "${PLAY_XVFB_KEEP:-}" ]; then
    if mkdir -p "$PLAY_XVFB_KEEP"; then cp -r "$work"/. "$PLAY_XVFB_KEEP"/ || true; fi
  fi
  rm -rf "$work"
}
trap cleanup EXIT

fail() {
  echo "play_xvfb: FAIL $*" >&2
  for log in play.err play.out server.log; do
    [ -s "$work/$log" ] && { echo "--- $log (last 20 lines)" >&2; tail -n 20 "$work/$log" >&2; }
  done
  exit 1
}

# The backend's part: a private key for the server, then a token naming the address it listens at.
"$token_bin" keygen --out "$work/server.key" >/dev/null || fail "foothold-token keygen"
# Port 0: the server takes a free port and writes HOST:PORT to its ready file once listening.
start_server "$server_bin" "$work" --key-file "$work/server.key" --world arena || fail "foothold-server did not start"
"$token_bin" issue --key-file "$work/server.key" --server "$address" --client-id 1 --expires 300 \
  --out "$work/player.token" >/dev/null || fail "foothold-token issue"

# FRAMES MOVE_X MOVE_Z BUTTONS at 60 frames per second: ~2 s ahead (-Z), turn (+X), jump, crouch back.
cat >"$work/walk.txt" <<'SCRIPT'
# walk forward two seconds
120 0 -1 -
# turn right and keep going
40 1 0 -
# jump, and land
1 1 0 jump
44 1 0 -
# crouch-walk back toward +Z, then stand still
60 0 1 crouch
30 0 0 -
SCRIPT

status=0
timeout --kill-after=5 60 xvfb-run -a -s '-screen 0 1280x800x24' \
  "$play_bin" --token "$work/player.token" --record-frames "$work/frames" --script "$work/walk.txt" \
  --width 640 --height 400 >"$work/play.out" 2>"$work/play.err" || status=$?
[ "$status" -eq 0 ] || fail "foothold-play exited with $status (124: it took over 60 s)"

last=$(tail -n 1 "$work/play.out")
pattern='^frames=([0-9]+) saved=([0-9]+) connected=1 distance_m=([0-9]+\.[0-9][0-9])$'
[[ $last =~ $pattern ]] || fail "foothold-play's last line is '$last', not 'frames=N saved=K connected=1 distance_m=D'"
frames=${BASH_REMATCH[1]} saved=${BASH_REMATCH[2]} distance=${BASH_REMATCH[3]}
[ "$frames" -eq 295 ] || fail "the script has 295 frames; foothold-play ran $frames"
# A frame every 30 (the default) and the last: frames 30, 60, ..., 270 and 295.
[ "$saved" -eq 10 ] || fail "expected 10 saved frames, foothold-play reports $saved"
awk -v d="$distance" 'BEGIN { exit !(d > 1) }' || fail "the character moved $distance m; expected more than 1 m"
echo "play_xvfb: $last"

"$check_bin" "$work/frames" || fail "the saved frames do not show the game (see check_frames' messages above)"
echo "play_xvfb: ok"
