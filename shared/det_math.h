#pragma once
// Trigonometry that gives the same bits everywhere. libm's sin/cos/tan may differ in the last bit
// between C libraries and versions, and a server and its clients need not share one; these use only
// IEEE-754 +, *, / and sqrt in a fixed order. They serve derived settings (cos of the slope limit and
// the like) and movers' rotations (animation.h), never the step's own hot path.

namespace foothold {

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
