#!/usr/bin/env bash
# The committed test levels are make_levels.py's output: written again into a scratch folder, they
# are the same bytes.
#   check_levels.sh PYTHON3
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$1" "$here/make_levels.py" "$work"
for level in rooms corridor platform; do
  cmp "$work/$level.gltf" "$here/$level.gltf" ||
    { echo "check_levels: $level.gltf is not make_levels.py's output: run python3 make_levels.py in tests/nav/levels" >&2; exit 1; }
done
echo "check_levels: rooms.gltf, corridor.gltf and platform.gltf are make_levels.py's output"
