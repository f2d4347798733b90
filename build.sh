#!/usr/bin/env bash
# Builds Foothold: ./build.sh [PRESET...]   (default: release)
# Presets (CMakePresets.json): release, debug, asan, fuzz, dist (release binaries only), arm64 (a cross build
# for the cross-arch test; needs ./setup.sh --test), windows (MinGW-w64: foothold-client.dll, the tools as
# .exe and build/windows/foothold-client-VERSION-windows-x86_64.zip; needs ./setup.sh --test). Build trees
# go to build/PRESET.
# ./build.sh deb builds dist and packages it (CPack, cmake/packaging.cmake): build/deb/foothold-server_*.deb,
# libfoothold-client0_*.deb and libfoothold-dev_*.deb, for `apt-get install ./build/deb/*.deb`.
# Installs missing build dependencies first (./setup.sh). Safe to run again: only what changed is rebuilt.
# Every preset compiles through ccache (CMakePresets.json's base presets), with paths taken relative to
# the source folder, so a second clone or worktree on the same machine reuses what the first compiled.
set -euo pipefail
cd "$(dirname "$0")"
./setup.sh >/dev/null
presets=("$@")
[ ${#presets[@]} -gt 0 ] || presets=(release)
for preset in "${presets[@]}"; do
  case "$preset" in
    release | debug | asan | fuzz | dist | arm64 | windows) ;;
    deb)
      echo "== build dist, packaged"
      cmake --preset dist >/dev/null
      cmake --build --preset dist
      rm -rf build/deb
      (cd build/dist && cpack -B "$PWD/../deb" >/dev/null)
      rm -rf build/deb/_CPack_Packages
      ls -1 build/deb/*.deb
      continue ;;
    *) echo "build.sh: unknown preset '$preset' (release, debug, asan, fuzz, dist, arm64, windows, deb)" >&2; exit 2 ;;
  esac
  echo "== build $preset"
  cmake --preset "$preset" >/dev/null
  cmake --build --preset "$preset"
done
