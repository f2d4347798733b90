#!/usr/bin/env bash
# Load tool (a measurement, not a test): one foothold-server on loopback and foothold-bot processes
# against it, for each bot count. Prints, per row: the server's tick time p50/p99 (wall clock; the
# p99 is the worst of the steady-state windows), the CPU time per tick of its tick thread and of its
# sender thread, bytes per client per second both ways, and what the bots saw. Then the whole server
# process's CPU per client per tick over the middle half of the play (from /proc: user and system
# time, the system's share being the kernel's send and receive calls), its resident memory with no
# client and at its peak, and the difference per client.
#
#   tests/load/server_load.sh [BOTS...]        (default: 1 100 500 1000)
#   DURATION=20 tests/load/server_load.sh 1000  (seconds of play per row; default 20)
#   SERVER_ARGS="--snapshot-rate 30" tests/load/server_load.sh 800   (more flags for the server)
#   BOT_ARGS="--frame-rate 0" tests/load/server_load.sh 800           (more flags for the bots)
#   BOT_ARGS="--one-socket" tests/load/server_load.sh 500   (the bots on one socket, batched calls)
#
# --one-socket puts every bot on one socket (each from its own loopback address, 64 datagrams per
# system call): the server's system time per client-tick falls by about a tenth and the bots' round
# trip halves. It is not the default, because a fleet that has no CPU to spare then falls behind on
# its updates instead of on its receiving: it acknowledges less often, and the server holds more
# snapshot history per client (600 bots: about 65 kB per client against 50).
#
# A crowd the bots cannot drive at 60 Hz on a small machine: both at a lower tick rate, from one
# settings file (the figures per client-tick use the rate the server says it runs at):
#   echo 'tick_rate = 20' > /tmp/20hz.toml
#   SERVER_ARGS="--settings /tmp/20hz.toml" BOT_ARGS="--settings /tmp/20hz.toml" tests/load/server_load.sh 1000
#
# Uses the Release build (./build.sh release). Steady-state figures only: the first and last stats
# windows (joining, leaving) are left out.
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=build/release
[ -x "$bin/server/foothold-server" ] && [ -x "$bin/bots/foothold-bot" ] || { echo "server_load: build first: ./build.sh release" >&2; exit 2; }
counts=("$@")
[ ${#counts[@]} -gt 0 ] || counts=(1 100 500 1000)
duration=${DURATION:-20}
[[ "$duration" =~ ^[0-9]+([.][0-9]+)?$ ]] && awk -v d="$duration" 'BEGIN {exit !(d > 0)}' ||
  { echo "server_load: DURATION must be a number of seconds above 0, not '$duration'" >&2; exit 2; }
for n in "${counts[@]}"; do
  [[ "$n" =~ ^[1-9][0-9]*$ ]] || { echo "server_load: a bot count must be a whole number above 0, not '$n'" >&2; exit 2; }
done
work=$(mktemp -d)
server_pid=
bots_pid=
cleanup() {
  [ -n "$bots_pid" ] && kill "$bots_pid" 2>/dev/null || true
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

read -r -a server_args <<<"${SERVER_ARGS:-}"
read -r -a bot_args <<<"${BOT_ARGS:-}"
hz=$(getconf CLK_TCK)
# Waits for the bots' process $1 (the row of $2 bots); exit 2 with their log when it refused its
# flags (foothold-bot's bad usage: a bad BOT_ARGS).
refused_bots() {
  local rc=0
  wait "$1" || rc=$?
  [ "$rc" = 2 ] || return 0
  bots_pid=
  echo "server_load: the bots refused their flags (BOT_ARGS='${BOT_ARGS:-}'); their log:" >&2
  cat "$work/bots-$2.log" >&2
  exit 2
}
# CPU seconds (user, system) of process $1 so far, in clock ticks.
cpu_of() { awk '{print $14, $15}' "/proc/$1/stat"; }
# A memory line of /proc/$1/status (VmRSS, VmHWM), in kB.
mem_of() { awk -v k="$2:" '$1 == k {print $2}' "/proc/$1/status"; }
header=(bots connected tick_p50_ms tick_p99_ms tick_cpu_ms send_cpu_ms out_B_per_client_s in_B_per_client_s corrections
  unexplained rtt_p50_ms user_us_per_client_tick sys_us_per_client_tick rss_idle_MB rss_peak_MB kB_per_client)
row() { printf "%6s %9s %12s %12s %12s %12s %18s %17s %11s %11s %10s %23s %22s %12s %12s %13s\n" "$@"; }
row "${header[@]}"
for n in "${counts[@]}"; do
  port=$((20000 + RANDOM % 20000))
  "$bin/server/foothold-server" --bind 127.0.0.1 --port "$port" --stats-interval 2 "${server_args[@]}" >"$work/server-$n.log" 2>&1 &
  server_pid=$!
  for _ in $(seq 50); do "$bin/bots/foothold-bot" --probe "127.0.0.1:$port" >/dev/null 2>&1 && break; sleep 0.1; done
  if ! kill -0 "$server_pid" 2>/dev/null; then
    echo "server_load: the server did not start (SERVER_ARGS='${SERVER_ARGS:-}'); its log:" >&2
    cat "$work/server-$n.log" >&2
    server_pid=
    exit 2
  fi
  idle_kb=$(mem_of "$server_pid" VmRSS)
  "$bin/bots/foothold-bot" --server "127.0.0.1:$port" --bots "$n" --duration "$duration" --pattern wander --seed 1 \
    "${bot_args[@]}" >"$work/bots-$n.log" 2>&1 &
  bots_pid=$!
  # Bots that refuse their flags stop at once: said now, not after the play's length.
  sleep 0.5
  kill -0 "$bots_pid" 2>/dev/null || refused_bots "$bots_pid" "$n"
  # The middle half of the play: after the joins, before the leaves.
  sleep "$(awk -v d="$duration" 'BEGIN {print d / 4}')"
  read -r u0 s0 < <(cpu_of "$server_pid")
  t0=$(date +%s%N)
  sleep "$(awk -v d="$duration" 'BEGIN {print d / 2}')"
  read -r u1 s1 < <(cpu_of "$server_pid")
  t1=$(date +%s%N)
  refused_bots "$bots_pid" "$n"
  bots_pid=
  peak_kb=$(mem_of "$server_pid" VmHWM)
  kill -INT "$server_pid"
  wait "$server_pid" || true
  server_pid=
  # Steady-state windows: every stats line with all clients present, but the first one.
  grep "stats: clients=$n " "$work/server-$n.log" | tail -n +2 >"$work/steady-$n" || true
  if [ ! -s "$work/steady-$n" ]; then
    echo "server_load: no steady state for $n bots (see below)" >&2
    tail -n 5 "$work/server-$n.log" "$work/bots-$n.log" >&2
    continue
  fi
  field() { sed -n "s/.* $1=\([0-9.]*\).*/\1/p" "$2"; }
  p50=$(field tick_p50_us "$work/steady-$n" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]/1000}')
  p99=$(field tick_p99_us "$work/steady-$n" | sort -n | tail -1 | awk '{print $1/1000}')
  cpu=$(field tick_cpu_us "$work/steady-$n" | awk '{s+=$1} END {printf "%.2f", s/NR/1000}')
  send=$(field send_cpu_us "$work/steady-$n" | awk '{s+=$1} END {printf "%.2f", s/NR/1000}')
  out=$(field bytes_out_per_s "$work/steady-$n" | awk -v n="$n" '{s+=$1} END {printf "%.0f", s/NR/n}')
  inb=$(field bytes_in_per_s "$work/steady-$n" | awk -v n="$n" '{s+=$1} END {printf "%.0f", s/NR/n}')
  last=$(tail -1 "$work/bots-$n.log")
  kv() { sed -n "s/.*\b$1=\([0-9.]*\).*/\1/p" <<<"$last"; }
  # Per client per tick: CPU microseconds over (seconds x ticks per second x clients), at the tick
  # rate the server says it runs at when it starts ("..., 60 Hz, ...").
  rate=$(sed -n 's/.* \([0-9][0-9]*\) Hz,.*/\1/p' "$work/server-$n.log" | head -1)
  per() { awk -v c="$1" -v hz="$hz" -v t="$(( t1 - t0 ))" -v n="$n" -v r="${rate:-60}" 'BEGIN {printf "%.2f", c / hz * 1e6 / (t / 1e9 * r) / n}'; }
  row "$n" "$(kv connected)" "$p50" "$p99" "$cpu" "$send" "$out" "$inb" "$(kv corrections)" "$(kv unexplained)" "$(kv rtt_ms_p50)" \
    "$(per $(( u1 - u0 )))" "$(per $(( s1 - s0 )))" "$(awk -v k="$idle_kb" 'BEGIN {printf "%.1f", k / 1024}')" \
    "$(awk -v k="$peak_kb" 'BEGIN {printf "%.1f", k / 1024}')" "$(awk -v a="$idle_kb" -v b="$peak_kb" -v n="$n" 'BEGIN {printf "%.1f", (b - a) / n}')"
done
