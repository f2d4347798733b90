#!/usr/bin/env bash
# Builds and runs every test: ./test.sh
# Installs what is missing (./setup.sh --test), builds the Release and Debug trees, and runs the
# quick suite (ctest label "quick") in Debug, which also checks that Debug and Release agree bit for bit.
set -euo pipefail
cd "$(dirname "$0")"
start=$SECONDS
./setup.sh --test
./build.sh release debug
echo "== quick tests (Debug)"
ctest --preset debug -j2
echo "== all tests passed in $((SECONDS - start)) s"
