#!/usr/bin/env bash
# Static checks of docker/Dockerfile (quick suite; no container engine needed):
#  1. every COPY source (outside --from stages) exists in the build context (the repository root),
#     and every folder the top-level CMakeLists.txt always adds (add_subdirectory outside an if) is
#     copied;
#  2. the runtime stage installs the Debian package of every shared library the binaries link
#     (ldd, resolved with dpkg -S), apart from those every Debian image has;
#  3. the OCI labels are there, the version's default the project's version.
#   check_dockerfile.sh REPO_ROOT BINARY...
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 REPO_ROOT BINARY..." >&2; exit 2; }
root=$1
shift
dockerfile=$root/docker/Dockerfile
[ -f "$dockerfile" ] || { echo "check_dockerfile: $dockerfile is missing" >&2; exit 1; }
status=0

# Joined logical lines (continuations folded).
logical=$(sed -e ':a' -e '/\\$/N; s/\\\n/ /; ta' "$dockerfile")

# 1. COPY sources.
while read -r line; do
  # shellcheck disable=SC2206 # word splitting of the instruction is the point
  words=($line)
  [ ${#words[@]} -gt 0 ] || continue
  [ "${words[0]^^}" = COPY ] || continue
  args=()
  for w in "${words[@]:1}"; do
    case "$w" in --from=*) continue 2 ;; --*) ;; *) args+=("$w") ;; esac
  done
  n=${#args[@]}
  for src in "${args[@]:0:n-1}"; do
    if [ ! -e "$root/$src" ]; then
      echo "check_dockerfile: COPY source '$src' does not exist in the build context" >&2
      status=1
    else
      echo "COPY source $src: present"
    fi
  done
done <<<"$logical"

# Every folder the build always needs is in the image (tests/ is built only with FOOTHOLD_TESTS, and
# examples/ is copied anyway: the conditional ones are not required).
copied=" $(grep -E '^COPY ' <<<"$logical" | grep -v -- '--from=' | awk '{for (i = 2; i < NF; i++) printf "%s ", $i}') "
while read -r folder; do
  [ -n "$folder" ] || continue
  if [[ "$copied" != *" $folder "* ]]; then
    echo "check_dockerfile: the build adds $folder/ (CMakeLists.txt), but the Dockerfile does not COPY it" >&2
    status=1
  fi
done < <(awk '/^[[:space:]]*if[[:space:]]*\(/ {depth++} /^[[:space:]]*endif[[:space:]]*\(/ {depth--}
              depth == 0 && /^add_subdirectory\(/ {gsub(/^add_subdirectory\(|\).*$/, ""); print}' "$root/CMakeLists.txt")

# The image installs as a user does: cmake --install, and the runtime stage copies the installed
# prefix, never paths inside a build tree.
grep -q 'cmake --install' <<<"$logical" || { echo "check_dockerfile: the build stage does not run cmake --install" >&2; status=1; }
if grep -qE '^COPY --from=[^ ]+ [^ ]*/build/' <<<"$logical"; then
  echo "check_dockerfile: the runtime stage copies from a build tree, not from the installed prefix" >&2
  status=1
fi

# The image's version label defaults to the project's version, the one source (#40).
project_version=$(sed -n 's/^project(foothold VERSION \([0-9.]*\).*/\1/p' "$root/CMakeLists.txt")
label_default=$(sed -n 's/^ARG FOOTHOLD_VERSION=//p' "$dockerfile")
if [ -z "$project_version" ] || [ "$label_default" != "$project_version" ]; then
  echo "check_dockerfile: ARG FOOTHOLD_VERSION=$label_default is not the project's version '$project_version'" >&2
  status=1
fi
for label in version revision source licenses; do
  grep -q "org.opencontainers.image.$label=" "$dockerfile" ||
    { echo "check_dockerfile: no org.opencontainers.image.$label label" >&2; status=1; }
done

# 2. Runtime packages: the apt-get install list of the last stage.
runtime=$(awk '/^FROM /{stage=$0; buf=""} {buf=buf"\n"$0} END{print buf}' <<<"$logical")
installed=$(grep -o 'apt-get install [^&]*' <<<"$runtime" | tr ' ' '\n' | grep -v -e '^apt-get$' -e '^install$' -e '^-' -e '^$' || true)
[ -n "$installed" ] || { echo "check_dockerfile: the runtime stage installs no package" >&2; exit 1; }
base="libc6 libgcc-s1 libstdc++6"
needed=()
for bin in "$@"; do
  [ -x "$bin" ] || { echo "check_dockerfile: $bin is not an executable" >&2; exit 1; }
  while read -r lib; do
    [ -n "$lib" ] || continue
    pkg=$(dpkg -S "$lib" 2>/dev/null | head -1 | cut -d: -f1 || true)
    [ -n "$pkg" ] || pkg=$(dpkg -S "$(readlink -f "$lib")" 2>/dev/null | head -1 | cut -d: -f1 || true)
    [ -n "$pkg" ] || { echo "check_dockerfile: no Debian package owns $lib (needed by $bin)" >&2; status=1; continue; }
    needed+=("$pkg:$lib:$(basename "$bin")")
  done < <(ldd "$bin" | awk '/=> \// {print $3}')
done
for entry in $(printf '%s\n' "${needed[@]}" | sort -u); do
  pkg=${entry%%:*}
  rest=${entry#*:}
  if grep -qx "$pkg" <<<"$installed" || grep -qw "$pkg" <<<"$base"; then
    echo "runtime library ${rest%%:*} (${rest#*:}): package $pkg installed"
  else
    echo "check_dockerfile: the runtime stage lacks package $pkg for ${rest%%:*} (needed by ${rest#*:})" >&2
    status=1
  fi
done
exit $status
