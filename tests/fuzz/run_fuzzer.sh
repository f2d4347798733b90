#!/usr/bin/env bash
# Runs one libFuzzer target for a bounded time from its seed corpus (read-only, in the repository)
# into a working corpus (in the build tree). Fails on any crash, leak or sanitizer report.
#   run_fuzzer.sh FUZZER SEED_DIR WORK_DIR SECONDS
set -euo pipefail
fuzzer=$1 seeds=$2 work=$3 seconds=$4
mkdir -p "$work"
cd "$work/.."
"$fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 "$work" "$seeds" 2>&1 | tail -25
