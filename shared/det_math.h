#pragma once
// Trigonometry that gives the same bits everywhere. libm's sin/cos/tan may differ in the last bit
// between C libraries and versions, and a server and its clients need not share one; these use only
// IEEE-754 +, *, / in a fixed order. They serve derived settings (cos of the slope limit and the
// like), computed once per settings, never in a per-tick hot path.

namespace foothold {

/// pi, rounded to the nearest double.
inline constexpr double kPi = 3.14159265358979323846;

/// sin(x), x in radians, for |x| <= pi/2 (a Taylor series, smallest term first), accurate to a few ulp.
double det_sin(double x);
/// cos(x), x in radians, for |x| <= pi/2 (a Taylor series, smallest term first), accurate to a few ulp.
double det_cos(double x);
/// Degrees to radians (one multiplication by the rounded constant pi/180).
constexpr double det_radians(double degrees) { return degrees * (kPi / 180.0); }

}  // namespace foothold
