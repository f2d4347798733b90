#!/usr/bin/env bash
# Determinism across operating systems: the Windows build (MinGW-w64, run under Wine) against this
# machine's Linux build, byte for byte, and the Windows client against the Linux server:
#   1. foothold-replay.exe run: every script of the cross-arch test (tours, a stress walk, jumps,
#      crouching, several characters at once) on every world the tests use (the arena, the OBJ and
#      glTF corpus, movers included, a terrain and a tilted crevice needing all 17 digits, hard
#      settings): hashes and traces identical to the Linux runner's;
#   2. the scenario suite (shared_tests.exe with FOOTHOLD_TRACE_DIR): every test passes on Windows
#      and every scenario trace is identical;
#   3. a recording the Linux server made of Linux bots verifies under foothold-replay.exe verify;
#   4. foothold-bot.exe --bots 8 against the Linux server for 20 s: all connect, unexplained=0; the
#      server's recording verifies on Linux and on Windows, and foothold-replay diff of it against
#      each Windows bot's path finds nothing but interactions;
#   5. c_client.exe walks more than 5 m against the Linux server with a token foothold-token minted;
#   6. foothold-client.dll exports exactly what libfoothold-client.so exports, and it and the
#      programs import Windows' own DLLs only; the zip holds the DLL, both import libraries, the
#      header, the licences and the README.
#
#   cross_os.sh LINUX_BUILD WINDOWS_BUILD   (LINUX_BUILD: server, bots, replay, token, shared_tests and
#                                            the self-contained libfoothold-client.so of this machine)
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: $0 LINUX_BUILD WINDOWS_BUILD" >&2; exit 2; }
host=$(cd "$1" && pwd) win=$(cd "$2" && pwd)
src=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/support/wait_ready.sh
source "$src/tests/support/wait_ready.sh"
# shellcheck source=tests/determinism/cross_inputs.sh
source "$src/tests/determinism/cross_inputs.sh"
wine=/usr/lib/wine/wine64
[ -x "$wine" ] || { echo "cross_os: $wine is missing (./setup.sh --test installs wine64)" >&2; exit 2; }
command -v x86_64-w64-mingw32-objdump >/dev/null || { echo "cross_os: x86_64-w64-mingw32-objdump is missing (./setup.sh --test)" >&2; exit 2; }
for b in "$host/replay/foothold-replay" "$host/server/foothold-server" "$host/server/foothold-token" "$host/bots/foothold-bot" \
         "$host/tests/shared_tests" "$win/replay/foothold-replay.exe" "$win/bots/foothold-bot.exe" \
         "$win/examples/c_client.exe" "$win/tests/windows/shared_tests.exe" "$win/client/foothold-client.dll"; do
  [ -f "$b" ] || { echo "cross_os: $b is not built (./build.sh windows and the Linux build)" >&2; exit 2; }
done
host_replay=("$host/replay/foothold-replay")
win_replay=("$wine" "$win/replay/foothold-replay.exe")

work=$(mktemp -d)
server_pid=
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null || true
  WINEPREFIX="$work/wine" /usr/lib/wine/wineserver -k 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "cross_os: FAILED: $*" >&2; exit 1; }

# A Wine prefix of this run's own (made in a few seconds), quiet, with no Mono or Gecko to offer.
export WINEPREFIX="$work/wine" WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
# The DLL beside c_client.exe, as a game ships it.
cp "$win/client/foothold-client.dll" "$win/examples/"
"$wine" "$win/replay/foothold-replay.exe" --version >"$work/wine-start.log" 2>&1 ||
  fail "foothold-replay.exe does not start under Wine: $(cat "$work/wine-start.log")"
echo "under Wine: $(grep -v "^wine: " "$work/wine-start.log" | tr -d "\r" | head -1)"

# Generated worlds, settings and a tour: the cross-arch test's (tests/determinism/cross_inputs.sh).
write_cross_inputs "$work"
printf '30 0 0 crouch\n60 1 0 crouch\n20 0.5 0.5 jump,crouch\n40 -1 0 -\n30 0 1 crouch\n40 0 -1 jump\n' >"$work/crouch.txt"
awk 'BEGIN { srand(11); for (i = 0; i < 150; i++) printf "%d %.3f %.3f %s\n", 5 + int(rand() * 30), 2 * rand() - 1, 2 * rand() - 1, (rand() < 0.2 ? "jump" : (rand() < 0.2 ? "crouch" : "-")) }' \
  >"$work/stress.txt"

# 1. Hashes and traces.
runs=0 rows=0
compare_run() {  # compare_run NAME WORLD SCRIPT SETTINGS SPAWN...
  local name=$1 world=$2 script=$3 settings=$4
  shift 4
  local extra=()
  [ -n "$settings" ] && extra=(--settings "$settings")
  local spawn
  for spawn in "$@"; do extra+=(--spawn "$spawn"); done
  "${host_replay[@]}" run --world "$world" --inputs "$script" --out "$work/$name.linux.csv" "${extra[@]}" \
    >"$work/$name.linux.log" 2>&1 || fail "$name: the Linux run failed: $(cat "$work/$name.linux.log")"
  "${win_replay[@]}" run --world "$world" --inputs "$script" --out "$work/$name.win.csv" "${extra[@]}" \
    >"$work/$name.win.log" 2>&1 || fail "$name: the Windows run failed: $(cat "$work/$name.win.log")"
  local hl hw
  hl=$(grep -E '^(world|settings)' "$work/$name.linux.log")
  hw=$(grep -E '^(world|settings)' "$work/$name.win.log" | tr -d '\r')
  [ -n "$hl" ] && [ "$hl" = "$hw" ] || fail "$name: hashes differ: Linux '$hl', Windows '$hw'"
  cmp -s "$work/$name.linux.csv" "$work/$name.win.csv" || {
    diff "$work/$name.linux.csv" "$work/$name.win.csv" | head -4 >&2
    fail "$name: traces differ"
  }
  runs=$((runs + 1)) rows=$((rows + $(wc -l <"$work/$name.linux.csv") - 1))
}
for script in tour crouch stress; do
  compare_run "arena-$script" arena "$work/$script.txt" "" 0,2,0
  compare_run "arena-$script-three" arena "$work/$script.txt" "" 0,2,0 1.5,2,0.5 -1.2,2,1
  compare_run "terrain-$script" "$work/terrain.obj" "$work/$script.txt" "" 0,3,0
  compare_run "crevice-$script" "$work/crevice.obj" "$work/$script.txt" "" 0.3,5,0.2
done
for world in "$src"/tests/fuzz/corpus/obj/*.obj "$src"/tests/fuzz/corpus/gltf/*.gl[bt]*; do
  compare_run "corpus-$(basename "$world")" "$world" "$work/tour.txt" "" 0,3,0 1,3,1
done
for toml in "$src"/tests/fuzz/corpus/settings/defaults.toml "$src"/tests/fuzz/corpus/settings/small.toml "$work/hard.toml"; do
  compare_run "terrain-$(basename "$toml" .toml)" "$work/terrain.obj" "$work/stress.txt" "$toml" 0,3,0
done
echo "foothold-replay run: $runs scripts, $rows trace rows, identical on Windows"

# 2. The scenario suite.
mkdir -p "$work/scn-linux" "$work/scn-win"
FOOTHOLD_TRACE_DIR="$work/scn-linux" "$host/tests/shared_tests" --gtest_brief=1 >"$work/scn-linux.log" 2>&1 ||
  fail "the Linux shared_tests failed: $(tail -5 "$work/scn-linux.log")"
(cd "$work" && FOOTHOLD_TRACE_DIR="scn-win" "$wine" "$win/tests/windows/shared_tests.exe" --gtest_brief=1 >"$work/scn-win.log" 2>&1) ||
  fail "shared_tests.exe failed under Wine: $(grep -E -A8 "Failure" "$work/scn-win.log" | head -40)"
count=$(find "$work/scn-linux" -name '*.csv' | wc -l)
[ "$count" -gt 20 ] || fail "only $count scenario traces were written"
diff -rq "$work/scn-linux" "$work/scn-win" >&2 || fail "scenario traces differ"
echo "scenario suite: $count traces identical, and every test passes on Windows ($(grep -c '' "$work/scn-win.log") lines of output)"

# 3. A Linux session's recording verifies on Windows.
start_server() {  # start_server RECORDING
  "$host/server/foothold-server" --bind 127.0.0.1 --port 0 --ready-file "$work/ready" --world "$work/terrain.obj" --record "$1" \
    >"$work/server.log" 2>&1 &
  server_pid=$!
  address=$(wait_ready "$work/ready" "$server_pid") || fail "the server did not start: $(cat "$work/server.log")"
  rm -f "$work/ready"
}
stop_server() {
  kill -TERM "$server_pid"
  wait "$server_pid" || fail "the server did not stop cleanly: $(tail -3 "$work/server.log")"
  server_pid=
}
start_server "$work/linux.rec"
"$host/bots/foothold-bot" --server "$address" --world "$work/terrain.obj" --bots 4 --duration 3 --seed 3 >"$work/linux-bots.log" 2>&1 ||
  fail "Linux bots: $(tail -3 "$work/linux-bots.log")"
stop_server
"${win_replay[@]}" verify "$work/linux.rec" --world "$work/terrain.obj" >"$work/verify-linux-rec.log" 2>&1 ||
  fail "the Linux recording does not verify on Windows: $(tail -3 "$work/verify-linux-rec.log")"
echo "Linux recording on Windows: $(tail -1 "$work/verify-linux-rec.log" | tr -d '\r')"

# 4. Windows bots against the Linux server.
start_server "$work/windows.rec"
"$wine" "$win/bots/foothold-bot.exe" --server "$address" --world "$work/terrain.obj" --bots 8 --duration 20 --seed 5 \
  --connect-timeout 10 --trace-dir "$work/win-traces" --record "$work/win-recs" >"$work/win-bots.log" 2>&1 ||
  fail "foothold-bot.exe: $(tail -3 "$work/win-bots.log")"
stop_server
summary=$(tail -1 "$work/win-bots.log" | tr -d '\r')
echo "foothold-bot.exe: $summary"
grep -q ' connected=8 ' <<<"$summary" || fail "the Windows bots did not all connect: $summary"
grep -q ' unexplained=0 ' <<<"$summary" || fail "the Windows bots saw unexplained corrections: $summary"
"${host_replay[@]}" verify "$work/windows.rec" --world "$work/terrain.obj" >"$work/verify-win-rec.log" 2>&1 ||
  fail "the Windows bots' session does not verify on Linux: $(tail -3 "$work/verify-win-rec.log")"
"${win_replay[@]}" verify "$work/windows.rec" --world "$work/terrain.obj" >"$work/verify-win-rec-win.log" 2>&1 ||
  fail "the Windows bots' session does not verify on Windows: $(tail -3 "$work/verify-win-rec-win.log")"
echo "Windows bots' session: $(tail -1 "$work/verify-win-rec.log") on Linux, and on Windows"
"${host_replay[@]}" run --replay "$work/windows.rec" --world "$work/terrain.obj" --out "$work/server.csv" >/dev/null
exact=0 interactions=0
for id in 1 2 3 4 5 6 7 8; do
  d=$("${host_replay[@]}" diff "$work/server.csv" "$work/win-traces/bot-$id.csv" --inputs-a "$work/windows.rec" \
      --inputs-b "$work/win-recs/bot-$id.rec" 2>&1) && status=0 || status=$?
  if [ "$status" -eq 0 ] && grep -q 'diverged=0 ' <<<"$d"; then
    exact=$((exact + 1))
  elif [ "$status" -eq 1 ] && grep -q 'diverged=1 ' <<<"$d" && grep -q 'by_interaction=1' <<<"$d" && ! grep -q determinism <<<"$d"; then
    interactions=$((interactions + 1))
  else
    fail "bot $id's path against the server's: $d"
  fi
done
echo "diff of the server's recording against the Windows bots' paths: $exact identical, $interactions diverged by interaction only"

# 5. The C example, with a token, against the Linux server.
"$host/server/foothold-token" keygen --out "$work/server.key" >/dev/null
"$host/server/foothold-server" --bind 127.0.0.1 --port 0 --ready-file "$work/ready" --key-file "$work/server.key" \
  >"$work/server.log" 2>&1 &
server_pid=$!
address=$(wait_ready "$work/ready" "$server_pid") || fail "the keyed server did not start: $(cat "$work/server.log")"
"$host/server/foothold-token" issue --key-file "$work/server.key" --server "$address" --client-id 42 --expires 120 \
  --out "$work/player.token"
"$wine" "$win/examples/c_client.exe" "$work/player.token" 4 >"$work/c_client.log" 2>&1 ||
  fail "c_client.exe: $(tail -3 "$work/c_client.log")"
stop_server
line=$(tail -1 "$work/c_client.log" | tr -d '\r')
echo "c_client.exe: $line"
distance=$(sed -n 's/.* distance_m=\([0-9.]*\).*/\1/p' <<<"$line")
[[ "$line" == connected=1\ * ]] || fail "c_client.exe did not connect: $line"
awk -v d="$distance" 'BEGIN { exit !(d > 5) }' || fail "c_client.exe walked only ${distance:-nothing} m"

# 6. Exports, imports and the zip.
dll_exports=$(x86_64-w64-mingw32-objdump -p "$win/client/foothold-client.dll" |
  awk '/\[Ordinal\/Name Pointer\] Table/ { on = 1; next } on && /^\t\[/ { print $NF; next } on { on = 0 }' | sort)
so=$(find "$host/client" -maxdepth 1 -name 'libfoothold-client.so.*.*' | head -1)
[ -n "$so" ] || fail "no libfoothold-client.so in $host/client"
so_exports=$(nm -D --defined-only "$so" | awk '$2 == "T" { print $3 }' | sed 's/@.*//' | sort -u)
[ -n "$dll_exports" ] || fail "foothold-client.dll exports nothing"
[ "$dll_exports" = "$so_exports" ] || {
  diff <(echo "$so_exports") <(echo "$dll_exports") >&2
  fail "foothold-client.dll's exports differ from libfoothold-client.so's (< .so, > .dll)"
}
echo "foothold-client.dll: exports the C API's $(wc -l <<<"$dll_exports") functions, as the .so does"
allowed='^(kernel32|ws2_32|advapi32|msvcrt|mswsock|user32|bcrypt|ntdll|api-ms-win-crt-[a-z0-9-]+)\.dll$'
for bin in "$win/client/foothold-client.dll" "$win/replay/foothold-replay.exe" "$win/bots/foothold-bot.exe" "$win/examples/c_client.exe"; do
  imports=$(x86_64-w64-mingw32-objdump -p "$bin" | sed -n 's/^\tDLL Name: //p' | tr 'A-Z' 'a-z' | sort -u)
  while read -r dll; do
    [ "$bin" != "$win/examples/c_client.exe" ] || [ "$dll" != foothold-client.dll ] || continue
    grep -Eq "$allowed" <<<"$dll" || fail "$(basename "$bin") imports $dll, which is not Windows' own"
  done <<<"$imports"
  echo "$(basename "$bin") imports: $(tr '\n' ' ' <<<"$imports")"
done
zip=$(find "$win" -maxdepth 1 -name 'foothold-client-*-windows-x86_64.zip' | head -1)
[ -n "$zip" ] || fail "no foothold-client-VERSION-windows-x86_64.zip in $win"
python3 - "$zip" <<'EOF' || fail "the zip is incomplete"
import sys, zipfile
names = set(zipfile.ZipFile(sys.argv[1]).namelist())
root = sys.argv[1].rsplit("/", 1)[-1][:-len(".zip")] + "/"
want = ["bin/foothold-client.dll", "lib/foothold-client.lib", "lib/libfoothold-client.dll.a",
        "lib/cmake/FootholdClient/FootholdClientConfig.cmake", "include/foothold/client.h",
        "LICENSE", "THIRD_PARTY.md", "README.md"]
missing = [w for w in want if root + w not in names]
if missing:
    sys.exit(print("missing from the zip:", missing))
print("zip:", root[:-1], "holds", ", ".join(want))
EOF
echo "cross-os: every comparison identical"
