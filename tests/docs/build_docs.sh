#!/usr/bin/env bash
# Builds the documentation into a build tree, never the source tree:
#   build_docs.sh site SOURCE_DIR OUT_DIR   the MkDocs site (mkdocs.yml) into OUT_DIR/site, strict: a broken
#                                           link, a page missing from the nav or a nav entry with no page fails;
#                                           then checks that no page fetches anything (no script, style or image
#                                           from another host) and that every link to a heading finds it
#   build_docs.sh api SOURCE_DIR OUT_DIR    the API reference (docs/Doxyfile) into OUT_DIR/doxygen/html;
#                                           an undocumented public declaration fails it (WARN_AS_ERROR)
#   build_docs.sh all SOURCE_DIR OUT_DIR    both, the reference inside the site (OUT_DIR/site/doxygen/html),
#                                           where the site's API reference page links to it
# Exit 0 when built, 1 when a check fails, 2 for bad usage, 77 (skipped) when mkdocs or doxygen is not
# installed (./setup.sh --test installs both).
set -euo pipefail
[ $# -eq 3 ] || { echo "usage: $0 site|api|all SOURCE_DIR OUT_DIR" >&2; exit 2; }
what=$1 src=$(cd "$2" && pwd) out=$3
mkdir -p "$out"
out=$(cd "$out" && pwd)

need() {
  command -v "$1" >/dev/null || { echo "build_docs: $1 is not installed (./setup.sh --test installs it); skipped" >&2; exit 77; }
}

build_site() {
  need mkdocs
  local site=$out/site
  mkdocs build --quiet --strict --config-file "$src/mkdocs.yml" --site-dir "$site"
  local failed=0
  # Nothing fetched: no script, stylesheet or image from elsewhere (links to other sites are fine).
  local fetches
  if fetches=$(grep -noE '<(script|img)[^>]* src="(https?:)?//[^"]*"|<link[^>]* href="(https?:)?//[^"]*"' "$site"/*.html); then
    echo "build_docs: pages that would fetch from another host:"$'\n'"$fetches" >&2
    failed=1
  fi
  # Links to a heading of a page (page.html#id) find that heading: MkDocs checks pages, not anchors.
  local page href target id
  for page in "$site"/*.html; do
    while IFS= read -r href; do
      target=${href%%#*} id=${href#*#}
      [ -n "$target" ] || target=$(basename "$page")
      [ -f "$site/$target" ] || continue  # a page link MkDocs already checked, or the API reference
      grep -q "id=\"$id\"" "$site/$target" ||
        { echo "build_docs: $(basename "$page") links to $target#$id, which has no such heading" >&2; failed=1; }
    done < <(grep -oE 'href="[a-z0-9_-]*\.html#[^"]+"|href="#[^"]+"' "$page" | sed -E 's/^href="//; s/"$//' | sort -u)
  done
  [ "$failed" -eq 0 ] || exit 1
  echo "build_docs: the site, $(find "$site" -maxdepth 1 -name '*.html' | wc -l) pages: $site/index.html"
}

build_api() {
  need doxygen
  local dir=$1
  mkdir -p "$dir"
  # The Doxyfile's paths are the repository's; only the output goes elsewhere.
  (cd "$src" && { cat docs/Doxyfile; echo "OUTPUT_DIRECTORY = $dir"; } | doxygen -)
  echo "build_docs: the API reference: $dir/html/index.html"
}

case "$what" in
  site) build_site ;;
  api) build_api "$out/doxygen" ;;
  all) build_site && build_api "$out/site/doxygen" ;;
  *) echo "usage: $0 site|api|all SOURCE_DIR OUT_DIR" >&2; exit 2 ;;
esac
