#pragma once
// Double-precision 3-vector for the movement core. Plain arithmetic only: every operation is a
// sequence of IEEE-754 additions, multiplications, divisions and square roots, which round the same
// on every x86-64 and ARM64 machine as long as contraction into FMA is off (-ffp-contract=off).

#include <cmath>

namespace foothold {

/// A point or direction in world space, metres; Y is up.
struct Vec3 {
  double x = 0;
  double y = 0;
  double z = 0;

  constexpr Vec3() = default;
  constexpr Vec3(double x_, double y_, double z_) : x(x_), y(y_), z(z_) {}

  constexpr Vec3 operator+(const Vec3& o) const { return {x + o.x, y + o.y, z + o.z}; }
  constexpr Vec3 operator-(const Vec3& o) const { return {x - o.x, y - o.y, z - o.z}; }
  constexpr Vec3 operator-() const { return {-x, -y, -z}; }
  constexpr Vec3 operator*(double s) const { return {x * s, y * s, z * s}; }
  constexpr Vec3 operator/(double s) const { return {x / s, y / s, z / s}; }
  constexpr Vec3& operator+=(const Vec3& o) { x += o.x; y += o.y; z += o.z; return *this; }
  constexpr Vec3& operator-=(const Vec3& o) { x -= o.x; y -= o.y; z -= o.z; return *this; }
  constexpr Vec3& operator*=(double s) { x *= s; y *= s; z *= s; return *this; }
  constexpr bool operator==(const Vec3&) const = default;
};

constexpr Vec3 operator*(double s, const Vec3& v) { return v * s; }
constexpr double dot(const Vec3& a, const Vec3& b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
constexpr Vec3 cross(const Vec3& a, const Vec3& b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
constexpr double length_sq(const Vec3& v) { return dot(v, v); }
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

inline constexpr Vec3 kUp{0, 1, 0};

}  // namespace foothold
