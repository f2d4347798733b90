#!/usr/bin/env bash
# The main job on the embedded default: ./demo.sh
# Builds what is missing, then runs a character through a tour of the embedded arena (stairs, the
# ledge, slopes, walls) and prints what it did. The trace is written to out/demo-trace.csv.
set -euo pipefail
cd "$(dirname "$0")"
./build.sh release >/dev/null
mkdir -p out
cat >out/demo-inputs.txt <<'SCRIPT'
# TICKS MOVE_X MOVE_Z BUTTONS: land, climb the stairs to the ledge, walk off it, jump along the walls
30 0 0 -
120 1 0 -
60 0 1 -
1 0 1 jump
90 0.3 1 -
SCRIPT
build/release/replay/foothold-replay run --world arena --spawn -30,2,-14 --inputs out/demo-inputs.txt --out out/demo-trace.csv
