#!/usr/bin/env bash
# Installs the Debian 12 packages Foothold needs, and nothing that is already there.
#   ./setup.sh          what building and running needs
#   ./setup.sh --test   also what the full test run needs (clang for fuzzing, podman for the container test,
#                       SDL2, OpenGL and Xvfb for foothold-play and its headless test, Chromium for the
#                       HTML report test,
#                       the arm64 cross compiler, arm64 libraries and qemu-user for the cross-arch test)
# Idempotent: a second run installs nothing. As root it runs apt-get itself; otherwise it prints
# the exact command to run and exits 1.
set -euo pipefail

build_packages=(
  build-essential cmake pkg-config git ca-certificates
  libbullet-dev libasio-dev libflatbuffers-dev flatbuffers-compiler libspdlog-dev
  libcli11-dev libtinyobjloader-dev libtinygltf-dev libtomlplusplus-dev libsodium-dev
  libgtest-dev libgmock-dev libbenchmark-dev libjs-three
)
test_packages=(
  clang libclang-rt-14-dev
  podman runc debootstrap uidmap iproute2 procps
  g++-aarch64-linux-gnu qemu-user file
  libsdl2-dev libgl-dev libgl1-mesa-dri xvfb xauth chromium
  libbullet-dev:arm64 libflatbuffers-dev:arm64 libspdlog-dev:arm64 libtinyobjloader-dev:arm64 libtinygltf-dev:arm64
  libtomlplusplus-dev:arm64 libsodium-dev:arm64 libgtest-dev:arm64 libgmock-dev:arm64
)

usage() { echo "usage: $0 [--test]" >&2; exit 2; }
want=("${build_packages[@]}")
case "${1:-}" in
  "") ;;
  --test) want+=("${test_packages[@]}") ;;
  *) usage ;;
esac
[ $# -le 1 ] || usage

missing=()
for p in "${want[@]}"; do
  # dpkg-query answers "install ok installed" only for a package that is fully installed.
  # (A Multi-Arch package installed for two architectures is listed twice: every instance must be.)
  if [ "$(dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | sort -u)" != "install ok installed" ]; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#want[@]} packages are installed"
  exit 0
fi

cmd=(apt-get install -y --no-install-recommends "${missing[@]}")
# arm64 packages (the cross-arch test) need dpkg to know the architecture first.
needs_arm64=
if [[ " ${missing[*]}" == *":arm64"* ]] && ! dpkg --print-foreign-architectures | grep -qx arm64; then
  needs_arm64=yes
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "setup: missing packages: ${missing[*]}" >&2
  echo "setup: run as root:  ${needs_arm64:+dpkg --add-architecture arm64 && }apt-get update && ${cmd[*]}" >&2
  exit 1
fi
echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
[ -z "$needs_arm64" ] || dpkg --add-architecture arm64
apt-get update -q
"${cmd[@]}"
