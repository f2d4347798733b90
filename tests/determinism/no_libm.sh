#!/usr/bin/env bash
# The simulation calls nothing in libm but sqrt (quick suite). The last bit of libm's functions is
# each libm's own, and a server and its clients need not share one; the exact ones (floor, fmin,
# llround) are calls the hot paths need not make. shared/det_math.h has what the simulation needs.
# sqrt is one of IEEE 754's basic operations, correctly rounded everywhere: an optimised build emits
# the instruction (-fno-math-errno), an unoptimised one calls libm's sqrt, which is that instruction.
# This reads the compiled archive, so it also catches a call the compiler emitted on its own.
#   no_libm.sh SIM_ARCHIVE CXX_COMPILER
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: $0 SIM_ARCHIVE CXX_COMPILER" >&2; exit 2; }
archive=$1
libm=$("$2" -print-file-name=libm.so.6)
[ -f "$archive" ] || { echo "no_libm: $archive does not exist" >&2; exit 1; }
[ -f "$libm" ] || { echo "no_libm: the compiler names no libm.so.6 ($libm)" >&2; exit 1; }
# libm's own exports, without glibc's symbol versions (libm.so.6 may be a linker script's target:
# follow it to the shared object).
libm=$(readlink -f "$libm")
exports=$(nm -D --defined-only "$libm" | awk '{print $3}' | sed 's/@.*//' | sort -u)
[ -n "$exports" ] || { echo "no_libm: read no symbols from $libm" >&2; exit 1; }
needed=$(nm -u "$archive" 2>/dev/null | awk '$1 == "U" {print $2}' | sed 's/@.*//' | sort -u)
[ -n "$needed" ] || { echo "no_libm: read no undefined symbols from $archive" >&2; exit 1; }
found=$(comm -12 <(echo "$exports") <(echo "$needed") | grep -vx 'sqrt' || true)
if [ -n "$found" ]; then
  echo "no_libm: the simulation ($archive) calls into libm:" $found >&2
  echo "no_libm: use shared/det_math.h instead" >&2
  exit 1
fi
echo "no_libm: $(echo "$needed" | wc -l) external symbols of the simulation, none of them from libm but sqrt"
