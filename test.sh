#!/usr/bin/env bash
# Builds and runs every test: ./test.sh
#
# Installs what is missing (./setup.sh --test), builds the Release and Debug trees, then runs:
#   1. the quick suite (ctest label "quick") in Debug: unit, scenario, network and end-to-end tests,
#      including Debug-against-Release determinism;
#   2. the container test (label "container"): the image is built from a clean tree with Podman and
#      run for real, with Debug bots on the host against the Release server inside.
set -euo pipefail
cd "$(dirname "$0")"
start=$SECONDS
./setup.sh --test
./build.sh release debug
echo "== quick tests (Debug)"
ctest --preset debug -j2
echo "== container test"
ctest --test-dir build/debug -L container --output-on-failure
echo "== all tests passed in $((SECONDS - start)) s"
