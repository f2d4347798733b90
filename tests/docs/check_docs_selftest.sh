#!/usr/bin/env bash
# The docs check must catch what it is for: a citation of a missing section, a citation of an old
# design document, a figure that is not what the script draws, a name of a docs/ file that does not
# exist, and a tutorial quote that the example game no longer has.
#   check_docs_selftest.sh SOURCE_DIR
set -euo pipefail
src=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
copy() {
  rm -rf "$work/src" && mkdir -p "$work/src"
  cp -r "$src/docs" "$src/shared" "$src/README.md" "$src/ARCHITECTURE.md" "$work/src/"
  mkdir -p "$work/src/server" "$work/src/proto" "$work/src/replay" "$work/src/tests" "$work/src/examples"
  cp -r "$src/examples/hill_game" "$work/src/examples/"
}
expect_failure() {  # expect_failure WHAT
  if "$src/tests/docs/check_docs.sh" "$work/src" >/dev/null 2>&1; then
    echo "check_docs_selftest: the check passed although $1" >&2
    exit 1
  fi
}
copy
"$src/tests/docs/check_docs.sh" "$work/src" >/dev/null || { echo "check_docs_selftest: the clean copy fails" >&2; exit 1; }
echo '// see movement.md §99.1' >>"$work/src/shared/step.cpp"
expect_failure "a comment cites a missing section"
copy
echo '// (design doc 003)' >>"$work/src/shared/step.cpp"
expect_failure "a comment cites an old design document"
copy
sed -i 's/#c33/#c34/' "$work/src/docs/figures/lock.svg"
expect_failure "a figure was edited by hand"
copy
echo '# how to run it: docs/running.md' >>"$work/src/README.md"
expect_failure "the README names a page that does not exist"
copy
sed -i 's/kKnockback = 7;/kKnockback = 8;/' "$work/src/examples/hill_game/hill_game.cpp"
expect_failure "the example game changed under a tutorial quote"
echo "check_docs_selftest: every planted fault is caught"
