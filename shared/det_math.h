#pragma once
// Mathematics that gives the same bits everywhere, without libm.
//
// Trigonometry: libm's sin/cos/tan may differ in the last bit between C libraries and versions, and a
// server and its clients need not share one; these use only IEEE-754 +, *, / and sqrt in a fixed
// order. They serve derived settings (cos of the slope limit and the like) and movers' rotations
// (animation.h), never the step's own hot path.
//
// Minimum, maximum, floor and rounding: libm's are exact, but they are calls into a library the
// simulation must not depend on (and a call per bound in the hottest loops of the step), and the
// sign of a zero fmin/fmax returns between -0 and +0 is left to each libm. These are inline, and
// their every result is defined here (tested against libm in fixed_point_test.cpp).

#include <cstdint>

namespace foothold {

/// The smaller of a and b: b when they compare equal (so of -0 and +0, the second), the other when
/// one is NaN (as fmin). The same as glibc's x86-64 fmin, bit for bit.
inline double det_min(double a, double b) { return (a < b || b != b) ? a : b; }
/// The larger of a and b: b when they compare equal, the other when one is NaN (as fmax).
inline double det_max(double a, double b) { return (a > b || b != b) ? a : b; }

/// floor(x), exactly (-0 stays -0; NaN and infinities come back as they are).
inline double det_floor(double x) {
  // From 2^52 on every double is an integer; below it the conversion to int64 is exact truncation.
  if (!(x > -4503599627370496.0 && x < 4503599627370496.0) || x == 0) return x;
  const double t = double(int64_t(x));
  return t > x ? t - 1 : t;
}

/// x rounded to the nearest integer, ties away from zero (llround), for |x| < 2^63; callers clamp first.
inline int64_t det_llround(double x) {
  const int64_t t = int64_t(x);        // truncated toward zero
  const double frac = x - double(t);   // exact: |x| < 2^53 keeps t exact, and beyond it frac is 0
  return frac >= 0.5 ? t + 1 : frac <= -0.5 ? t - 1 : t;
}

/// pi, rounded to the nearest double.
inline constexpr double kPi = 3.14159265358979323846;

/// sin(x), x in radians, for |x| <= pi/2 (a Taylor series, smallest term first), accurate to a few ulp.
double det_sin(double x);
/// cos(x), x in radians, for |x| <= pi/2 (a Taylor series, smallest term first), accurate to a few ulp.
double det_cos(double x);
/// atan(x) for |x| <= 1 (argument halving, then a Taylor series), accurate to a few ulp.
double det_atan(double x);
/// The angle in [0, pi/2] whose sine and cosine are proportional to `s` and `c` (both >= 0, not both
/// zero): atan2(s, c) for the first quadrant. 0 when s is 0 (or not a number).
double det_angle(double s, double c);
/// Degrees to radians (one multiplication by the rounded constant pi/180).
constexpr double det_radians(double degrees) { return degrees * (kPi / 180.0); }

}  // namespace foothold
