#!/usr/bin/env bash
# Builds Foothold: ./build.sh [PRESET...]   (default: release)
# Presets (CMakePresets.json): release, debug, asan, fuzz, dist (release binaries only), arm64 (a cross build
# for the cross-arch test; needs ./setup.sh --test). Build trees go to build/PRESET.
# Installs missing build dependencies first (./setup.sh). Safe to run again: only what changed is rebuilt.
set -euo pipefail
cd "$(dirname "$0")"
./setup.sh >/dev/null
presets=("$@")
[ ${#presets[@]} -gt 0 ] || presets=(release)
for preset in "${presets[@]}"; do
  case "$preset" in
    release | debug | asan | fuzz | dist | arm64) ;;
    *) echo "build.sh: unknown preset '$preset' (release, debug, asan, fuzz, dist, arm64)" >&2; exit 2 ;;
  esac
  echo "== build $preset"
  cmake --preset "$preset" >/dev/null
  cmake --build --preset "$preset"
done
