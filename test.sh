#!/usr/bin/env bash
# Builds and runs every test: ./test.sh
#
# Installs what is missing (./setup.sh --test), builds the Debug, ASan, fuzz, arm64 and Windows trees and the
# Release foothold-replay (the Debug tests compare against it bit for bit), then:
#   1. the quick suite (ctest label "quick") in Debug: unit, scenario, network and end-to-end tests,
#      including Debug-against-Release determinism;
#   2. the quick suite again under AddressSanitizer and UndefinedBehaviorSanitizer (build/asan);
#   3. every fuzz target for FOOTHOLD_FUZZ_SECONDS (default 60) each (label "fuzz", build/fuzz), and
#      the clang-built foothold-replay against the GCC Release one, bit for bit;
#   4. the cross-architecture test (label "cross-arch"): the arm64 cross build, run under qemu-user,
#      against this machine's Debug build, byte for byte (hashes, scenario traces, a stress walk, a
#      recorded session re-simulated, arm64 bots playing against the x86-64 server);
#   5. the cross-OS test (label "cross-os"): the Windows build (MinGW-w64), run under Wine, against
#      this machine's Debug build, byte for byte (scripts, the scenario suite, recordings both ways),
#      Windows bots and the C example against the Linux server, the DLL's exports and imports;
#   5b. the C# test (label "csharp"): the binding and the Unity package built with Mono's mcs, run
#      against real servers on loopback (layouts, entry points, a walk, echoed messages, events,
#      attributes, end reasons, no allocation per frame);
#   6. the container test (label "container"): the image is built from a clean tree with Podman and
#      run for real, with Debug bots on the host against the Release server inside.
# The soak suite (label "soak", 10+ minutes) is not part of this run: ctest --preset soak.
set -euo pipefail
cd "$(dirname "$0")"
start=$SECONDS
phase() { echo "== $1 ($((SECONDS - start)) s)"; }
./setup.sh --test
phase "build"
./build.sh debug asan fuzz arm64 windows
cmake --preset release >/dev/null
cmake --build --preset release --target foothold-replay
phase "quick tests (Debug)"
ctest --preset debug -j2
phase "quick tests under ASan and UBSan"
ctest --preset asan -j2
phase "fuzzing (${FOOTHOLD_FUZZ_SECONDS:-60} s per target)"
cmake --preset fuzz -DFOOTHOLD_FUZZ_SECONDS="${FOOTHOLD_FUZZ_SECONDS:-60}" >/dev/null
ctest --test-dir build/fuzz -L fuzz -j2 --output-on-failure
phase "cross-architecture test (arm64 under qemu-user)"
ctest --test-dir build/debug -L cross-arch --output-on-failure
phase "cross-OS test (Windows under Wine)"
ctest --test-dir build/debug -L cross-os --output-on-failure
phase "C# binding and Unity package (Mono)"
ctest --test-dir build/debug -L csharp --output-on-failure
phase "container test"
ctest --test-dir build/debug -L container --verbose
phase "all tests passed"
