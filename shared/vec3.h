#pragma once
// Double-precision 3-vector for the movement core. Plain arithmetic only: every operation is a
// sequence of IEEE-754 additions, multiplications, divisions and square roots, which round the same
// on every x86-64 and ARM64 machine as long as contraction into FMA is off (-ffp-contract=off).

#include <cmath>

namespace foothold {

/// A point, direction or velocity in world axes (Y up): metres for points, m/s for velocities,
/// unitless for normals and directions.
struct Vec3 {
  double x = 0;  ///< world X
  double y = 0;  ///< world Y (up)
  double z = 0;  ///< world Z

  /// The zero vector.
  constexpr Vec3() = default;
  /// (x_, y_, z_).
  constexpr Vec3(double x_, double y_, double z_) : x(x_), y(y_), z(z_) {}

  /// Component-wise arithmetic, one IEEE operation per component; == compares exactly.
  ///@{
  constexpr Vec3 operator+(const Vec3& o) const { return {x + o.x, y + o.y, z + o.z}; }
  constexpr Vec3 operator-(const Vec3& o) const { return {x - o.x, y - o.y, z - o.z}; }
  constexpr Vec3 operator-() const { return {-x, -y, -z}; }
  constexpr Vec3 operator*(double s) const { return {x * s, y * s, z * s}; }
  constexpr Vec3 operator/(double s) const { return {x / s, y / s, z / s}; }
  constexpr Vec3& operator+=(const Vec3& o) { x += o.x; y += o.y; z += o.z; return *this; }
  constexpr Vec3& operator-=(const Vec3& o) { x -= o.x; y -= o.y; z -= o.z; return *this; }
  constexpr Vec3& operator*=(double s) { x *= s; y *= s; z *= s; return *this; }
  constexpr bool operator==(const Vec3&) const = default;
  ///@}
};

/// s * v, the same as v * s.
constexpr Vec3 operator*(double s, const Vec3& v) { return v * s; }
/// Dot product, summed x, y, z in that order.
constexpr double dot(const Vec3& a, const Vec3& b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
/// Cross product a x b (right-handed).
constexpr Vec3 cross(const Vec3& a, const Vec3& b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
/// Squared length (no square root): compared against the squared tolerances of tolerances.h.
constexpr double length_sq(const Vec3& v) { return dot(v, v); }
/// Euclidean length (sqrt is correctly rounded, so deterministic).
inline double length(const Vec3& v) { return std::sqrt(dot(v, v)); }
/// The horizontal (XZ) part of v.
constexpr Vec3 horizontal(const Vec3& v) { return {v.x, 0, v.z}; }

/// v scaled to unit length, or the zero vector when v is shorter than 1e-12.
inline Vec3 normalized_or_zero(const Vec3& v) {
  const double len = length(v);
  return len > 1e-12 ? v / len : Vec3{};
}

/// v without its component along the unit normal n.
constexpr Vec3 reject(const Vec3& v, const Vec3& n) { return v - n * dot(v, n); }

/// The world's up direction, +Y.
inline constexpr Vec3 kUp{0, 1, 0};

}  // namespace foothold
