#!/bin/bash
# server_bench's own flags: a value out of range or not a number is bad usage (exit 2, naming the
# flag and the value), and a good value runs. Usage: server_bench_usage.sh SERVER_BENCH
set -u
bench=$1
fail=0
expect_refused() {  # FLAG TEXT_EXPECTED
  local out rc
  out=$("$bench" "$1" --benchmark_filter=NONE 2>&1)
  rc=$?
  if [[ $rc -ne 2 || "$out" != *"$2"* ]]; then
    echo "FAIL: $1 gave exit $rc and: $out (wanted exit 2 and '$2')"
    fail=1
  fi
}
expect_refused --neighbours=9 "--neighbours takes 0 to 8 characters, not '9'"
expect_refused --neighbours=-1 "--neighbours takes 0 to 8 characters, not '-1'"
expect_refused --neighbours=two "not 'two'"
expect_refused --neighbours= "not ''"
expect_refused --neighbours=99999999999999999999 "not '99999999999999999999'"
expect_refused --round-trip-ms=1001 "--round-trip-ms takes 0 to 1000 milliseconds, not '1001'"
expect_refused --round-trip-ms=5ms "not '5ms'"
# Good values are taken (the filter matches nothing, which Google Benchmark reports and exits 0 on).
if ! out=$("$bench" --neighbours=0 --round-trip-ms=100 --benchmark_filter=NONE 2>&1); then
  echo "FAIL: good flags refused: $out"
  fail=1
fi
[[ $fail -eq 0 ]] && echo "server_bench's flags: bad values refused with exit 2, good ones taken"
exit $fail
