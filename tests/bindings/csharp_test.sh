#!/usr/bin/env bash
# The C# binding (bindings/csharp) with Mono, against real foothold-servers on loopback:
#   1. mcs builds the binding as a library with its XML docs (a public member without one fails the
#      build), the console example with the command line of docs/bindings.md, and the tests;
#   2. layout: every struct of client.h, sizeof and offsetof from the C compiler (layout.c) against
#      Marshal.SizeOf/OffsetOf of the binding's;
#   3. entrypoints: the binding's P/Invoke names are exactly libfoothold-client.so's exports, and all
#      in foothold-client.dll's export table when a Windows build is given (read from the table with
#      objdump, not by running Mono under Wine);
#   4. errors: create and connect throw, per-frame calls return results;
#   5. walk.exe connects with a token and walks a circle for 5 s: more than 5 m, nothing unexplained;
#   6. --game echo: 100 reliable messages back byte for byte; a foothold-bot appears and leaves the
#      match (events); 2,000 frames of every per-frame call with a bot and echoes: no collection of
#      generation 0 and no heap growth;
#   7. --game tag: the game's attributes read by name; disconnect ends with client_quit, and the same
#      client connecting again to the echo server's port, closed now, ends with no_server;
#   8. the Unity package (bindings/unity): its version is the project's, its sample compiles against
#      a stub of the UnityEngine types it uses (tests/bindings/unity_stub), and npm pack --dry-run
#      lists the manifest, the binding, the .asmdef, the plugins with their .meta files and the sample.
#
#   csharp_test.sh LINUX_BUILD CLIENT_LIBRARY LAYOUT_PROGRAM [WINDOWS_DLL]
#     LINUX_BUILD: foothold-server, foothold-token and foothold-bot's build; CLIENT_LIBRARY: the
#     libfoothold-client.so to load; LAYOUT_PROGRAM: layout.c built; WINDOWS_DLL: foothold-client.dll
#     (checked when the file exists, skipped with a message when it does not).
set -euo pipefail
[ $# -eq 3 ] || [ $# -eq 4 ] || { echo "usage: $0 LINUX_BUILD CLIENT_LIBRARY LAYOUT_PROGRAM [WINDOWS_DLL]" >&2; exit 2; }
build=$(cd "$1" && pwd) library=$2 layout=$3 dll=${4:-}
src=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/support/wait_ready.sh
source "$src/tests/support/wait_ready.sh"
for tool in mcs mono; do
  command -v "$tool" >/dev/null || { echo "csharp_test: $tool is missing (./setup.sh --test installs mono-mcs and mono-runtime)" >&2; exit 2; }
done
for f in "$build/server/foothold-server" "$build/server/foothold-token" "$build/bots/foothold-bot" "$library" "$layout"; do
  [ -f "$f" ] || { echo "csharp_test: $f is not built" >&2; exit 2; }
done

work=$(mktemp -d)
server_pid=
bot_pid=
cleanup() {
  [ -z "$bot_pid" ] || kill "$bot_pid" 2>/dev/null || true
  stop_server
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "csharp_test: FAILED: $*" >&2; exit 1; }

# 1. Builds. Mono's mcs takes C# up to 7.2 (-langversion:7.3 is refused), a subset of what Unity compiles.
cs=(mcs -langversion:7.2 -warnaserror)
"${cs[@]}" -target:library -doc:"$work/Foothold.xml" -out:"$work/Foothold.dll" "$src"/bindings/csharp/Foothold/*.cs ||
  fail "the binding does not build warning-free with its XML docs"
(cd "$src" && mcs -langversion:7.2 -out:"$work/walk.exe" bindings/csharp/Foothold/*.cs bindings/csharp/examples/Walk.cs) ||
  fail "walk.exe does not build"
"${cs[@]}" -out:"$work/tests.exe" "$src"/bindings/csharp/Foothold/*.cs "$src/tests/bindings/csharp/Tests.cs" ||
  fail "tests.exe does not build"
echo "mcs: Foothold.dll ($(grep -c '<member ' "$work/Foothold.xml") documented members), walk.exe, tests.exe"

# Mono resolves [DllImport("foothold-client")] as libfoothold-client.so on the loader's path.
mkdir "$work/lib"
ln -s "$(cd "$(dirname "$library")" && pwd)/$(basename "$library")" "$work/lib/libfoothold-client.so"
export LD_LIBRARY_PATH="$work/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
tests() { mono "$work/tests.exe" "$@"; }

# 2, 3, 4. Without a server.
"$layout" >"$work/layout.txt" || fail "$layout failed"
tests layout "$work/layout.txt"
nm -D --defined-only "$library" | awk '$2 == "T" { print $3 }' | sed 's/@.*//' | sort -u >"$work/so-exports.txt"
[ -s "$work/so-exports.txt" ] || fail "$library exports nothing"
if [ -n "$dll" ] && [ -f "$dll" ]; then
  command -v x86_64-w64-mingw32-objdump >/dev/null || fail "x86_64-w64-mingw32-objdump is missing (./setup.sh --test)"
  x86_64-w64-mingw32-objdump -p "$dll" |
    awk '/\[Ordinal\/Name Pointer\] Table/ { on = 1; next } on && /^\t\[/ { print $NF; next } on { on = 0 }' >"$work/dll-exports.txt"
  [ -s "$work/dll-exports.txt" ] || fail "$dll exports nothing"
  tests entrypoints "$work/so-exports.txt" "$work/dll-exports.txt"
else
  tests entrypoints "$work/so-exports.txt"
  echo "entrypoints: no Windows DLL (${dll:-none given}): its export table not checked (./build.sh windows makes it)"
fi
tests errors

"$build/server/foothold-token" keygen --out "$work/server.key" >/dev/null
client_id=100
token() {  # token ADDRESS FILE: a fresh client id each, valid 120 s
  client_id=$((client_id + 1))
  "$build/server/foothold-token" issue --key-file "$work/server.key" --server "$1" --client-id "$client_id" --expires 120 \
    --out "$2" >/dev/null
}
bot() {  # bot SECONDS [ARGS...]: one foothold-bot in the background
  local seconds=$1
  shift
  "$build/bots/foothold-bot" --server "$address" --key-file "$work/server.key" --bots 1 --duration "$seconds" \
    --connect-timeout 10 "$@" >"$work/bot.log" 2>&1 &
  bot_pid=$!
}
wait_bot() {
  wait "$bot_pid" || fail "foothold-bot: $(tail -3 "$work/bot.log")"
  bot_pid=
}

# 5, 6. A server running --game echo.
start_server "$build/server/foothold-server" "$work" --key-file "$work/server.key" --game echo ||
  fail "the echo server did not start"
token "$address" "$work/walk.token"
mono "$work/walk.exe" "$work/walk.token" 5 >"$work/walk.log" 2>&1 || fail "walk.exe: $(tail -3 "$work/walk.log")"
cat "$work/walk.log"
line=$(tail -1 "$work/walk.log")
[[ "$line" =~ ^connected=1\ ticks=[0-9]+\ distance_m=([0-9.]+)\ corrections=[0-9]+$ ]] || fail "walk.exe's last line: $line"
awk -v d="${BASH_REMATCH[1]}" 'BEGIN { exit !(d > 5) }' || fail "walk.exe walked only ${BASH_REMATCH[1]} m in 5 s"
grep -q ' unexplained=0$' "$work/walk.log" || fail "walk.exe saw unexplained corrections: $(grep unexplained= "$work/walk.log")"
mono "$work/walk.exe" >/dev/null 2>"$work/usage.log" && status=0 || status=$?
[ "$status" -eq 2 ] && grep -q '^usage: mono walk.exe TOKEN_FILE \[SECONDS\]$' "$work/usage.log" ||
  fail "walk.exe without arguments: exit $status, '$(cat "$work/usage.log")'"
mono "$work/walk.exe" "$work/walk.token" soon >/dev/null 2>"$work/usage.log" && status=0 || status=$?
[ "$status" -eq 2 ] && grep -q "SECONDS must be a number" "$work/usage.log" ||
  fail "walk.exe with SECONDS 'soon': exit $status, '$(cat "$work/usage.log")'"

token "$address" "$work/echo.token"
tests echo "$work/echo.token"
token "$address" "$work/events.token"
bot 4
tests events "$work/events.token"
wait_bot
token "$address" "$work/allocation.token"
bot 30 --messages-per-second 5
tests allocation "$work/allocation.token"
kill "$bot_pid" 2>/dev/null || true
wait "$bot_pid" 2>/dev/null || true
bot_pid=
echo_address=$address
stop_server
rm -f "$work/ready"  # start_server reads the next address from it

# 7. A server running --game tag; then the echo server's port, closed now, for no_server.
start_server "$build/server/foothold-server" "$work" --key-file "$work/server.key" --game tag ||
  fail "the tag server did not start"
token "$address" "$work/tag.token"
tests tag "$work/tag.token"
token "$address" "$work/disconnect.token"
token "$echo_address" "$work/closed.token"
tests disconnect "$work/disconnect.token" "$work/closed.token"
stop_server

# 8. The Unity package.
version=$(sed -n 's/^project(foothold VERSION \([0-9.]*\) .*/\1/p' "$src/CMakeLists.txt")
package_version=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["version"])' "$src/bindings/unity/package.json")
[ -n "$version" ] && [ "$package_version" = "$version" ] ||
  fail "bindings/unity/package.json's version is '$package_version', the project's '$version'"
"${cs[@]}" -target:library -out:"$work/UnityEngine.dll" "$src/tests/bindings/unity_stub/UnityEngine.cs" || fail "the UnityEngine stub does not build"
"${cs[@]}" -target:library -r:"$work/UnityEngine.dll" -r:"$work/Foothold.dll" -out:"$work/sample.dll" "$src"/bindings/unity/Samples~/*/*.cs ||
  fail "the Unity sample does not compile"
echo "unity: the sample compiles against the binding and the UnityEngine stub"
"$src/bindings/unity/pack.sh" --dry-run "$work/pack" "$library" ${dll:+"$dll"} >"$work/pack.log" 2>&1 ||
  fail "pack.sh: $(tail -5 "$work/pack.log")"
want=(package.json README.md LICENSE Runtime/Foothold.Client.asmdef Runtime/Foothold.Client.asmdef.meta
      Runtime/Plugins/Linux/x86_64/libfoothold-client.so Runtime/Plugins/Linux/x86_64/libfoothold-client.so.meta
      Runtime/Foothold.meta Runtime/Plugins/Linux/x86_64.meta)
for f in "$src"/bindings/csharp/Foothold/*.cs; do want+=("Runtime/Foothold/$(basename "$f")" "Runtime/Foothold/$(basename "$f").meta"); done
for f in "$src"/bindings/unity/Samples~/*/*; do want+=("${f#"$src/bindings/unity/"}"); done
[ -z "$dll" ] || [ ! -f "$dll" ] ||
  want+=(Runtime/Plugins/Windows/x86_64/foothold-client.dll Runtime/Plugins/Windows/x86_64/foothold-client.dll.meta)
for f in "${want[@]}"; do
  grep -q "^$f [0-9]*$" "$work/pack.log" || fail "npm pack --dry-run does not list $f: $(cat "$work/pack.log")"
done
grep -q "^pack: com.foothold.client-$version.tgz, " "$work/pack.log" || fail "npm pack names no com.foothold.client-$version.tgz"
grep -A3 'Standalone: Linux64' "$src/bindings/unity/Runtime/Plugins/Linux/x86_64/libfoothold-client.so.meta" | grep -q 'enabled: 1' &&
  grep -A3 'Standalone: Win64' "$src/bindings/unity/Runtime/Plugins/Windows/x86_64/foothold-client.dll.meta" | grep -q 'enabled: 1' &&
  ! grep -A3 'Standalone: Win64' "$src/bindings/unity/Runtime/Plugins/Linux/x86_64/libfoothold-client.so.meta" | grep -q 'enabled: 1' ||
  fail "the plugins' .meta files do not mark Linux64 for the .so and Win64 for the DLL alone"
echo "unity: $(tail -1 "$work/pack.log"), every file the package needs listed"
echo "csharp: every check passed"
