#!/usr/bin/env bash
# Keeps ARCHITECTURE.md's target table true (quick suite):
#  1. every #include "folder/..." in the product's folders (the targets: shared/, shared/formats/,
#     shared/workers/, client/, proto/, replay/, server/, games/, bots/, follow/, nav/) is one the table allows for that folder
#     (or, when the table names it, for that file): a target includes only the headers of the targets
#     it links;
#  2. the simulation (shared/) and the path follower (follow/, which decides inputs) include nothing
#     that reads a clock, a socket, a thread, randomness or a logger;
#  3. neither calls a libm function: the transcendentals' last bit differs between machines, and the
#     exact ones (floor, fmin, llround) have inline equivalents in shared/det_math.h
#     (tests/determinism/no_libm.sh checks the compiled simulation too).
#   check_architecture.sh REPO_ROOT
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: $0 REPO_ROOT" >&2; exit 2; }
root=$1
doc=$root/ARCHITECTURE.md
[ -f "$doc" ] || { echo "check_architecture: $doc is missing" >&2; exit 1; }

# The table: the text block after the may-use marker.
table=$(awk '/<!-- may-use/ {found = 1; next} found && /^```text/ {inside = 1; next} inside && /^```/ {exit} inside {print}' "$doc")
[ -n "$table" ] || { echo "check_architecture: no may-use table in $doc" >&2; exit 1; }
declare -A allowed
while IFS=: read -r who uses; do
  allowed[$who]=" $uses "
done <<<"$table"

status=0
checked=0
for folder in shared shared/formats shared/workers client proto replay server games bots follow nav; do
  [ -n "${allowed[$folder]:-}" ] || { echo "check_architecture: the table has no line for $folder/" >&2; status=1; continue; }
  for file in "$root/$folder"/*.h "$root/$folder"/*.cpp; do
    [ -f "$file" ] || continue
    rel=${file#"$root"/}
    rule=${allowed[$rel]:-${allowed[$folder]}}
    while IFS=: read -r line target; do
      dep=${target%/*}  # the folder of the header: one target
      checked=$((checked + 1))
      if [[ "$rule" != *" $dep "* ]]; then
        echo "check_architecture: $rel:$line includes \"$target\", but ARCHITECTURE.md lets it use only:$rule" >&2
        status=1
      fi
    done < <(grep -n '^#include "' "$file" | sed -E 's/^([0-9]+):#include "([^"]*)".*/\1:\2/')
  done
done

# 2. What the simulation must never include.
forbidden='<(asio|spdlog|sodium\.h|thread|chrono|random|ctime|time\.h|mutex|atomic|future|condition_variable|sys/socket\.h|netinet/)'
if grep -nsE "^#include $forbidden" "$root"/shared/*.h "$root"/shared/*.cpp "$root"/follow/*.h "$root"/follow/*.cpp >&2; then
  echo "check_architecture: shared/ (the simulation) or follow/ (the path follower) includes a clock, socket, thread, randomness or logger (above)" >&2
  status=1
fi

# 3. libm functions in the simulation's and the path follower's code (comments removed first).
libm='(^|[^A-Za-z0-9_.>])(std::)?(sin|cos|tan|asin|acos|atan|atan2|pow|exp|exp2|expm1|log|log1p|log2|log10|cbrt|hypot|sinh|cosh|tanh|fma|erf|tgamma|lgamma|floor|ceil|trunc|round|lround|llround|rint|lrint|llrint|nearbyint|fmin|fmax|fdim|fmod|remainder|remquo|modf|frexp|ldexp|scalbn)[fl]?[[:space:]]*\('
for file in "$root"/shared/*.h "$root"/shared/*.cpp "$root"/follow/*.h "$root"/follow/*.cpp; do
  [ -f "$file" ] || continue
  if sed -e 's://.*$::' "$file" | grep -nE "$libm" >/dev/null; then
    sed -e 's://.*$::' "$file" | grep -nE "$libm" | sed "s|^|${file#"$root"/}:|" >&2
    echo "check_architecture: ${file#"$root"/} calls a libm function (above); use shared/det_math.h" >&2
    status=1
  fi
done

[ "$status" -eq 0 ] && echo "check_architecture: $checked project includes follow ARCHITECTURE.md; the simulation and the path follower have no clock, socket, thread, logger or libm call"
exit "$status"
