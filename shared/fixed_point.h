#pragma once
// The fixed-point format of everything that crosses a tick boundary.
//
// Positions are int32 counts of 1/1024 m (the quantum, 0.9765625 mm). Velocities are int32 counts of
// 1/65536 m/s. The step converts them to double, computes, and rounds the result back to the grid;
// the next step starts from exactly the rounded value, on the server and in every client.
//
// Range: the world and every character live within +-kWorldLimit = 1,048,576 m of the origin on
// each axis (positions are clamped there; an int32 of 1/1024 m would reach twice as far). That is far
// beyond the +-8 km a game level needs and keeps every intermediate product well inside double
// precision (at 1e6 m a double still resolves 2e-10 m).

#include <cmath>
#include <cstdint>
#include <string>
#include <optional>
#include <string_view>

#include "shared/det_math.h"
#include "shared/vec3.h"

namespace foothold {

/// Fraction bits of a position: raw counts of 2^-10 m = 1/1024 m.
inline constexpr int kPositionFracBits = 10;
inline constexpr double kPositionScale = 1 << kPositionFracBits;  ///< raw units per metre
inline constexpr double kPositionQuantum = 1.0 / kPositionScale;  ///< metres per raw unit
/// Fraction bits of a velocity: raw counts of 2^-16 m/s = 1/65536 m/s.
inline constexpr int kVelocityFracBits = 16;
inline constexpr double kVelocityScale = 1 << kVelocityFracBits;  ///< raw units per m/s
inline constexpr double kWorldLimit = 1048576.0;                  ///< metres, per axis: positions are clamped to +-this
inline constexpr double kVelocityLimit = 1000.0;                  ///< m/s, per axis: velocities are clamped to +-this

/// A position (1/1024 m, capsule centre for a character) or a velocity (1/65536 m/s) on the
/// fixed-point grid, as raw integer counts in world axes (Y up). Which one is up to the field holding it.
struct FixedVec3 {
  int32_t x = 0;  ///< raw count along world X
  int32_t y = 0;  ///< raw count along world Y (up)
  int32_t z = 0;  ///< raw count along world Z
  constexpr bool operator==(const FixedVec3&) const = default;
};

/// A unit vector on a grid of 1/16384 per component (the floor normal of a grounded character).
struct FixedNormal {
  int16_t x = 0;  ///< world X, 1/16384
  int16_t y = 0;  ///< world Y (up), 1/16384
  int16_t z = 0;  ///< world Z, 1/16384
  constexpr bool operator==(const FixedNormal&) const = default;
};
/// Fraction bits of a FixedNormal component: counts of 1/16384 (1.0 is 16384).
inline constexpr int kNormalFracBits = 14;
inline constexpr double kNormalScale = 1 << kNormalFracBits;  ///< raw units per 1.0

/// Rounds `v` to the nearest raw count of 1/scale (ties away from zero), after clamping `v` to
/// +-limit (in v's own units: metres, m/s, or 1 for a normal component).
/// NaN becomes 0 so that a numerical accident can never become undefined behaviour.
inline int32_t quantize(double v, double scale, double limit) {
  if (!(v == v)) return 0;
  const double clamped = det_min(det_max(v, -limit), limit);
  return static_cast<int32_t>(det_llround(clamped * scale));
}

/// A position in metres to the 1/1024 m grid, clamped to +-kWorldLimit per axis.
inline FixedVec3 quantize_position(const Vec3& p) {
  return {quantize(p.x, kPositionScale, kWorldLimit), quantize(p.y, kPositionScale, kWorldLimit),
          quantize(p.z, kPositionScale, kWorldLimit)};
}
/// A velocity in m/s to the 1/65536 m/s grid, clamped to +-kVelocityLimit per axis.
inline FixedVec3 quantize_velocity(const Vec3& v) {
  return {quantize(v.x, kVelocityScale, kVelocityLimit), quantize(v.y, kVelocityScale, kVelocityLimit),
          quantize(v.z, kVelocityScale, kVelocityLimit)};
}
/// A unit normal to the 1/16384 grid, each component clamped to [-1, 1]. The result is not
/// renormalised: to_normal() normalises it again.
inline FixedNormal quantize_normal(const Vec3& n) {
  return {int16_t(quantize(n.x, kNormalScale, 1)), int16_t(quantize(n.y, kNormalScale, 1)),
          int16_t(quantize(n.z, kNormalScale, 1))};
}
/// The unit vector a FixedNormal stands for; the zero vector for a zero (or degenerate) one.
inline Vec3 to_normal(const FixedNormal& f) {
  return normalized_or_zero(Vec3{f.x / kNormalScale, f.y / kNormalScale, f.z / kNormalScale});
}
/// Raw 1/1024 m counts to metres (exact).
inline Vec3 to_position(const FixedVec3& f) {
  return {f.x / kPositionScale, f.y / kPositionScale, f.z / kPositionScale};
}
/// Raw 1/65536 m/s counts to m/s (exact).
inline Vec3 to_velocity(const FixedVec3& f) {
  return {f.x / kVelocityScale, f.y / kVelocityScale, f.z / kVelocityScale};
}

/// The exact decimal form of raw / 2^frac_bits ("-1.5", "0.0009765625", "3"). Every such value has a
/// finite decimal expansion, so parse_fixed() gets back the very same raw count.
std::string format_fixed(int64_t raw, int frac_bits);

/// Parses a decimal number that is an exact multiple of 2^-frac_bits. Returns nothing when the text is
/// not a plain decimal, is not exactly on the grid, or does not fit in an int32.
std::optional<int32_t> parse_fixed(std::string_view text, int frac_bits);

}  // namespace foothold
