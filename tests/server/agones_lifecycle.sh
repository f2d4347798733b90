#!/usr/bin/env bash
# foothold-server under Agones, end to end against the real SDK sidecar (v1.49.0, local mode) on
# loopback (label quick-loopback; exit 77, skipped, when the sidecar is not there):
#   1. the lifecycle: Ready after the server listens, health arriving, the players Counter's capacity
#      = --max-clients, an allocation through the sidecar's own /allocate, bots joining with tokens
#      for the GameServer's status address and port (a port of its own, forwarded to the server's as
#      a node forwards a Dynamic port to the container's: a token naming it is taken only because the
#      server learnt it from the GameServer), the Counter following them, idle shutdown once they
#      left, Shutdown, exit 0;
#   2. SIGTERM with bots playing and a recording: every bot told the server is going away, the
#      recording verifies, Shutdown, exit 0 within --drain-seconds; the sidecar in its conformance
#      mode (--test) with exactly the calls the server makes, and the calls counted from its log;
#   3. the sidecar missing: the server serves anyway, says it retries, and stops cleanly;
#   4. a hung tick (test-game-server --game hang: its game never returns from the first message):
#      health stops reaching the sidecar, /healthz answers 503, and the log says why;
#   5. the game ends the match (test-game-server --game end): the server drains, calls Shutdown and
#      exits 0, every bot told.
#   tests/server/agones_lifecycle.sh SERVER BOT TOKEN REPLAY SIDECAR TEST_GAME_SERVER
set -euo pipefail
[ $# -eq 6 ] || { echo "usage: $0 FOOTHOLD_SERVER FOOTHOLD_BOT FOOTHOLD_TOKEN FOOTHOLD_REPLAY AGONES_SDK_SERVER TEST_GAME_SERVER" >&2; exit 2; }
server_bin=$1 bot_bin=$2 token_bin=$3 replay_bin=$4 sidecar_bin=$5 games_bin=$6
if [ ! -x "$sidecar_bin" ]; then
  echo "agones_lifecycle: SKIP: the Agones SDK sidecar is not at $sidecar_bin (../shared/agones/ beside the repository)"
  exit 77
fi
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/support/wait_ready.sh
source "$here/../support/wait_ready.sh"
work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "agones_lifecycle: FAIL $*" >&2; exit 1; }
free_port() { python3 -c "import socket; s=socket.socket(socket.AF_INET, socket.$1); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])"; }
# A field of the GameServer record (state, players, capacity) from the sidecar on port $1.
field() { python3 - "$1" "$2" <<'PY'
import json, sys, urllib.request
try:
    gs = json.load(urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/gameserver", timeout=2))
except Exception:
    print(""); sys.exit(0)
st = gs.get("status", {})
c = (st.get("counters") or {}).get("players") or {}
print({"state": st.get("state", ""), "players": c.get("count", ""), "capacity": c.get("capacity", "")}[sys.argv[2]])
PY
}
# until_field PORT FIELD VALUE SECONDS: waits for the record's FIELD to be VALUE.
until_field() {
  local n=$(( $4 * 20 ))
  for _ in $(seq "$n"); do [ "$(field "$1" "$2")" = "$3" ] && return 0; sleep 0.05; done
  return 1
}
# The GameServer record the sidecar starts from: status address $1, port $2.
game_server() {
  cat <<EOF
apiVersion: agones.dev/v1
kind: GameServer
metadata:
  name: foothold-test
  labels: {mode: ctf}
  annotations: {map: arena}
spec:
  ports: [{name: game, containerPort: 7777, protocol: UDP}]
  counters:
    players: {count: 0, capacity: 1}
status:
  state: Scheduled
  address: $1
  ports: [{name: game, port: $2}]
  counters:
    players: {count: 0, capacity: 1}
EOF
}
# start_sidecar NAME ADDRESS PORT [ARGS...]: sets sidecar_port and sidecar_pid; its log is $work/NAME.log.
start_sidecar() {
  local name=$1 addr=$2 port=$3
  shift 3
  game_server "$addr" "$port" >"$work/$name.yaml"
  sidecar_port=$(free_port SOCK_STREAM)
  "$sidecar_bin" --local --address=127.0.0.1 --http-port "$sidecar_port" --grpc-port "$(free_port SOCK_STREAM)" \
    --health-port "$(free_port SOCK_STREAM)" -f "$work/$name.yaml" "$@" >"$work/$name.log" 2>&1 &
  sidecar_pid=$!
  pids+=("$sidecar_pid")
  for _ in $(seq 100); do [ -n "$(field "$sidecar_port" state)" ] && return 0; sleep 0.05; done
  fail "the sidecar did not come up: $(tail -3 "$work/$name.log")"
}
# forward FROM_PORT TO_PORT: relays UDP on 127.0.0.1 from one port to the other and back, a socket per
# sender, as a node forwards a GameServer's Dynamic port to its container's port. Sets forward_pid.
forward() {
  python3 - "$1" "$2" <<'PY' &
import select, socket, sys
front = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
front.bind(("127.0.0.1", int(sys.argv[1])))
to = ("127.0.0.1", int(sys.argv[2]))
by_peer, by_sock = {}, {}
while True:
    for s in select.select([front] + list(by_sock), [], [], 60)[0]:
        data, peer = s.recvfrom(4096)
        if s is front:
            if peer not in by_peer:
                b = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
                b.bind(("127.0.0.1", 0))
                by_peer[peer], by_sock[b] = b, peer
            by_peer[peer].sendto(data, to)
        else:
            front.sendto(data, by_sock[s])
PY
  forward_pid=$!
  pids+=("$forward_pid")
}
# terminate PID: SIGTERM, then waits; sets code (its exit status) and drain_ms (signal to exit).
terminate() {
  local t0
  t0=$(date +%s%N)
  kill -TERM "$1"
  set +e
  wait "$1"; code=$?
  set -e
  drain_ms=$(( ($(date +%s%N) - t0) / 1000000 ))
}
# await_exit PID SECONDS: waits up to SECONDS for the process to end by itself (SIGKILL after that,
# which the exit code then shows); sets code to its exit status.
await_exit() {
  local ticks=$(( $2 * 20 ))
  for _ in $(seq "$ticks"); do kill -0 "$1" 2>/dev/null || break; sleep 0.05; done
  kill -KILL "$1" 2>/dev/null || true
  set +e
  wait "$1"; code=$?
  set -e
}
# The set of SDK calls the sidecar's log shows, one name per line, sorted (what its --test mode keeps).
calls() { python3 - "$1" <<'PY'
import json, sys
names = {"Getting GameServer details": "gameserver", "Ready request has been received!": "ready",
         "Health Ping Received!": "health", "Connected to watch GameServer...": "watch",
         "Updating Counter": "updatecounter", "Getting Counter": "getcounter",
         "Shutdown request has been received!": "shutdown", "Allocate request has been received!": "allocate",
         "Setting label": "setlabel", "Setting annotation": "setannotation", "Reserve request has been received!": "reserve"}
quiet = {"Gameserver update received", "Reading GameServer configuration", "Health stream closed.",
         "error sending gameserver", "Sending watched GameServer!", "File has been changed!"}
seen = set()
for line in open(sys.argv[1]):
    try:
        r = json.loads(line)
    except ValueError:
        continue
    if "LocalSDKServer" not in r.get("source", ""):
        continue
    m = r.get("message", "")
    if m in quiet:
        continue
    seen.add(names.get(m, "unknown:" + m))
print("\n".join(sorted(seen)))
PY
}

"$token_bin" keygen --out "$work/key" >/dev/null

# --- 0. Bad values: exit 2, naming them ------------------------------------------------------------------
set +e
out=$(AGONES_SDK_HTTP_PORT=abc "$server_bin" --port 0 2>&1); code=$?
set -e
[ "$code" -eq 2 ] && [[ $out == *"AGONES_SDK_HTTP_PORT = 'abc' is not a port (1 to 65535)"* ]] || fail "a bad AGONES_SDK_HTTP_PORT: exit $code: $out"
set +e
out=$("$server_bin" --port 0 --agones-health-interval 0 --idle-shutdown -1 --drain-seconds 0 2>&1); code=$?
set -e
for why in "agones_health_interval = 0 is out of range [0.1, 60]" "idle_shutdown = -1 is out of range [0, 86400]" \
           "drain_seconds = 0 is out of range [1, 600]"; do
  [ "$code" -eq 2 ] && [[ $out == *"$why"* ]] || fail "bad Agones settings: exit $code, without '$why': $out"
done

# --- 1. The lifecycle ------------------------------------------------------------------------------
udp_port=$(free_port SOCK_DGRAM)
node_port=$(free_port SOCK_DGRAM)
forward "$node_port" "$udp_port"
start_sidecar life 127.0.0.1 "$node_port"
metrics_port=$(free_port SOCK_STREAM)
AGONES_SDK_HTTP_PORT=$sidecar_port "$server_bin" --bind 127.0.0.1 --port "$udp_port" --key-file "$work/key" --max-clients 8 \
  --idle-shutdown 2 --agones-health-interval 0.25 --metrics-address "127.0.0.1:$metrics_port" --ready-file "$work/ready1" \
  >"$work/server1.log" 2>&1 &
server_pid=$!
pids+=("$server_pid")
wait_ready "$work/ready1" "$server_pid" >/dev/null || fail "the server did not start: $(tail -5 "$work/server1.log")"
until_field "$sidecar_port" state Ready 5 || fail "the GameServer is not Ready: $(field "$sidecar_port" state)"
grep -q "listening on" "$work/server1.log" || fail "Ready came before the server listened"
grep -q "tokens may name 127.0.0.1:$node_port (the GameServer's address)" "$work/server1.log" ||
  fail "the server did not take the GameServer's address: $(grep agones "$work/server1.log")"
until_field "$sidecar_port" capacity 8 5 || fail "the players Counter's capacity is $(field "$sidecar_port" capacity), not --max-clients 8"
sleep 1
pings=$(grep -c "Health Ping Received" "$work/life.log" || true)
[ "$pings" -ge 2 ] || fail "$pings health pings in the first second at 0.25 s"
python3 -c "import sys, urllib.request; urllib.request.urlopen(urllib.request.Request(f'http://127.0.0.1:{sys.argv[1]}/allocate', b'{}'), timeout=2)" \
  "$sidecar_port" || fail "the sidecar's /allocate"
until_field "$sidecar_port" state Allocated 5 || fail "not Allocated"
state_metric=
for _ in $(seq 40); do
  state_metric=$(python3 -c "import sys, urllib.request; print(urllib.request.urlopen(f'http://127.0.0.1:{sys.argv[1]}/metrics', timeout=2).read().decode())" \
    "$metrics_port" | grep '^foothold_agones_state' || true)
  [ "$state_metric" = 'foothold_agones_state{state="Allocated"} 1' ] && break
  sleep 0.05
done
[ "$state_metric" = 'foothold_agones_state{state="Allocated"} 1' ] || fail "/metrics says '$state_metric' of the Agones state"
"$bot_bin" --server "127.0.0.1:$node_port" --key-file "$work/key" --bots 3 --duration 3 --seed 5 >"$work/bots1.log" 2>&1 &
bot_pid=$!
pids+=("$bot_pid")
until_field "$sidecar_port" players 3 5 || fail "the players Counter is $(field "$sidecar_port" players) with 3 bots playing"
wait "$bot_pid" || fail "the bots failed: $(tail -3 "$work/bots1.log")"
grep -q "connected=3 failed=0" "$work/bots1.log" || fail "the bots did not all connect: $(tail -2 "$work/bots1.log")"
until_field "$sidecar_port" players 0 5 || fail "the players Counter is $(field "$sidecar_port" players) after the bots left"
# Idle for 2 s: the match is over, Shutdown, exit 0.
await_exit "$server_pid" 10
[ "$code" -eq 0 ] || fail "the server exited $code after its idle shutdown: $(tail -5 "$work/server1.log")"
grep -q "the match is over: allocated, and no client for" "$work/server1.log" || fail "no idle shutdown in the log"
grep -q "allocated; labels: mode=ctf; annotations: map=arena" "$work/server1.log" || fail "the allocation's metadata is not in the log"
[ "$(field "$sidecar_port" state)" = Shutdown ] || fail "the GameServer is $(field "$sidecar_port" state), not Shutdown"
echo "lifecycle: Ready, $pings health pings in 1 s, Counter 0->3->0 (capacity 8), Allocated, idle shutdown, exit 0"

# --- 2. SIGTERM with bots, in the sidecar's conformance mode ------------------------------------------
expected=$(printf '%s\n' gameserver health ready shutdown updatecounter watch)
udp_port=$(free_port SOCK_DGRAM)
start_sidecar conformance 127.0.0.1 "$udp_port" "--test=$(paste -sd, <<<"$expected")" --timeout=60
conformance_pid=$sidecar_pid
AGONES_SDK_HTTP_PORT=$sidecar_port "$server_bin" --bind 127.0.0.1 --port "$udp_port" --key-file "$work/key" \
  --record "$work/drain.rec" --drain-seconds 5 --agones-health-interval 0.5 --ready-file "$work/ready2" >"$work/server2.log" 2>&1 &
server_pid=$!
pids+=("$server_pid")
wait_ready "$work/ready2" "$server_pid" >/dev/null || fail "the server did not start: $(tail -5 "$work/server2.log")"
"$bot_bin" --server "127.0.0.1:$udp_port" --key-file "$work/key" --bots 4 --duration 30 --seed 6 >"$work/bots2.log" 2>&1 &
bot_pid=$!
pids+=("$bot_pid")
until_field "$sidecar_port" players 4 5 || fail "the players Counter is $(field "$sidecar_port" players) with 4 bots playing"
sleep 0.5
terminate "$server_pid"
[ "$code" -eq 0 ] || fail "the server exited $code after SIGTERM: $(tail -5 "$work/server2.log")"
[ "$drain_ms" -lt 5000 ] || fail "the drain took $drain_ms ms, over --drain-seconds 5"
[ "$(field "$sidecar_port" state)" = Shutdown ] || fail "the GameServer is $(field "$sidecar_port" state) after the drain, not Shutdown"
wait "$bot_pid" || fail "the bots failed: $(tail -3 "$work/bots2.log")"
grep -q " ended=server_shutdown:4$" "$work/bots2.log" || fail "not every bot was told the server was going away: $(grep -o 'ended=.*' "$work/bots2.log")"
"$replay_bin" verify "$work/drain.rec" >"$work/verify.log" 2>&1 || fail "the recording does not verify: $(tail -3 "$work/verify.log")"
grep -q "mismatches=0" "$work/verify.log" || fail "the recording: $(tail -1 "$work/verify.log")"
kill -TERM "$conformance_pid"
set +e
wait "$conformance_pid"; conformance_code=$?
set -e
[ "$conformance_code" -eq 0 ] || fail "the sidecar's conformance mode exited $conformance_code: $(tail -3 "$work/conformance.log")"
seen=$(calls "$work/conformance.log")
[ "$seen" = "$expected" ] || fail "the server made the calls [$(paste -sd' ' <<<"$seen")], not [$(paste -sd' ' <<<"$expected")]"
echo "drain: SIGTERM to exit $drain_ms ms with 4 bots, every bot told (ended=server_shutdown:4), recording verified; calls: $(paste -sd' ' <<<"$seen")"

# --- 3. No sidecar --------------------------------------------------------------------------------------
AGONES_SDK_HTTP_PORT=$(free_port SOCK_STREAM) "$server_bin" --port 0 --drain-seconds 2 --ready-file "$work/ready3" \
  >"$work/server3.log" 2>&1 &
server_pid=$!
pids+=("$server_pid")
address=$(wait_ready "$work/ready3" "$server_pid") || fail "without a sidecar the server did not start: $(tail -5 "$work/server3.log")"
"$bot_bin" --server "$address" --bots 2 --duration 1.5 --seed 7 >"$work/bots3.log" 2>&1 || fail "bots against a server without its sidecar: $(tail -2 "$work/bots3.log")"
grep -q "did not take Ready" "$work/server3.log" || fail "the server does not say it cannot reach the sidecar"
grep -q "retrying in" "$work/server3.log" || fail "the server does not say it retries"
terminate "$server_pid"
[ "$code" -eq 0 ] || fail "without a sidecar the server exited $code: $(tail -5 "$work/server3.log")"
[ "$drain_ms" -lt 2500 ] || fail "without a sidecar the drain took $drain_ms ms, over --drain-seconds 2"
echo "no sidecar: served 2 bots, retried Ready with back-off, drained in $drain_ms ms, exit 0"

# --- 4. A hung tick fails health ------------------------------------------------------------------------
start_sidecar stall 127.0.0.1 7777
metrics_port=$(free_port SOCK_STREAM)
AGONES_SDK_HTTP_PORT=$sidecar_port "$games_bin" --game hang --port 0 --agones-health-interval 0.2 --metrics-address "127.0.0.1:$metrics_port" \
  --ready-file "$work/ready4" >"$work/server4.log" 2>&1 &
server_pid=$!
pids+=("$server_pid")
address=$(wait_ready "$work/ready4" "$server_pid") || fail "test-game-server did not start: $(tail -5 "$work/server4.log")"
until_field "$sidecar_port" state Ready 5 || fail "test-game-server's GameServer is not Ready"
sleep 0.6
before=$(grep -c "Health Ping Received" "$work/stall.log" || true)
[ "$before" -ge 2 ] || fail "$before health pings before the stall"
# A bot's first message hangs the tick loop for good.
"$bot_bin" --server "$address" --bots 1 --duration 2 --messages-per-second 10 --seed 8 >"$work/bots4.log" 2>&1 || true
sleep 1.5  # past the stall threshold (a second at 60 Hz), and a health interval more
at_stall=$(grep -c "Health Ping Received" "$work/stall.log" || true)
sleep 1.5  # seven health intervals
after=$(grep -c "Health Ping Received" "$work/stall.log" || true)
[ "$after" -eq "$at_stall" ] || fail "health kept arriving with the tick hung: $at_stall pings, then $after"
healthz=$(python3 -c "
import sys, urllib.request, urllib.error
try: r = urllib.request.urlopen(f'http://127.0.0.1:{sys.argv[1]}/healthz', timeout=2); print(r.status, r.read().decode())
except urllib.error.HTTPError as e: print(e.code, e.read().decode())" "$metrics_port")
[[ $healthz == "503 stalled: no tick for"* ]] || fail "/healthz with the tick hung: $healthz"
grep -q "the tick loop has stalled" "$work/server4.log" || fail "the log does not say health is withheld: $(grep agones "$work/server4.log" | tail -3)"
kill -KILL "$server_pid"
wait "$server_pid" 2>/dev/null || true
echo "hung tick: health stopped at $at_stall pings (still $after 1.5 s later); /healthz: $healthz"

# --- 5. The game ends the match --------------------------------------------------------------------------
start_sidecar end 127.0.0.1 7777
AGONES_SDK_HTTP_PORT=$sidecar_port "$games_bin" --game end --port 0 --idle-shutdown 0 --ready-file "$work/ready5" \
  >"$work/server5.log" 2>&1 &
server_pid=$!
pids+=("$server_pid")
address=$(wait_ready "$work/ready5" "$server_pid") || fail "test-game-server did not start: $(tail -5 "$work/server5.log")"
until_field "$sidecar_port" state Ready 5 || fail "test-game-server's GameServer is not Ready"
"$bot_bin" --server "$address" --bots 3 --duration 20 --seed 9 >"$work/bots5.log" 2>&1 &
bot_pid=$!
pids+=("$bot_pid")
until_field "$sidecar_port" players 3 5 || fail "the players Counter is $(field "$sidecar_port" players) with 3 bots"
# One message from a fourth bot ends the match.
"$bot_bin" --server "$address" --bots 1 --duration 2 --messages-per-second 10 --seed 10 >"$work/bots5b.log" 2>&1 || true
await_exit "$server_pid" 5
[ "$code" -eq 0 ] || fail "after end_match the server exited $code: $(tail -5 "$work/server5.log")"
grep -q "the game ended the match: stopping" "$work/server5.log" || fail "the log does not say the game ended the match"
[ "$(field "$sidecar_port" state)" = Shutdown ] || fail "after end_match the GameServer is $(field "$sidecar_port" state), not Shutdown"
wait "$bot_pid" || fail "the bots failed: $(tail -3 "$work/bots5.log")"
grep -q " ended=server_shutdown:3$" "$work/bots5.log" || fail "not every bot was told: $(grep -o 'ended=.*' "$work/bots5.log")"
echo "end_match: drained, Shutdown, exit 0, every bot told (ended=server_shutdown:3)"
