#!/usr/bin/env bash
# Installs the Debian 12 packages Foothold needs, and nothing that is already there.
#   ./setup.sh          what building and running needs
#   ./setup.sh --test   also what the full test run needs (clang for fuzzing, podman for the container test,
#                       SDL2, OpenGL and Xvfb for foothold-play and its headless test, Chromium for the
#                       HTML report test, MkDocs and Doxygen for the documentation site and API reference,
#                       the arm64 cross compiler, arm64 libraries and qemu-user for the cross-arch test,
#                       MinGW-w64 and Wine for the Windows build and its cross-os test)
# It also unpacks Debian's own sources of Bullet and libsodium (the versions installed) under
# /usr/src/foothold: the client's shared library compiles them in, position-independent, so that a
# game ships it alone (Debian packages neither as a static library it could link into one).
# Idempotent: a second run installs and fetches nothing. As root it runs apt-get itself; otherwise
# it prints the exact command to run and exits 1.
set -euo pipefail

build_packages=(
  build-essential cmake pkg-config git ca-certificates ccache
  libbullet-dev libasio-dev libflatbuffers-dev flatbuffers-compiler libspdlog-dev
  libcli11-dev libtinyobjloader-dev libtinygltf-dev libtomlplusplus-dev libsodium-dev
  libgtest-dev libgmock-dev libbenchmark-dev libjs-three libstb-dev nlohmann-json3-dev dpkg-dev
  libcpp-httplib-dev libssl-dev zlib1g-dev libbrotli-dev librecast-dev
)
# Debian source package: the binary package whose installed version names it.
source_packages=(bullet:libbullet-dev libsodium:libsodium-dev)
src_root=/usr/src/foothold
test_packages=(
  clang libclang-rt-14-dev prometheus python3-jsonschema python3-yaml
  podman runc debootstrap uidmap iproute2 procps
  g++-aarch64-linux-gnu qemu-user file
  g++-mingw-w64-x86-64-posix wine64 mono-mcs mono-runtime npm
  libsdl2-dev libgl-dev libgl1-mesa-dri xvfb xauth chromium mkdocs doxygen
  libbullet-dev:arm64 libflatbuffers-dev:arm64 libspdlog-dev:arm64 libtinyobjloader-dev:arm64 libtinygltf-dev:arm64
  libtomlplusplus-dev:arm64 libsodium-dev:arm64 libgtest-dev:arm64 libgmock-dev:arm64 libcpp-httplib-dev:arm64
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
    # npm (bindings/unity/pack.sh): a machine whose Node.js comes from elsewhere (NodeSource's
    # nodejs package carries npm and conflicts with Debian's) has it without the package.
    [ "$p" = npm ] && command -v npm >/dev/null && continue
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -gt 0 ]; then
  cmd=(apt-get install -y --no-install-recommends "${missing[@]}")
  # arm64 packages (the cross-arch test) need dpkg to know the architecture first.
  needs_arm64=
  if [[ " ${missing[*]}" == *":arm64"* ]] && ! dpkg --print-foreign-architectures | grep -qx arm64; then
    needs_arm64=yes
  fi
  if [ "$(id -u)" -ne 0 ]; then
    echo "setup: missing packages: ${missing[*]}" >&2
    echo "setup: run as root:  ${needs_arm64:+dpkg --add-architecture arm64 && }apt-get update && ${cmd[*]}" >&2
    echo "setup: then run $0 again as root (it fetches Debian's sources of Bullet and libsodium)" >&2
    exit 1
  fi
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  [ -z "$needs_arm64" ] || dpkg --add-architecture arm64
  apt-get update -q
  "${cmd[@]}"
else
  echo "setup: all ${#want[@]} packages are installed"
fi

# The sources: /usr/src/foothold/NAME_VERSION, unpacked and patched by dpkg-source as Debian builds
# them, and /usr/src/foothold/NAME linking to the one of the version installed.
arch=$(dpkg --print-architecture)
for entry in "${source_packages[@]}"; do
  name=${entry%%:*} binary=${entry#*:}
  version=$(dpkg-query -W -f='${source:Version}' "$binary:$arch")
  dir=$src_root/${name}_$version
  if [ ! -f "$dir/.complete" ]; then
    if [ "$(id -u)" -ne 0 ]; then
      echo "setup: Debian's source of $name $version is not in $src_root: run $0 as root to fetch it" >&2
      exit 1
    fi
    echo "setup: fetching Debian's source of $name $version"
    # Its own package lists, in a scratch directory: the system's apt configuration is left as it was.
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
    . /etc/os-release
    printf 'Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: %s\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
      "$VERSION_CODENAME" >"$work/src.sources"
    apt_src=(-o Dir::Etc::sourcelist="$work/src.sources" -o Dir::Etc::sourceparts=- -o Dir::State::Lists="$work/lists"
             -o APT::Sandbox::User=root)
    mkdir -p "$work/lists/partial" "$work/get"
    apt-get "${apt_src[@]}" update -q >/dev/null
    (cd "$work/get" && apt-get "${apt_src[@]}" source -q "$name=$version" >/dev/null)
    unpacked=$(find "$work/get" -mindepth 1 -maxdepth 1 -type d)
    [ -n "$unpacked" ] || { echo "setup: apt-get source $name=$version unpacked nothing" >&2; exit 1; }
    mkdir -p "$src_root"
    rm -rf "$dir"
    mv "$unpacked" "$dir"
    touch "$dir/.complete"
    rm -rf "$work"
    trap - EXIT
  fi
  [ "$(readlink "$src_root/$name" 2>/dev/null)" = "${name}_$version" ] || ln -sfn "${name}_$version" "$src_root/$name"
done
