#!/usr/bin/env bash
# The client library alone on a clean Debian 12 (label container): an image with nothing but a C
# compiler, libc's development files, pkg-config and CMake, and the client's files from
# `cmake --install` (the shared library, client.h, the pkg-config module and the CMake package's
# client part) copied under /usr/local. In it:
#   1. the library loads with nothing else installed (ldd finds every library it needs);
#   2. examples/c_client/main.c builds with `cc main.c $(pkg-config --cflags --libs foothold-client) -lm`,
#      and pkg-config's flags are the include path and the library, nothing more;
#   3. the same builds from a C-only CMake project with find_package(Foothold COMPONENTS client);
#   4. both play a session against a foothold-server on the host (the container shares its network).
#
#   tests/install/clean_consumer.sh BUILD_DIR FOOTHOLD_SERVER FOOTHOLD_TOKEN
set -euo pipefail
[ $# -eq 3 ] || { echo "usage: $0 BUILD_DIR FOOTHOLD_SERVER FOOTHOLD_TOKEN" >&2; exit 2; }
build=$1 server_bin=$2 token_bin=$3
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
# shellcheck source=docker/podman-lib.sh
source "$root/docker/podman-lib.sh"
# shellcheck source=tests/support/wait_ready.sh
source "$root/tests/support/wait_ready.sh"

run_id="$(date +%s)-$$"
image="localhost/foothold-clean-consumer:$run_id"
work=$(mktemp -d /var/tmp/foothold-clean-consumer.XXXXXX)
server_pid=
cleanup() {
  local status=$?
  stop_server
  podman rmi -f "$image" >/dev/null 2>&1 || true
  rm -rf "$work"
  [ "$status" -eq 0 ] && echo "clean consumer test passed" || echo "clean consumer test FAILED (exit $status)" >&2
}
trap cleanup EXIT
fail() { echo "clean_consumer: FAIL $*" >&2; exit 1; }

# The client's files, as a game's build machine receives them.
cmake --install "$build" --prefix "$work/prefix" >"$work/install.log" || { cat "$work/install.log" >&2; fail "cmake --install"; }
ctx=$work/context
mkdir -p "$ctx/usr/local/lib/pkgconfig" "$ctx/usr/local/lib/cmake/Foothold" "$ctx/usr/local/include/foothold" "$ctx/src"
cp -a "$work/prefix"/lib/libfoothold-client.so* "$ctx/usr/local/lib/"
cp "$work/prefix/lib/pkgconfig/foothold-client.pc" "$ctx/usr/local/lib/pkgconfig/"
cp "$work/prefix"/lib/cmake/Foothold/{FootholdConfig.cmake,FootholdConfigVersion.cmake} "$ctx/usr/local/lib/cmake/Foothold/"
cp "$work/prefix"/lib/cmake/Foothold/FootholdClientTargets*.cmake "$ctx/usr/local/lib/cmake/Foothold/"
cp "$work/prefix/include/foothold/client.h" "$ctx/usr/local/include/foothold/"
cp "$root/examples/c_client/main.c" "$ctx/src/"
cat >"$ctx/src/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.25)
project(c_client LANGUAGES C)
find_package(Foothold 0.1 REQUIRED COMPONENTS client)
# Nothing of Foothold's build reaches this one: no definitions, options or other libraries.
foreach(property INTERFACE_COMPILE_DEFINITIONS INTERFACE_COMPILE_OPTIONS INTERFACE_LINK_LIBRARIES INTERFACE_LINK_OPTIONS)
  get_target_property(value Foothold::client ${property})
  if(value)
    message(FATAL_ERROR "Foothold::client has ${property} '${value}'")
  endif()
endforeach()
add_executable(c_client main.c)
target_link_libraries(c_client PRIVATE Foothold::client m)
CMAKE
cat >"$ctx/Dockerfile" <<'DOCKERFILE'
FROM docker.io/library/debian:bookworm
RUN apt-get update \
 && apt-get install -y --no-install-recommends gcc libc6-dev pkg-config cmake make \
 && rm -rf /var/lib/apt/lists/*
COPY usr/ /usr/
COPY src/ /src/
RUN ldconfig
DOCKERFILE

podman_setup "$work/podman" || fail "podman cannot run here"
step base-image podman_ensure_base_image
step image-build bash -c 'nice -n 10 podman build "${@:3}" -t "$0" -f "$1/Dockerfile" "$1" >"$2" 2>&1 || { tail -30 "$2"; exit 1; }' \
  "$image" "$ctx" "$work/build.log" "${PODMAN_BUILD_FLAGS[@]}"
in_image() { podman run --rm "${PODMAN_RUN_FLAGS[@]}" -v "$work/share:/share" "$image" bash -c "$1"; }
mkdir -p "$work/share"

# 1. It loads alone.
libs=$(in_image 'ldd /usr/local/lib/libfoothold-client.so.0') || fail "ldd: $libs"
echo "$libs"
! grep -q 'not found' <<<"$libs" || fail "the library needs what the image lacks"
other=$(grep '=>' <<<"$libs" | awk '{print $1}' | grep -vE '^(libc|libm|libstdc\+\+|libgcc_s)\.so\.[0-9]+$' || true)
[ -z "$other" ] || fail "the library loads $other (only libc, libm, libstdc++ and libgcc_s may be)"

# 2. and 3. Built with pkg-config and with C-only CMake.
flags=$(in_image 'pkg-config --cflags --libs foothold-client') || fail "pkg-config: $flags"
flags=${flags% }  # pkg-config ends its line with a space
[[ $flags =~ ^-I[^[:space:]]+\ -L[^[:space:]]+\ -lfoothold-client$ ]] || fail "pkg-config says '$flags': the include path and the library, nothing more"
echo "pkg-config --cflags --libs foothold-client: $flags"
out=$(in_image 'cc /src/main.c $(pkg-config --cflags --libs foothold-client) -lm -o /share/c_client_pc 2>&1 &&
               cmake -S /src -B /tmp/b >/tmp/cmake.log 2>&1 && cmake --build /tmp/b >>/tmp/cmake.log 2>&1 &&
               cp /tmp/b/c_client /share/c_client_cmake || { cat /tmp/cmake.log; exit 1; }') || fail "building: $out"

# 4. Both play.
"$token_bin" keygen --out "$work/server.key" >/dev/null
start_server "$server_bin" "$work" --key-file "$work/server.key" || fail "foothold-server did not start"
for kind in pc cmake; do
  id=$([ $kind = pc ] && echo 1 || echo 2)
  "$token_bin" issue --key-file "$work/server.key" --server "$address" --client-id "$id" --out "$work/share/player$id.token" >/dev/null
  out=$(in_image "/share/c_client_$kind /share/player$id.token 2") || fail "c_client_$kind: $out"
  last=$(tail -n 1 <<<"$out")
  [[ $last =~ ^connected=1\ ticks=([0-9]+) ]] || fail "c_client_$kind's last line: '$last'"
  [ "${BASH_REMATCH[1]}" -ge 60 ] || fail "c_client_$kind ran only ${BASH_REMATCH[1]} ticks"
  echo "c_client ($kind) in the clean image: $last"
done
