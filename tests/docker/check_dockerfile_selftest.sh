#!/usr/bin/env bash
# The static check must fail when the runtime stage misses a package or a COPY source is absent:
# it runs on doctored copies of the Dockerfile.
#   check_dockerfile_selftest.sh REPO_ROOT BINARY
set -euo pipefail
root=$1
bin=$2
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
make_root() {  # a copy of the build context's top level (links), with a doctored Dockerfile
  local dir=$work/$1
  mkdir -p "$dir/docker"
  for f in "$root"/*; do ln -s "$f" "$dir/$(basename "$f")" 2>/dev/null || true; done
  rm -f "$dir/docker"
  mkdir -p "$dir/docker"
  echo "$dir"
}
missing_pkg=$(make_root missing-package)
sed 's/ libsodium23 / /' "$root/docker/Dockerfile" >"$missing_pkg/docker/Dockerfile"
if "$here/check_dockerfile.sh" "$missing_pkg" "$bin" >"$work/out1" 2>&1; then
  echo "selftest: a runtime stage without libsodium23 passed the check" >&2
  exit 1
fi
grep -q "lacks package libsodium23" "$work/out1" || { cat "$work/out1" >&2; exit 1; }
missing_src=$(make_root missing-source)
sed 's/^COPY server .\/server$/COPY servers .\/server/' "$root/docker/Dockerfile" >"$missing_src/docker/Dockerfile"
if "$here/check_dockerfile.sh" "$missing_src" "$bin" >"$work/out2" 2>&1; then
  echo "selftest: a COPY of a missing source passed the check" >&2
  exit 1
fi
grep -q "COPY source 'servers' does not exist" "$work/out2" || { cat "$work/out2" >&2; exit 1; }
missing_folder=$(make_root missing-folder)
sed '/^COPY bots .\/bots$/d' "$root/docker/Dockerfile" >"$missing_folder/docker/Dockerfile"
if "$here/check_dockerfile.sh" "$missing_folder" "$bin" >"$work/out3" 2>&1; then
  echo "selftest: a Dockerfile that does not copy bots/, which the build adds, passed the check" >&2
  exit 1
fi
grep -q "the build adds bots/" "$work/out3" || { cat "$work/out3" >&2; exit 1; }
echo "selftest: the check catches a missing runtime package, a missing COPY source and a folder the build needs"
