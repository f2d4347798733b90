#!/usr/bin/env bash
# Makes the Unity package's tarball (com.foothold.client-VERSION.tgz) with npm pack, which UPM installs
# from a file or an npm-style registry:
#
#   bindings/unity/pack.sh [--dry-run] OUT_DIR LIBFOOTHOLD_CLIENT_SO [FOOTHOLD_CLIENT_DLL]
#
# The package is assembled in a staging folder, never in the source tree: this folder's files (the
# manifest, the .asmdef, the plugins' .meta files, the sample, the README), the binding's sources
# from bindings/csharp/Foothold (kept once in git, copied into Runtime/Foothold), and the built native
# libraries into Runtime/Plugins/Linux/x86_64 and Runtime/Plugins/Windows/x86_64 (without a DLL the
# package is Linux's only, and says so). Unity wants a .meta file beside every file and folder of an
# immutable package; those the folder does not carry are written with a GUID derived from the path,
# so that every pack gives each asset the same GUID. --dry-run lists the files (npm pack --dry-run).
set -euo pipefail
dry_run=()
[ "${1:-}" = --dry-run ] && { dry_run=(--dry-run); shift; }
[ $# -eq 2 ] || [ $# -eq 3 ] || { echo "usage: $0 [--dry-run] OUT_DIR LIBFOOTHOLD_CLIENT_SO [FOOTHOLD_CLIENT_DLL]" >&2; exit 2; }
out=$1 so=$2 dll=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
command -v npm >/dev/null || { echo "pack: npm is missing (./setup.sh --test installs it)" >&2; exit 2; }
[ -f "$so" ] || { echo "pack: $so is not built" >&2; exit 2; }
[ -z "$dll" ] || [ -f "$dll" ] || { echo "pack: $dll is not built (./build.sh windows)" >&2; exit 2; }
mkdir -p "$out"
out=$(cd "$out" && pwd)

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
pkg=$stage/com.foothold.client
cp -r "$here" "$pkg"
rm -f "$pkg/pack.sh"
mkdir -p "$pkg/Runtime/Foothold"
cp "$src"/bindings/csharp/Foothold/*.cs "$pkg/Runtime/Foothold/"
cp "$src/LICENSE" "$pkg/LICENSE"
cp -L "$so" "$pkg/Runtime/Plugins/Linux/x86_64/libfoothold-client.so"
if [ -n "$dll" ]; then
  cp "$dll" "$pkg/Runtime/Plugins/Windows/x86_64/foothold-client.dll"
else
  rm -r "$pkg/Runtime/Plugins/Windows"
  echo "pack: no foothold-client.dll given: the package has the Linux plugin only" >&2
fi

guid() { printf 'com.foothold.client/%s' "$1" | md5sum | cut -c1-32; }
importer() {  # the importer Unity gives a file of this name
  case "$1" in
    *.cs) printf 'MonoImporter:\n  externalObjects: {}\n  serializedVersion: 2\n  defaultReferences: []\n  executionOrder: 0\n  icon: {instanceID: 0}\n' ;;
    *.asmdef) printf 'AssemblyDefinitionImporter:\n  externalObjects: {}\n' ;;
    *.md | *.json | LICENSE) printf 'TextScriptImporter:\n  externalObjects: {}\n' ;;
    *) printf 'DefaultImporter:\n  externalObjects: {}\n' ;;
  esac
}
# Everything but Samples~ (Unity imports no folder ending in ~; a sample gets its .meta files when a
# project imports it) and the .meta files themselves.
(cd "$pkg" && find . -mindepth 1 -not -path './Samples~*' -not -name '*.meta' | sed 's|^\./||') | while read -r path; do
  meta=$pkg/$path.meta
  [ -f "$meta" ] && continue
  {
    printf 'fileFormatVersion: 2\nguid: %s\n' "$(guid "$path")"
    if [ -d "$pkg/$path" ]; then
      printf 'folderAsset: yes\n'
      importer folder
    else
      importer "$(basename "$path")"
    fi
    printf '  userData:\n  assetBundleName:\n  assetBundleVariant:\n'
  } >"$meta"
done

(cd "$pkg" && npm pack "${dry_run[@]}" --json --pack-destination "$out") >"$out/pack.json"
python3 - "$out/pack.json" <<'PY'
import json, sys
result = json.load(open(sys.argv[1]))[0]
for f in sorted(result["files"], key=lambda f: f["path"]):
    print(f["path"], f["size"])
print("pack: %s, %d files, %d bytes unpacked" % (result["filename"], len(result["files"]), result["unpackedSize"]))
PY
