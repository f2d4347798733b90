#!/usr/bin/env bash
# Opens a desync report (foothold-replay diff/view --html) in headless Chromium from file://, with the
# network off, and runs the page's own self-test (URL hash #selftest): the WebGL canvas is drawn, the
# scrubber moves the capsule, every parting tick shows on its lane, no request, no error. Also fails
# on any uncaught error or console.error in Chromium's log, and on any request the page made (net log).
#
#   tests/replay/report/check_report.sh REPORT.html [SCREENSHOT.png]
#
# SCREENSHOT: a second run saves the page at 1280x800 there. Exit 0 when every check passes, 1 when
# one fails, 2 on bad usage, 77 when Chromium is not installed (ctest's SKIP_RETURN_CODE).
set -euo pipefail
[ $# -ge 1 ] && [ $# -le 2 ] || { echo "usage: $0 REPORT.html [SCREENSHOT.png]" >&2; exit 2; }
[ -r "$1" ] || { echo "check_report: cannot read $1" >&2; exit 2; }
report=$(realpath "$1")
shot=${2:+$(realpath -m "$2")}
browser=$(command -v chromium || command -v chromium-browser || true)
[ -n "$browser" ] || { echo "check_report: skipped: chromium is not installed" >&2; exit 77; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "check_report: FAIL $*" >&2; exit 1; }
# Milliseconds since the epoch (bash 5, no bc needed), and seconds since a start in ms as "1.2".
now_ms() { local t=${EPOCHREALTIME/[.,]/}; echo $((t / 1000)); }
since() { local d=$(($(now_ms) - $1)); printf '%d.%d' $((d / 1000)) $((d % 1000 / 100)); }

# SwiftShader (software WebGL through ANGLE) works with no GPU and no display. Every name lookup
# fails; background services are mostly off, and what Chromium still asks for itself has no page as
# its site in the net log, so it is told apart from the page's own requests.
flags=(--headless=new --no-sandbox --disable-gpu --use-angle=swiftshader --enable-unsafe-swiftshader
       --no-first-run --no-default-browser-check --disable-background-networking --disable-component-update
       --disable-sync --disable-extensions --disable-default-apps --host-resolver-rules="MAP * ~NOTFOUND"
       --enable-logging=stderr --v=0 --virtual-time-budget=10000)

# Lines of Chromium's log that are errors of the page: uncaught exceptions, console.error (the page
# prefixes it with [error], as Chromium logs every console level alike), WebGL errors.
page_errors() { grep -E ':CONSOLE[:(]' "$1" | grep -E 'Uncaught|\[error\]|WebGL: |GL_INVALID' || true; }

# Requests made on the page's behalf: the net log tags them with the file:// page as their site.
page_requests() { grep -E '"network_isolation_key":"file://|site=file://' "$1" | grep -o '"url":"[^"]*"' | sort -u || true; }

start=$(now_ms)
rc=0
timeout 60 "$browser" "${flags[@]}" --user-data-dir="$work/profile" --window-size=1280,800 --log-net-log="$work/net.json" \
  --dump-dom "file://$report#selftest" >"$work/dom.html" 2>"$work/log.txt" || rc=$?
[ "$rc" -ne 124 ] || fail "chromium did not finish within 60 s"
[ "$rc" -eq 0 ] || { tail -n 20 "$work/log.txt" >&2; fail "chromium exited with $rc"; }
echo "check_report: self-test run took $(since "$start") s"

# The text of the page's <pre id="selftest"> element, HTML entities undone.
result=$(awk '!found { i = index($0, "<pre id=\"selftest\">"); if (!i) next; found = 1; $0 = substr($0, i + 19) }
              found { j = index($0, "</pre>"); if (j) { print substr($0, 1, j - 1); exit } print }' "$work/dom.html" |
         sed -e 's/&lt;/</g' -e 's/&gt;/>/g' -e 's/&nbsp;/ /g' -e 's/&amp;/\&/g')
[ -n "$result" ] || fail "the page wrote no self-test result (did its script run?)"

passed=0 failed=0
while IFS= read -r line; do
  if [[ $line =~ ^\{\"name\":\"(.*)\",\"ok\":(true|false),\"detail\":\"(.*)\"\},?$ ]]; then
    if [ "${BASH_REMATCH[2]}" = true ]; then
      passed=$((passed + 1)); echo "  PASS ${BASH_REMATCH[1]}: ${BASH_REMATCH[3]}"
    else
      failed=$((failed + 1)); echo "  FAIL ${BASH_REMATCH[1]}: ${BASH_REMATCH[3]}"
    fi
  fi
done <<<"$result"
# Errors before the self-test could run come as {"ok":false,"errors":[...],"checks":[]}.
if [[ $result == *'"errors":'* ]]; then
  failed=$((failed + 1)); echo "  FAIL page error: $result"
fi

errors=$(page_errors "$work/log.txt")
if [ -n "$errors" ]; then
  failed=$((failed + 1)); echo "  FAIL console errors:"; echo "$errors" | sed 's/^/    /'
else
  passed=$((passed + 1)); echo "  PASS no console error in Chromium's log"
fi
requests=$(page_requests "$work/net.json")
if [ ! -s "$work/net.json" ]; then
  failed=$((failed + 1)); echo "  FAIL chromium wrote no net log"
elif [ -n "$requests" ]; then
  failed=$((failed + 1)); echo "  FAIL the page made requests:"; echo "$requests" | sed 's/^/    /'
else
  passed=$((passed + 1)); echo "  PASS no request in the net log"
fi
[[ $result == '{"ok":true'* ]] || [ "$failed" -gt 0 ] || { failed=$((failed + 1)); echo "  FAIL the self-test says not ok"; }

if [ -n "$shot" ]; then
  start=$(now_ms)
  rm -f "$shot"
  rc=0
  timeout 60 "$browser" "${flags[@]}" --user-data-dir="$work/profile2" --window-size=1280,800 \
    --screenshot="$shot" "file://$report" >/dev/null 2>"$work/log2.txt" || rc=$?
  errors=$(page_errors "$work/log2.txt")
  if [ "$rc" -ne 0 ] || [ ! -s "$shot" ] || [ -n "$errors" ]; then
    failed=$((failed + 1)); echo "  FAIL screenshot (exit $rc): $errors"
  else
    passed=$((passed + 1))
    echo "  PASS screenshot $shot ($(stat -c %s "$shot") bytes, $(since "$start") s)"
  fi
fi

echo "check_report: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
