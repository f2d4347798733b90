#!/usr/bin/env bash
# No product function over 100 lines (quick suite; issue #34): a function that long does several
# things, and each should have a name. Every function body in the product's folders (shared/,
# shared/formats/, shared/workers/, proto/, client/, replay/, server/, bots/, follow/, nav/; .h and .cpp) is
# measured from the line of its opening brace to the line of its closing brace, both counted.
#
# A function may stay whole when it says why: the marker `long-function:` and a reason, in the
# comment block just above it or in its first lines (its declaration and the comment lines that open
# its body). Kept for kernels such as shared/geometry.cpp's sweep_capsule_triangle, one exact case
# analysis whose branches share their state.
#
# What counts as a function: a brace that follows a parameter list (with qualifiers, a trailing
# return type or a constructor's initializer list). Namespace, extern "C", class, struct, union
# and enum braces do not count, nor the braces of initializers (`= {...}`, `x{...}`, default
# arguments); a lambda, or a local class, inside a function is part of that function.
# It reads C++ as braces, parentheses and semicolons, with comments, strings and character
# literals (not digit separators, as in 100'000) set aside; preprocessor lines are skipped.
#
# It also prints the five longest functions, the figure issue #34 asks for.
#   check_function_length.sh SOURCE_DIR
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: $0 SOURCE_DIR" >&2; exit 2; }
root=$1
limit=100

files=()
for folder in shared shared/formats shared/workers proto client replay server bots follow nav; do
  [ -d "$root/$folder" ] || { echo "check_function_length: $root/$folder is missing" >&2; exit 1; }
  for file in "$root/$folder"/*.h "$root/$folder"/*.cpp; do
    [ -f "$file" ] && files+=("$file")
  done
done

# One line per function: length, file:line of its opening brace, name, and 1 when it is marked.
functions=$(awk -v root="$root/" '
function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s); return s }
function reset_prefix() { prefix = ""; prefix_line = 0 }
function add(c) {
  if (prefix_line == 0 && c !~ /[ \t]/) prefix_line = FNR
  prefix = prefix c
}
# The parentheses still open in s.
function open_parens(s,   i, c, n) {
  n = 0
  for (i = 1; i <= length(s); ++i) {
    c = substr(s, i, 1)
    if (c == "(") ++n
    else if (c == ")") --n
  }
  return n
}
# What the brace after declaration text s opens: ns, type, func or init.
function classify(s,   t, tail, i) {
  t = trim(s)
  if (t ~ /^(inline[ \t]+)?namespace([^A-Za-z0-9_]|$)/ || t ~ /^extern[ \t]*""$/) return "ns"
  if (open_parens(t) > 0) return "init"  # a default argument: f(Options o = {})
  i = last_close(t)
  if (i > 0) {
    tail = substr(t, i + 1)
    if (tail ~ /^[ \t]*((const|volatile|noexcept|override|final|mutable|try|&&|&)[ \t]*)*(->[^=;]*)?$/) return "func"
    # A constructor whose initializer list ends with a braced member: f() : a_(x), b_{} {
    if (t ~ /\)[ \t]*:[^:]/ && tail ~ /\}[ \t]*$/) return "func"
  }
  if (t ~ /(^|[^A-Za-z0-9_])(class|struct|union|enum)([^A-Za-z0-9_]|$)/) return "type"
  return "init"
}
function last_close(s,   i) {
  for (i = length(s); i > 0; --i)
    if (substr(s, i, 1) == ")") return i
  return 0
}
# The function'"'"'s name: the name before the last top-level parameter list that is not a
# qualifier'"'"'s (noexcept(...), decltype(...)), with a constructor'"'"'s initializer list cut off.
function name_of(s,   t, i, c, depth, before, name, best, cut) {
  t = s
  if (match(t, /\)[ \t]*:[^:]/)) t = substr(t, 1, RSTART)
  cut = index(t, "->")
  if (cut > 0) t = substr(t, 1, cut - 1)
  depth = 0
  best = ""
  for (i = 1; i <= length(t); ++i) {
    c = substr(t, i, 1)
    if (c == "(") {
      if (depth == 0) {
        before = substr(t, 1, i - 1)
        sub(/[ \t]+$/, "", before)
        if (match(before, /(~?[A-Za-z_][A-Za-z0-9_]*(<[^<>()]*>)?::)*operator[ \t]*\([ \t]*\)$/)) {
          best = substr(before, RSTART, RLENGTH)
        } else if (match(before, /(~?[A-Za-z_][A-Za-z0-9_]*(<[^<>()]*>)?::)*(operator[ \t]*[^A-Za-z0-9_ \t()]+|operator[ \t]+[A-Za-z_][A-Za-z0-9_]*|~?[A-Za-z_][A-Za-z0-9_]*)$/)) {
          name = substr(before, RSTART, RLENGTH)
          if (name !~ /^(noexcept|decltype|requires|alignas|alignof|sizeof|throw|__attribute__|__declspec)$/) best = name
        } else if (before ~ /\]$/) {
          best = "lambda"
        }
      }
      ++depth
    } else if (c == ")") {
      --depth
    }
  }
  gsub(/[ \t]+/, "", best)
  return best == "" ? "?" : best
}
function finish_function(   exempt, l) {
  exempt = 0
  # The comment block just above the declaration.
  for (l = fn_start - 1; l > 0 && comment_only[l]; --l)
    if (marked[l]) exempt = 1
  # The declaration, and the comment lines that open the body.
  for (l = fn_start; l <= fn_open; ++l)
    if (marked[l]) exempt = 1
  for (l = fn_open + 1; l < FNR && comment_only[l]; ++l)
    if (marked[l]) exempt = 1
  printf "%d %s:%d %s %d\n", FNR - fn_open + 1, rel, fn_open, fn_name, exempt
}

# A file that ends inside a brace, a function or a comment was misread: say so rather than pass.
function end_of_file() {
  if (rel != "" && (depth != 0 || in_function || in_block_comment)) printf "0 %s:%d unbalanced 2\n", rel, last_line
}
FNR == 1 {
  end_of_file()
  rel = FILENAME
  if (index(rel, root) == 1) rel = substr(rel, length(root) + 1)
  depth = 0; in_function = 0; in_block_comment = 0; continued = 0
  reset_prefix()
  split("", kind); split("", comment_only); split("", marked)
}
{
  last_line = FNR
  line = $0
  # Preprocessor lines (and their continuations) hold no function bodies.
  if (continued || line ~ /^[ \t]*#/) {
    continued = line ~ /\\$/
    next
  }
  code = ""; comment = ""; has_comment = in_block_comment
  n = length(line)
  for (i = 1; i <= n; ++i) {
    c = substr(line, i, 1)
    if (in_block_comment) {
      if (c == "*" && substr(line, i + 1, 1) == "/") { in_block_comment = 0; ++i } else comment = comment c
      continue
    }
    two = substr(line, i, 2)
    if (two == "//") { comment = comment substr(line, i + 2); has_comment = 1; break }
    if (two == "/*") { in_block_comment = 1; has_comment = 1; ++i; continue }
    if (c == "\"" || (c == "'"'"'" && (i == 1 || substr(line, i - 1, 1) !~ /[A-Za-z0-9_]/))) {
      # A string or character literal: skip to its closing quote (escapes included).
      for (j = i + 1; j <= n; ++j) {
        d = substr(line, j, 1)
        if (d == "\\") { ++j; continue }
        if (d == c) break
      }
      code = code c c
      i = j
      continue
    }
    code = code c
  }
  comment_only[FNR] = trim(code) == "" && has_comment
  marked[FNR] = comment ~ /long-function:[ \t]*[^ \t]/

  n = length(code)
  for (i = 1; i <= n; ++i) {
    c = substr(code, i, 1)
    if (in_function) {
      if (c == "{") ++depth
      else if (c == "}") {
        --depth
        if (depth < fn_depth) { finish_function(); in_function = 0; reset_prefix() }
      }
      continue
    }
    top = depth > 0 ? kind[depth] : "ns"
    if (top == "init") {
      # Inside an initializer every brace is the initializer'"'"'s; its text is not a declaration.
      if (c == "{") kind[++depth] = "init"
      else if (c == "}") { --depth; if (depth == 0 || kind[depth] != "init") add("}") }
      continue
    }
    if (c == "{") {
      k = classify(prefix)
      if (k == "func") {
        in_function = 1
        fn_depth = ++depth
        kind[depth] = "func"
        fn_open = FNR
        fn_start = prefix_line ? prefix_line : FNR
        fn_name = name_of(prefix)
      } else if (k == "init") {
        kind[++depth] = "init"
        add("{")
      } else {
        kind[++depth] = k
        reset_prefix()
      }
    } else if (c == "}") {
      if (depth > 0) --depth
      reset_prefix()
    } else if (c == ";") {
      reset_prefix()
    } else if (c == ":" && trim(prefix) ~ /^(public|protected|private)$/) {
      reset_prefix()
    } else {
      add(c)
    }
  }
  if (prefix != "") add(" ")
}
END { end_of_file() }
' "${files[@]}")

status=0
count=0
marked=0
while read -r length where name exempt; do
  count=$((count + 1))
  if [ "$exempt" -eq 2 ]; then
    echo "check_function_length: $where: the file ends inside a brace, a function or a comment: the check misread it" >&2
    status=1
    continue
  fi
  if [ "$length" -gt "$limit" ]; then
    if [ "$exempt" -eq 1 ]; then
      marked=$((marked + 1))
    else
      echo "check_function_length: $where: $name is $length lines (over $limit): split it into named steps, or say why it must stay whole in a 'long-function:' comment" >&2
      status=1
    fi
  fi
done <<<"$functions"

echo "the five longest functions (lines, where, name, 1 when marked long-function:):"
sort -rn <<<"$functions" | awk 'NR <= 5 { print "  " $0 }'
[ "$status" -eq 0 ] && echo "check_function_length: $count functions, none over $limit lines but $marked marked long-function:"
exit "$status"
