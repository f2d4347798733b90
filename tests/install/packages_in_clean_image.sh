#!/usr/bin/env bash
# The Debian packages on a clean Debian 12 (label container). CPack packs the build tree
# (cmake/packaging.cmake), then, with Podman (docker/podman-lib.sh):
#   1. an image with nothing but a C compiler, libc's development files, pkg-config and CMake, and
#      libfoothold-client0 and libfoothold-dev installed with `apt-get install ./*.deb` (their
#      recommendations left out). In it the client library loads alone (ldd finds everything, and
#      nothing but libc, libm, libstdc++ and libgcc_s), pkg-config says the include path and the
#      library and the project's version, and examples/c_client/main.c builds with
#      `cc main.c $(pkg-config --cflags --libs foothold-client) -lm` and from a C-only CMake project
#      with find_package(Foothold COMPONENTS client), which carries no definition, option or library;
#   2. the same image with foothold-server installed too (apt brings its Debian runtime libraries):
#      the packaged foothold-server says the project's version, starts with a key from the packaged
#      foothold-token, and both builds of c_client play a session against it.
#
#   tests/install/packages_in_clean_image.sh BUILD_DIR
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: $0 BUILD_DIR" >&2; exit 2; }
build=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
# shellcheck source=docker/podman-lib.sh
source "$root/docker/podman-lib.sh"

run_id="$(date +%s)-$$"
client_image="localhost/foothold-packages-client:$run_id"
server_image="localhost/foothold-packages-server:$run_id"
work=$(mktemp -d /var/tmp/foothold-packages.XXXXXX)
cleanup() {
  local status=$?
  podman rmi -f "$server_image" "$client_image" >/dev/null 2>&1 || true
  rm -rf "$work"
  [ "$status" -eq 0 ] && echo "packages test passed" || echo "packages test FAILED (exit $status)" >&2
}
trap cleanup EXIT
fail() { echo "packages_in_clean_image: FAIL $*" >&2; exit 1; }

version=$(awk -F= '$1 == "CMAKE_PROJECT_VERSION:STATIC" {print $2}' "$build/CMakeCache.txt")
[[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || fail "the build's project version is '$version'"

ctx=$work/context
mkdir -p "$ctx/debs" "$ctx/src" "$work/share"
step cpack bash -c 'cd "$0" && cpack -B "$1" >"$1/../cpack.log" 2>&1 || { tail -20 "$1/../cpack.log"; exit 1; }' "$build" "$ctx/debs"
rm -rf "$ctx/debs/_CPack_Packages"
for p in foothold-server libfoothold-client0 libfoothold-dev; do
  [ -f "$ctx/debs/${p}_${version}_$(dpkg --print-architecture).deb" ] || fail "cpack made no $p package of version $version"
done
ls -1 "$ctx/debs"
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
cat >"$ctx/Dockerfile.client" <<'DOCKERFILE'
FROM docker.io/library/debian:bookworm
COPY debs/ /debs/
COPY src/ /src/
WORKDIR /debs
RUN apt-get update \
 && apt-get install -y --no-install-recommends ./libfoothold-client0_*.deb ./libfoothold-dev_*.deb \
      gcc libc6-dev pkg-config cmake make \
 && rm -rf /var/lib/apt/lists/*
DOCKERFILE
cat >"$ctx/Dockerfile.server" <<DOCKERFILE
FROM $client_image
RUN apt-get update \\
 && apt-get install -y --no-install-recommends ./foothold-server_*.deb \\
 && rm -rf /var/lib/apt/lists/*
DOCKERFILE

podman_setup "$work/podman" || fail "podman cannot run here"
step base-image podman_ensure_base_image
build_image() {  # build_image IMAGE DOCKERFILE
  nice -n 10 podman build "${PODMAN_BUILD_FLAGS[@]}" -t "$1" -f "$ctx/$2" "$ctx" >"$work/$2.log" 2>&1 ||
    { tail -30 "$work/$2.log"; return 1; }
}
in_image() { podman run --rm "${PODMAN_RUN_FLAGS[@]}" -v "$work/share:/share" "$1" bash -c "$2"; }

# 1. The client's packages alone.
step client-image build_image "$client_image" Dockerfile.client
libs=$(in_image "$client_image" 'ldd /usr/lib/libfoothold-client.so.0') || fail "ldd: $libs"
echo "$libs"
! grep -q 'not found' <<<"$libs" || fail "the library needs what the image lacks"
other=$(grep '=>' <<<"$libs" | awk '{print $1}' | grep -vE '^(libc|libm|libstdc\+\+|libgcc_s)\.so\.[0-9]+$' || true)
[ -z "$other" ] || fail "the library loads $other (only libc, libm, libstdc++ and libgcc_s may be)"
extra=$(in_image "$client_image" 'dpkg-query -W -f="\${Package} \${Status}\n" libbullet-dev libsodium-dev libflatbuffers-dev \
  libbullet3.24 libsodium23 2>/dev/null | grep " install ok installed" | cut -d" " -f1' || true)
[ -z "$extra" ] || fail "the image holds $extra: the test would not show the library needs none"
flags=$(in_image "$client_image" 'pkg-config --cflags --libs foothold-client && pkg-config --modversion foothold-client') ||
  fail "pkg-config: $flags"
echo "pkg-config: $(tr '\n' '|' <<<"$flags")"
[[ $(head -1 <<<"$flags") =~ ^-I[^[:space:]]+\ -L[^[:space:]]+\ -lfoothold-client\ ?$ ]] ||
  fail "pkg-config --cflags --libs says '$(head -1 <<<"$flags")': the include path and the library, nothing more"
[ "$(tail -1 <<<"$flags")" = "$version" ] || fail "pkg-config --modversion says $(tail -1 <<<"$flags"), the project $version"
out=$(in_image "$client_image" 'cc /src/main.c $(pkg-config --cflags --libs foothold-client) -lm -o /share/c_client_pc 2>&1 &&
      cmake -S /src -B /tmp/b >/tmp/cmake.log 2>&1 && cmake --build /tmp/b >>/tmp/cmake.log 2>&1 &&
      cp /tmp/b/c_client /share/c_client_cmake || { cat /tmp/cmake.log; exit 1; }') || fail "building c_client: $out"

# 2. The server's package beside them, and a session.
step server-image build_image "$server_image" Dockerfile.server
port=$(( (RANDOM % 20000) + 30000 ))
out=$(in_image "$server_image" "
  set -e
  foothold-server --version
  foothold-token keygen --out /tmp/server.key >/dev/null
  foothold-server --bind 127.0.0.1 --port $port --key-file /tmp/server.key --ready-file /tmp/ready >/tmp/server.log 2>&1 &
  for _ in \$(seq 100); do [ -s /tmp/ready ] && break; sleep 0.05; done
  [ -s /tmp/ready ] || { cat /tmp/server.log; exit 1; }
  for kind in pc cmake; do
    id=\$([ \$kind = pc ] && echo 1 || echo 2)
    foothold-token issue --key-file /tmp/server.key --server 127.0.0.1:$port --client-id \$id --out /tmp/p\$id.token >/dev/null
    echo \"\$kind: \$(/share/c_client_\$kind /tmp/p\$id.token 2 | tail -n 1)\"
  done
  kill %1") || fail "the session: $out"
echo "$out"
grep -qx "foothold-server $version (protocol [0-9]*, recording [0-9]*, git [^ )]*)" <<<"$out" ||
  fail "the packaged foothold-server's --version: $(head -1 <<<"$out")"
for kind in pc cmake; do
  line=$(grep "^$kind: " <<<"$out" || true)
  [[ $line =~ ^$kind:\ connected=1\ ticks=([0-9]+) ]] || fail "c_client ($kind) against the packaged server: '$line'"
  [ "${BASH_REMATCH[1]}" -ge 60 ] || fail "c_client ($kind) ran only ${BASH_REMATCH[1]} ticks"
done
