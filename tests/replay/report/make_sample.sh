#!/usr/bin/env bash
# Builds sample.html from the report template, three.js and sample_report.json, the way
# foothold-replay does (replay/report.cpp, render_report_html): each placeholder is found once in the
# template before anything is inserted, and replaced byte for byte; what goes in is never searched.
#
#   tests/replay/report/make_sample.sh [OUT.html] [REPORT.json]
#
# OUT defaults to sample.html beside this script; REPORT to sample_report.json. THREE_JS overrides
# the path of three.min.js (Debian's libjs-three).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
template=$here/../../../replay/report/viewer.html
out=${1:-$here/sample.html}
json=${2:-$here/sample_report.json}
three=${THREE_JS:-/usr/share/javascript/three/three.min.js}
[ $# -le 2 ] || { echo "usage: $0 [OUT.html] [REPORT.json]" >&2; exit 2; }
for f in "$template" "$json" "$three"; do
  [ -r "$f" ] || { echo "make_sample: cannot read $f" >&2; exit 1; }
done

three_mark='/*@THREE_JS@*/'
json_mark='/*@REPORT_JSON@*/'
# Byte offset of the first occurrence of a fixed string (as std::string::find), and how many there are.
# (No `| head` on a writer that may still be writing: under pipefail its SIGPIPE would fail the script.)
offset_of() { local hits; hits=$(grep -boF -- "$1" "$template"); echo "${hits%%:*}"; }
# Bytes [from, from + count) of the template.
bytes_of() { dd if="$template" iflag=skip_bytes,count_bytes skip="$1" count="$2" bs=65536 status=none; }
count_of() { grep -oF -- "$1" "$template" | wc -l; }
for mark in "$three_mark" "$json_mark"; do
  n=$(count_of "$mark")
  [ "$n" -eq 1 ] || { echo "make_sample: $mark occurs $n times in the template (want 1)" >&2; exit 1; }
done
three_at=$(offset_of "$three_mark")
json_at=$(offset_of "$json_mark")

# Copy the template up to each placeholder, the inserted file, and on after the placeholder.
{
  if [ "$three_at" -lt "$json_at" ]; then
    head -c "$three_at" "$template"
    cat "$three"
    bytes_of "$((three_at + ${#three_mark}))" "$((json_at - three_at - ${#three_mark}))"
    cat "$json"
    tail -c +"$((json_at + ${#json_mark} + 1))" "$template"
  else
    head -c "$json_at" "$template"
    cat "$json"
    bytes_of "$((json_at + ${#json_mark}))" "$((three_at - json_at - ${#json_mark}))"
    cat "$three"
    tail -c +"$((three_at + ${#three_mark} + 1))" "$template"
  fi
} >"$out.tmp"
mv "$out.tmp" "$out"
echo "make_sample: wrote $out ($(stat -c %s "$out") bytes)"
