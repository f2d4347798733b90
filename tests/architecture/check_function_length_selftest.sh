#!/usr/bin/env bash
# The function-length check must catch what it is there to catch, and only that: on a copy of the
# product's folders, the untouched copy must pass; a function of 101 lines, appended, must fail it
# (named by file, line and name) and one of 100 lines must not (the boundary); and each case below,
# made one at a time, must pass or fail as it says.
#   check_function_length_selftest.sh SOURCE_DIR
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: $0 SOURCE_DIR" >&2; exit 2; }
root=$1
check=$(dirname "$0")/check_function_length.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fresh() {
  rm -rf "$work/copy"
  mkdir -p "$work/copy"
  cp -r "$root/shared" "$root/proto" "$root/client" "$root/replay" "$root/server" "$root/bots" "$root/follow" "$root/nav" "$work/copy/"
}
# A function of $2 lines from its opening brace to its closing one, both counted. $3 goes on its
# first line inside the body (empty: a plain statement), $4 on the line above it.
function_of() {
  local name=$1 lines=$2 first=${3:-"  x += 0;"} above=${4:-}
  [ -n "$above" ] && printf '%s\n' "$above"
  printf 'int %s(int x) {\n%s\n' "$name" "$first"
  for ((i = 0; i < lines - 4; ++i)); do printf '  x += %d;\n' "$i"; done
  printf '  return x;\n}\n'
}
# Appends $2 to file $1 of a fresh copy; the check must then exit with $3 (0 passes, 1 fails) and,
# when $5 is given, say what matches it (so that a case fails for its own reason).
expect() {
  local file=$1 text=$2 want=$3 what=$4 says=${5:-} got=0
  fresh
  printf '\n%s\n' "$text" >>"$work/copy/$file"
  "$check" "$work/copy" >"$work/out" 2>&1 || got=$?
  if [ "$got" -ne "$want" ]; then
    echo "selftest: $what: the check exited $got, not $want" >&2
    sed 's/^/  /' "$work/out" >&2
    exit 1
  fi
  if [ -n "$says" ] && ! grep -qE "$says" "$work/out"; then
    echo "selftest: $what: the check does not say /$says/:" >&2
    sed 's/^/  /' "$work/out" >&2
    exit 1
  fi
  echo "$([ "$want" -eq 0 ] && echo passes || echo fails): $what"
}

fresh
"$check" "$work/copy" >"$work/out" 2>&1 || {
  echo "selftest: the untouched copy fails the check:" >&2
  sed 's/^/  /' "$work/out" >&2
  exit 1
}

# The boundary, and the report naming the function where it starts.
lines_before=$(wc -l <"$root/replay/report.cpp")
expect replay/report.cpp "$(function_of selftest_long 101)" 1 'a 101-line function' \
  "replay/report.cpp:$((lines_before + 2)): selftest_long is 101 lines"
expect replay/report.cpp "$(function_of selftest_long 100)" 0 'a 100-line function'

# Where functions are, and what is not one.
expect bots/bot_fleet.h "namespace selftest {
struct Holder {
$(function_of member 101)
};
}  // namespace selftest" 1 'a 101-line member function defined in a class in a header' \
  'bots/bot_fleet.h:[0-9]+: member is 101 lines'
expect shared/geometry.cpp "$(function_of with_lambda 101 '  auto f = [&](int y) { return y + x; };')" 1 \
  'a 101-line function around a lambda' 'with_lambda is 101 lines'
expect server/server_core.cpp "$(function_of braces_in_text 101 '  const char* s = "}}}"; char c = '"'}'"'; x += 100'"'"'000;  // }}')" 1 \
  'a 101-line function with braces in strings, characters and comments and a digit separator' \
  'braces_in_text is 101 lines'
expect client/session.cpp "const int kTable[] = {
$(for ((i = 0; i < 150; ++i)); do printf '  %d,\n' "$i"; done)
};" 0 'a 150-line initializer (not a function)'
expect proto/codec.cpp "$(function_of explained 101 '' '// long-function: one case analysis whose branches share their state.')" 0 \
  'a 101-line function that says why it is whole above it'
expect proto/codec.cpp "$(function_of explained_inside 101 '  // long-function: one case analysis whose branches share their state.')" 0 \
  'a 101-line function that says why it is whole in its first lines'
expect proto/codec.cpp "$(function_of unexplained 101 '' '// long-function:')" 1 \
  'a 101-line function with the marker but no reason' 'unexplained is 101 lines'
expect replay/trace_diff.cpp "$(function_of unclosed 20)
int broken(int x) {" 1 'a file that ends inside a function (misread, not passed)' \
  'replay/trace_diff.cpp:[0-9]+: the file ends inside'
