#!/usr/bin/env bash
# Draws the figures of docs/movement.md as SVG: docs/figures/draw.sh [OUT_DIR] (default: this folder).
# Plain awk, so it runs anywhere the tests do; tests/docs/check_figures.sh checks that the committed
# SVGs are what this draws. World units are metres, Y up; each figure maps them to pixels itself.
set -euo pipefail
out=${1:-$(cd "$(dirname "$0")" && pwd)}
mkdir -p "$out"

# Shared drawing helpers, prepended to each figure's program.
read -r -d '' lib <<'AWK' || true
function X(x) { return ox + x * k }
function Y(y) { return oy - y * k }
function head(w, h) {
  printf "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n", w, h, w, h
  print "<defs><marker id=\"a\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" orient=\"auto-start-reverse\"><path d=\"M0 0L10 5L0 10z\" fill=\"context-stroke\"/></marker></defs>"
  printf "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n", w, h
}
function line(x1, y1, x2, y2, style) {
  printf "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" %s/>\n", X(x1), Y(y1), X(x2), Y(y2), style
}
function arrow(x1, y1, x2, y2, color) { line(x1, y1, x2, y2, "stroke=\"" color "\" stroke-width=\"2\" marker-end=\"url(#a)\"") }
function surface(x1, y1, x2, y2) { line(x1, y1, x2, y2, "stroke=\"#333\" stroke-width=\"3\"") }
function circle(x, y, r, style) { printf "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" %s/>\n", X(x), Y(y), r * k, style }
function dot(x, y, color) { printf "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\"/>\n", X(x), Y(y), color }
function capsule(x, y, r, h, style) {  # centre x, y; radius r; total height h
  printf "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" rx=\"%.1f\" %s/>\n", X(x - r), Y(y + h / 2), 2 * r * k, h * k, r * k, style
}
function label(x, y, text, anchor) { printf "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">%s</text>\n", X(x), Y(y), anchor ? anchor : "start", text }
function caption(px, py, text) { printf "<text x=\"%d\" y=\"%d\" font-style=\"italic\">%s</text>\n", px, py, text }
function tail() { print "</svg>" }
AWK

# §10 The floor lock: a sphere held rest_gap from a slope sits (radius + rest_gap) / n.y above it.
awk "$lib"'
BEGIN {
  k = 70; ox = 330; oy = 240; pi = atan2(0, -1); a = 30 * pi / 180; r = 1; g = 0.3
  head(620, 300)
  surface(-3.2 * cos(a), -3.2 * sin(a), 3 * cos(a), 3 * sin(a))
  cx = -(r + g) * sin(a); cy = (r + g) * cos(a)
  circle(cx, cy, r, "fill=\"#cde\" stroke=\"#357\" stroke-width=\"2\"")
  circle(cx, cy, r + g, "fill=\"none\" stroke=\"#357\" stroke-dasharray=\"4 3\"")
  arrow(1.6 * cos(a), 1.6 * sin(a), 1.6 * cos(a) - sin(a) * 0.7, 1.6 * sin(a) + cos(a) * 0.7, "#393")
  label(1.6 * cos(a) - sin(a) * 0.7 + 0.1, 1.6 * sin(a) + cos(a) * 0.7 + 0.05, "n")
  line(0, 0, -sin(a) * g, cos(a) * g, "stroke=\"#393\" stroke-width=\"3\"")
  label(0.15, -0.05, "rest_gap")
  line(cx, cy, cx, cx * sin(a) / cos(a), "stroke=\"#c33\" stroke-width=\"2\"")
  label(cx - 0.1, (cy + cx * sin(a) / cos(a)) / 2 - 0.3, "(radius + rest_gap) / n.y", "end")
  dot(cx, cy, "#357")
  caption(10, 20, "The floor lock (movement.md §10): the sphere held rest_gap off the slope, measured vertically.")
  tail()
}' >"$out/lock.svg"

# §3.3 Inner points: B lies within reach, but the cast toward its point meets A first.
awk "$lib"'
BEGIN {
  k = 60; ox = 240; oy = 205; r = 1; cd = 0.9
  head(620, 280)
  surface(-3, -0.6, 3.5, -0.6); label(3.4, -0.45, "B (a lower floor)", "end")
  surface(-2.5, 0, 1.2, 0); label(-2.4, 0.12, "A")
  circle(0, 1.25, r, "fill=\"#cde\" stroke=\"#357\" stroke-width=\"2\"")
  circle(0, 1.25, r + cd, "fill=\"none\" stroke=\"#357\" stroke-dasharray=\"4 3\"")
  label(1.5, 2.45, "contact_distance")
  arrow(0, 1.25, 0, -0.55, "#c33")
  dot(0, 0, "#393"); label(0.12, 0.12, "contact on A: kept")
  circle(0, -0.6, 0.07, "fill=\"white\" stroke=\"#c33\" stroke-width=\"2\"")
  label(0.15, -0.85, "inner point on B: pruned, the cast toward it meets A first")
  caption(10, 20, "Inner points (movement.md §3.3): only contacts a sphere cast reaches first count.")
  tail()
}' >"$out/inner_points.svg"

# §3.4 A crevice: the slide down one face is opposed by the other; the crease runs level.
awk "$lib"'
BEGIN {
  k = 55; ox = 330; oy = 280; pi = atan2(0, -1); a = 70 * pi / 180; r = 1
  head(620, 310)
  L = 4.4
  surface(0, 0, -L * cos(a), L * sin(a)); surface(0, 0, L * cos(a), L * sin(a))
  h = r / cos(a)
  circle(0, h, r, "fill=\"#cde\" stroke=\"#357\" stroke-width=\"2\"")
  # contact points and their normals
  px = h * sin(a) * cos(a); py = h * sin(a) * sin(a)
  dot(px, py, "#393"); dot(-px, py, "#393")
  arrow(px, py, px - 0.45 * sin(a), py + 0.45 * cos(a), "#393"); label(px + 0.15, py + 0.1, "n2")
  arrow(-px, py, -px + 0.45 * sin(a), py + 0.45 * cos(a), "#393"); label(-px - 0.15, py + 0.1, "n1", "end")
  # the slide gravity gives along face 2, and the crease (into the page)
  arrow(px + 0.25, py - 0.1, px + 0.25 - 1.1 * cos(a), py - 0.1 - 1.1 * sin(a), "#c33")
  label(px + 0.45, py - 0.6, "slide down face 2: n1 opposes it")
  circle(0, 0.3, 0.12, "fill=\"white\" stroke=\"#333\" stroke-width=\"2\"")
  dot(0, 0.3, "#333")
  label(-0.35, 0.2, "crease n1 x n2, out of the page: level, so grounded", "end")
  caption(10, 20, "Crevices (movement.md §3.4): wedged between two faces too steep to stand on.")
  tail()
}' >"$out/crevice.svg"

# §7 Stairs: up by step_height, forward, down onto the tread.
awk "$lib"'
BEGIN {
  k = 90; ox = 60; oy = 300; r = 0.4; hgt = 1.8; rise = 0.25; sh = 0.5; m = 0.01; gap = 0.02
  head(620, 360)
  surface(-0.5, 0, 1.6, 0); surface(1.6, 0, 1.6, rise); surface(1.6, rise, 4.8, rise)
  x0 = 1.6 - r - m; y0 = hgt / 2 + gap
  capsule(x0, y0, r, hgt, "fill=\"#cde\" stroke=\"#357\" stroke-width=\"2\"")
  capsule(x0, y0 + sh, r, hgt, "fill=\"none\" stroke=\"#357\" stroke-dasharray=\"4 3\"")
  x1 = x0 + 0.9
  capsule(x1, y0 + sh, r, hgt, "fill=\"none\" stroke=\"#357\" stroke-dasharray=\"4 3\"")
  capsule(x1, y0 + rise, r, hgt, "fill=\"#cde\" fill-opacity=\"0.5\" stroke=\"#357\" stroke-width=\"2\"")
  arrow(x0 - r - 0.15, y0, x0 - r - 0.15, y0 + sh, "#c33"); label(x0 - r - 0.25, y0 + sh / 2, "1 up", "end")
  arrow(x0, y0 + sh + hgt / 2 + 0.15, x1, y0 + sh + hgt / 2 + 0.15, "#c33"); label((x0 + x1) / 2, y0 + sh + hgt / 2 + 0.25, "2 forward", "middle")
  arrow(x1 + r + 0.15, y0 + sh, x1 + r + 0.15, y0 + rise, "#c33"); label(x1 + r + 0.25, y0 + (sh + rise) / 2, "3 down onto the tread")
  caption(10, 20, "Stairs (movement.md §7): up by at most step_height, forward, then down onto walkable ground.")
  tail()
}' >"$out/stairs.svg"

# §3.5 Perching: the round base past a nosing touches the edge at a steep normal; a probe finds the
# tread below within step_height, so the edge holds the character.
awk "$lib"'
BEGIN {
  k = 200; ox = 360; oy = 250; pi = atan2(0, -1); r = 0.4; g = 0.02; rise = 0.25
  head(620, 300)
  surface(0, rise, 1.3, rise); surface(0, rise, 0, 0); surface(-1.75, 0, 0, 0)
  a = 55 * pi / 180
  cx = -(r + g) * sin(a); cy = rise + (r + g) * cos(a)
  circle(cx, cy, r, "fill=\"#cde\" stroke=\"#357\" stroke-width=\"2\"")
  dot(0, rise, "#393")
  arrow(0, rise, -0.3 * sin(a), rise + 0.3 * cos(a), "#393"); label(0.06, rise + 0.42, "edge normal: 55 degrees (too steep)")
  rho = -cx - 0.02
  circle(cx, cy - 0.3, rho, "fill=\"none\" stroke=\"#c33\" stroke-dasharray=\"4 3\"")
  arrow(cx, cy, cx, cy - 0.3 + 0.02, "#c33")
  label(-1.75, -0.1, "the probe: walkable ground within step_height below the edge")
  label(0.06, rise + 0.05, "edge of a walkable face: perched")
  caption(10, 20, "Perching (movement.md §3.5): down the stairs without leaving the ground.")
  tail()
}' >"$out/perch.svg"
