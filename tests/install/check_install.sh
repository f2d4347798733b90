#!/usr/bin/env bash
# InstallAndConsume: `cmake --install` of a build tree, then a game's builds out of tree against the
# installed prefix, the way the client SDK's page (docs/client-sdk.md) tells a user to:
#   1. the layout: the C header, the shared library with its soname, the static archives, the CMake
#      package and the pkg-config module; the shared library needs libc, libm and libstdc++ only,
#      exports exactly client.h's functions, and holds no server code;
#   2. CMake: find_package(Foothold COMPONENTS client client_static), a C program on Foothold::client
#      and a C++ one on Foothold::client_static (tests/install/consumer), and a C-only project's C
#      program on Foothold::client_static (tests/install/consumer_c_only), built and run;
#   3. the server component: examples/tag_server (the tag game's own server) configured with
#      find_package(Foothold COMPONENTS server) and built;
#   4. pkg-config: examples/c_client/main.c built with `cc main.c $(pkg-config --cflags --libs
#      foothold-client) -lm` and run on loopback against that out-of-tree tag-server;
#   5. the shipped game: share/foothold/examples/hill_game built from the installed copy alone, played
#      by bots on its level, its recording verified and its game replayed identical (#66).
#
#   tests/install/check_install.sh BUILD_DIR FOOTHOLD_SERVER FOOTHOLD_TOKEN SELF_CONTAINED FOOTHOLD_BOT FOOTHOLD_REPLAY
# (SELF_CONTAINED: ON, the library must need libc, libm and libstdc++ only; OFF, a build configured
# with -DFOOTHOLD_SELF_CONTAINED_CLIENT=OFF, whose library links Debian's.)
set -euo pipefail
[ $# -eq 6 ] || { echo "usage: $0 BUILD_DIR FOOTHOLD_SERVER FOOTHOLD_TOKEN SELF_CONTAINED FOOTHOLD_BOT FOOTHOLD_REPLAY" >&2; exit 2; }
build=$1 server_bin=$2 token_bin=$3 self_contained=$4 bot_bin=$5 replay_bin=$6
source_dir=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/support/wait_ready.sh
source "$source_dir/tests/support/wait_ready.sh"

work=$(mktemp -d)
server_pid=
cleanup() {
  stop_server
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "check_install: FAIL $*" >&2; exit 1; }

prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" >"$work/install.log" || { cat "$work/install.log" >&2; fail "cmake --install"; }
libdir=$prefix/lib
[ -d "$libdir" ] || libdir=$(dirname "$(find "$prefix" -name 'libfoothold-client.so' -print -quit)")

version=$(awk -F= '$1 == "CMAKE_PROJECT_VERSION:STATIC" {print $2}' "$build/CMakeCache.txt")
[[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || fail "the build's project version is '$version'"

# 1. The layout.
for f in include/foothold/client.h include/foothold/shared/world.h include/foothold/client/session.h \
         include/foothold/proto/foothold_generated.h include/foothold/server/game.h include/foothold/server/server_program.h; do
  [ -f "$prefix/$f" ] || fail "$f is not installed"
done
[ ! -e "$prefix/include/foothold/proto/endpoint.h" ] || fail "proto/endpoint.h (Asio's) is installed"
for f in libfoothold-client.so.$version libfoothold-client.a libfoothold-sim.a libfoothold-formats.a libfoothold-proto.a \
         libfoothold-server.a libfoothold-fleet.a libfoothold-replay.a libfoothold-workers.a \
         cmake/Foothold/FootholdConfig.cmake cmake/Foothold/FootholdConfigVersion.cmake cmake/Foothold/FootholdClientTargets.cmake \
         pkgconfig/foothold-client.pc; do
  [ -e "$libdir/$f" ] || fail "$libdir/$f is not installed"
done
major=${version%%.*}
[ "$(readlink "$libdir/libfoothold-client.so.$major")" = "libfoothold-client.so.$version" ] ||
  fail "libfoothold-client.so.$major is no link to $version"
soname=$(objdump -p "$libdir/libfoothold-client.so.$version" | awk '$1 == "SONAME" {print $2}')
[ "$soname" = "libfoothold-client.so.$major" ] || fail "the soname is '$soname', not libfoothold-client.so.$major"
needed=$(objdump -p "$libdir/libfoothold-client.so.$version" | awk '$1 == "NEEDED" {print $2}' | tr '\n' ' ')
# Self-contained: libc, libm and libstdc++ only (and the dynamic loader, which is libc's).
for lib in $needed; do
  [ "$self_contained" = ON ] || break
  [[ $lib =~ ^(libc\.so\.6|libm\.so\.6|libstdc\+\+\.so\.6|ld-linux[-a-z0-9_]*\.so\.[0-9]+)$ ]] ||
    fail "the client library needs $lib (only libc, libm and libstdc++ may be)"
done
# It exports the C API, every function client.h declares, and nothing else.
# (Into a variable first: `| grep -q` would stop reading early, and nm's SIGPIPE would fail under pipefail.)
exported=$(nm -D --defined-only "$libdir/libfoothold-client.so.$version" | awk '$2 != "A" {print $3}' | sed 's/@.*//' | sort)
declared=$(grep '^FOOTHOLD_CLIENT_API' "$prefix/include/foothold/client.h" | grep -oE 'foothold_client_[a-z_]+\(' | tr -d '(' | sort)
[ "$(wc -l <<<"$declared")" -ge 30 ] || fail "read only $(wc -l <<<"$declared") functions from client.h"
[ "$exported" = "$declared" ] || fail "the exports are not client.h's functions: $(diff <(echo "$declared") <(echo "$exported") | grep '^[<>]' | tr '\n' ' ')"
symbols=$(nm -C "$libdir/libfoothold-client.so.$version")
if grep -q 'foothold::server::' <<<"$symbols"; then fail "server code is in the client library"; fi
if grep -qi "spdlog\|CLI11" "$libdir"/cmake/Foothold/FootholdTargets*.cmake; then fail "the client's CMake targets link spdlog or CLI11"; fi
# One version (#40): the project's, in the library's file name (above), its soname's major, the CMake
# package's version file, the pkg-config module and foothold_client_version() (the consumer prints it).
grep -q "^set(PACKAGE_VERSION \"$version\")$" "$libdir/cmake/Foothold/FootholdConfigVersion.cmake" ||
  fail "the CMake package's version is not $version"
pc_version=$(PKG_CONFIG_PATH=$libdir/pkgconfig pkg-config --modversion foothold-client)
[ "$pc_version" = "$version" ] || fail "pkg-config says version $pc_version, the project $version"
echo "layout: ok (version $version everywhere; soname $soname; needs: $needed; exports the $(wc -l <<<"$exported") functions of client.h)"

# 2. CMake, out of tree.
cmake -S "$source_dir/tests/install/consumer" -B "$work/consumer" -DCMAKE_PREFIX_PATH="$prefix" >"$work/consumer.log" 2>&1 ||
  { cat "$work/consumer.log" >&2; fail "configuring the CMake consumer"; }
cmake --build "$work/consumer" -j2 >>"$work/consumer.log" 2>&1 || { cat "$work/consumer.log" >&2; fail "building the CMake consumer"; }
out=$(LD_LIBRARY_PATH="$libdir" "$work/consumer/consumer_c") || fail "consumer_c: $out"
[[ $out == *"bad_token=4"* ]] || fail "consumer_c printed '$out'"
[[ $out == "version=$version "* ]] || fail "foothold_client_version() is not $version: $out"
echo "cmake consumer (C, shared): $out"
out=$("$work/consumer/consumer_cpp") || fail "consumer_cpp: $out"
echo "cmake consumer (C++, static): $out"
cmake -S "$source_dir/tests/install/consumer_c_only" -B "$work/c_only" -DCMAKE_PREFIX_PATH="$prefix" >"$work/c_only.log" 2>&1 &&
  cmake --build "$work/c_only" -j2 >>"$work/c_only.log" 2>&1 || { cat "$work/c_only.log" >&2; fail "building the C-only consumer on client_static"; }
out=$("$work/c_only/consumer_c_static") || fail "consumer_c_static: $out"
[[ $out == *"bad_token=4"* ]] || fail "consumer_c_static printed '$out'"
echo "cmake consumer (C only, static): $out"

# A component the package does not have is refused by name.
mkdir -p "$work/nocomp"
printf 'cmake_minimum_required(VERSION 3.25)\nproject(nocomp NONE)\nfind_package(Foothold REQUIRED COMPONENTS editor)\n' \
  >"$work/nocomp/CMakeLists.txt"
if cmake -S "$work/nocomp" -B "$work/nocomp/build" -DCMAKE_PREFIX_PATH="$prefix" >"$work/nocomp.log" 2>&1; then
  fail "find_package(Foothold COMPONENTS editor) succeeded"
fi
# (CMake wraps the message: its words are compared, not its lines.)
tr -s ' \n' '  ' <"$work/nocomp.log" | grep -q "no component 'editor' (components: client, client_static, sim, server)" ||
  { cat "$work/nocomp.log" >&2; fail "the refusal does not name the component"; }
echo "cmake package: refuses COMPONENTS editor by name"

# 3. The server component: the tag game's own server, out of tree.
cmake -S "$source_dir/examples/tag_server" -B "$work/tag" -DCMAKE_PREFIX_PATH="$prefix" >"$work/tag.log" 2>&1 ||
  { cat "$work/tag.log" >&2; fail "configuring examples/tag_server"; }
cmake --build "$work/tag" -j2 >>"$work/tag.log" 2>&1 || { cat "$work/tag.log" >&2; fail "building examples/tag_server"; }
help=$("$work/tag/tag-server" --help) || fail "tag-server --help"
[[ $help == *"the game to run: none, tag (default tag"* ]] || fail "tag-server --help does not offer its game: $help"
echo "cmake consumer (server component): tag-server built"

# 4. pkg-config, and a real session, on the out-of-tree tag-server.
export PKG_CONFIG_PATH=$libdir/pkgconfig
cp "$source_dir/examples/c_client/main.c" "$work/main.c"
# shellcheck disable=SC2046  # pkg-config's words are meant to split
(cd "$work" && cc main.c $(pkg-config --cflags --libs foothold-client) -lm -o c_client) || fail "cc main.c \$(pkg-config ...)"
cflags=$(pkg-config --cflags foothold-client)
cflags=${cflags% }  # pkg-config ends its line with a space
[[ $cflags =~ ^-I[^[:space:]]+$ ]] || fail "pkg-config --cflags says '$cflags': nothing but the include path may reach a game"
"$token_bin" keygen --out "$work/server.key" >/dev/null
start_server "$work/tag/tag-server" "$work" --key-file "$work/server.key" || fail "tag-server did not start"
"$token_bin" issue --key-file "$work/server.key" --server "$address" --client-id 1 --out "$work/player.token" >/dev/null
out=$(LD_LIBRARY_PATH="$libdir" "$work/c_client" "$work/player.token" 2) || fail "c_client: $out"
last=$(tail -n 1 <<<"$out")
[[ $last =~ ^connected=1\ ticks=([0-9]+)\ distance_m=([0-9.]+)\ corrections=([0-9]+)$ ]] || fail "c_client's last line: '$last'"
[ "${BASH_REMATCH[1]}" -ge 100 ] || fail "c_client ran only ${BASH_REMATCH[1]} ticks"
echo "pkg-config c_client: $last"
stop_server

# 5. The shipped game, from the installed copy alone (nothing of the source tree on its path).
hill=$prefix/share/foothold/examples/hill_game
for f in CMakeLists.txt hill_game.cpp hill.gltf make_level.py README.md; do [ -f "$hill/$f" ] || fail "$hill/$f is not installed"; done
cp -r "$hill" "$work/hill_src"
cmake -S "$work/hill_src" -B "$work/hill" -DCMAKE_PREFIX_PATH="$prefix" >"$work/hill.log" 2>&1 ||
  { cat "$work/hill.log" >&2; fail "configuring the installed examples/hill_game"; }
cmake --build "$work/hill" -j2 >>"$work/hill.log" 2>&1 || { cat "$work/hill.log" >&2; fail "building the installed examples/hill_game"; }
level=$hill/hill.gltf
mkdir -p "$work/hill_run"  # a ready file of its own: the tag-server's is still in $work
start_server "$work/hill/hill-server" "$work/hill_run" --key-file "$work/server.key" --world "$level" --record "$work/hill.rec" ||
  fail "hill-server did not start"
# Ride bots make for the level's one mover, the door: through its switches, which open it.
bots=$("$bot_bin" --server "$address" --key-file "$work/server.key" --world "$level" --bots 6 --duration 6 --seed 66 \
  --pattern ride) ||
  { cat "$work/hill_run/server.log" >&2; fail "bots on hill-server: $bots"; }
bots_last=$(tail -n 1 <<<"$bots")
[[ $bots_last == "bots=6 connected=6 failed=0 "* && $bots_last == *" unexplained=0 "* ]] ||
  { cat "$work/hill_run/server.log" >&2; fail "bots on hill-server: '$bots_last'"; }
stop_server
verified=$("$replay_bin" verify "$work/hill.rec" | tail -n 1) || fail "foothold-replay verify of hill-server's recording: $verified"
[[ $verified == "verified=1 "*" characters=6 "*" mismatches=0 "* ]] || fail "hill-server's recording: '$verified'"
replayed=$("$work/hill/hill-server" --verify-game "$work/hill.rec") || fail "hill-server --verify-game: $replayed"
[[ $replayed =~ ^game\ verified:\ hill,\ [0-9]+\ ticks,\ ([0-9]+)\ commands,.*identical$ ]] || fail "hill-server --verify-game: '$replayed'"
# At least the opening round's attributes and a spawn per bot: the game ran, and ran again alike.
[ "${BASH_REMATCH[1]}" -ge 2 ] || fail "hill-server's game gave ${BASH_REMATCH[1]} commands"
# The door opened on its switch (and so shut again or was still open at the end).
movers=$("$replay_bin" info "$work/hill.rec" | grep '^mover_commands=') || fail "foothold-replay info printed no mover_commands="
[ "${movers#mover_commands=}" -ge 1 ] || fail "the hill game's door never moved: $movers"
echo "installed hill_game: $verified; $replayed; $movers"
echo "check_install: ok"
