#!/usr/bin/env bash
# The inputs the determinism tests across machines share (cross_arch.sh, cross_os.sh), written into
# a folder: sourced, then `write_cross_inputs DIR` writes DIR/terrain.obj, DIR/crevice.obj,
# DIR/hard.toml and DIR/tour.txt.
write_cross_inputs() {
  # Generated worlds, written once as text (both builds read the same file). Coordinates are printed
  # with 17 significant digits, so every one needs correct rounding to read back the same.
  awk 'BEGIN {
    srand(7); n = 40; s = 1.7
    for (i = 0; i <= n; i++) for (j = 0; j <= n; j++) {
      h = 0.6 * sin(i * 0.37) * cos(j * 0.23) + 0.25 * rand()
      printf "v %.17g %.17g %.17g\n", (i - n / 2) * s, h, (j - n / 2) * s
    }
    for (i = 0; i < n; i++) for (j = 0; j < n; j++) {
      a = i * (n + 1) + j + 1; b = a + 1; c = a + n + 1; d = c + 1
      printf "f %d %d %d\nf %d %d %d\n", a, b, c, b, d, c
    }
  }' >"$1/terrain.obj"
  # A V crevice of 70-degree faces, its axis tilted 30 degrees about Y, on a floor.
  awk 'BEGIN {
    pi = atan2(0, -1); t = 30 * pi / 180; c = cos(t); s = sin(t)
    w = 4 * cos(70 * pi / 180) / sin(70 * pi / 180)
    split("-8 8", zs, " ")
    n = 0
    for (k = 1; k <= 2; k++) {
      z = zs[k]
      # left rim, bottom, right rim at this z, rotated about Y
      xs[1] = -w; ys[1] = 4; xs[2] = 0; ys[2] = 0; xs[3] = w; ys[3] = 4
      for (m = 1; m <= 3; m++) printf "v %.17g %.17g %.17g\n", xs[m] * c + z * s, ys[m], -xs[m] * s + z * c
    }
    print "f 1 2 5\nf 1 5 4\nf 2 3 6\nf 2 6 5"
    print "v -20 0 -20\nv 20 0 -20\nv 20 0 20\nv -20 0 20\nf 7 10 9\nf 7 9 8"
  }' >"$1/crevice.obj"
  printf 'radius = 0.30000000000000004\nwalk_speed = 4.1000000000000005\ngravity = 9.8100000000000005\nmax_slope_deg = 47.123456789012345\n' \
    >"$1/hard.toml"

  # A tour with turns and jumps.
  printf '20 0 0 -\n60 1 0 -\n15 1 0.3 jump\n50 0.2 1 -\n40 -1 0.4 jump\n90 0.7 -0.7 -\n30 -0.3 -1 jump\n60 0 -1 -\n' >"$1/tour.txt"
}
