#pragma once
// Trigonometry that gives the same bits everywhere. libm's sin/cos/tan may differ in the last bit
// between C libraries and versions, and a server and its clients need not share one; these use only
// IEEE-754 +, *, / in a fixed order. They serve derived settings (cos of the slope limit and the
// like), computed once per settings, never in a per-tick hot path.

namespace foothold {

inline constexpr double kPi = 3.14159265358979323846;

/// sin(x) for |x| <= pi/2, accurate to a few ulp.
double det_sin(double x);
/// cos(x) for |x| <= pi/2, accurate to a few ulp.
double det_cos(double x);
/// Degrees to radians.
constexpr double det_radians(double degrees) { return degrees * (kPi / 180.0); }

}  // namespace foothold
