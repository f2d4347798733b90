#pragma once
// Exact geometric queries between an upright capsule and one triangle, in double precision.
// These are the only primitives the movement core uses; Bullet only supplies the candidate
// triangles (see world.h), so the order and the arithmetic of every contact are ours.

#include <cmath>
#include <optional>

#include "shared/vec3.h"

namespace foothold {

/// A triangle with its unit front normal (counter-clockwise a, b, c seen from the front).
struct Triangle {
  Vec3 a, b, c;  ///< vertices, metres, world axes
  Vec3 normal;   ///< unit, normalize(cross(b - a, c - a)); the front is the side it points to
};

/// An upright capsule: the segment centre +- half_segment along Y, swept by a sphere of `radius`.
/// Its bottom and top extremes lie half_segment + radius below and above `center`.
struct Capsule {
  Vec3 center;              ///< centre of the core segment (the capsule's centre), metres
  double half_segment = 0;  ///< metres, >= 0 (0 makes it a sphere)
  double radius = 0;        ///< metres, > 0
  /// The core segment's lower end: the centre of the lower cap sphere (not the capsule's foot).
  Vec3 bottom() const { return {center.x, center.y - half_segment, center.z}; }
  /// The core segment's upper end: the centre of the upper cap sphere.
  Vec3 top() const { return {center.x, center.y + half_segment, center.z}; }
};

/// The point of triangle abc closest to p, metres (two-sided: p may lie on either side).
Vec3 closest_point_on_triangle(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c);

/// Closest points between a segment and a triangle.
struct SegmentTriangleClosest {
  Vec3 on_segment;   ///< closest point on the segment, metres
  Vec3 on_triangle;  ///< closest point on the triangle, metres (the same point when it pierces)
  double distance = 0;  ///< metres; 0 when the segment pierces the triangle
};
/// Closest points between segment p0-p1 and `tri`, two-sided. An upright segment against a triangle
/// that is not vertical takes a faster exact path (movement.md §2).
SegmentTriangleClosest closest_segment_triangle(const Vec3& p0, const Vec3& p1, const Triangle& tri);

/// Signed distance (metres) of the capsule's centre from the triangle's plane (positive in front).
inline double center_plane_distance(const Vec3& center, const Triangle& tri) {
  return dot(center - tri.a, tri.normal);
}

/// A contact between a capsule and a triangle.
struct CapsuleContact {
  Vec3 point;          ///< closest point on the triangle, metres
  Vec3 core_point;     ///< closest point on the capsule's core segment, metres
  Vec3 normal;         ///< unit, from the triangle toward the capsule's core segment
  double gap = 0;      ///< metres from the capsule's surface; negative when penetrating
};

/// The contact between capsule and triangle when the triangle's front faces the capsule's centre
/// and the gap is at most max_gap (metres); nothing otherwise. Triangles are one-sided: a capsule
/// whose centre is behind the plane never touches it. Every contact the movement core uses comes
/// from here (docs/movement.md §2): when the core touches or pierces the triangle, the normal is the
/// triangle's own.
std::optional<CapsuleContact> capsule_triangle_contact(const Capsule& capsule, const Triangle& tri, double max_gap);

/// Time of impact of a capsule moving by `motion` against a one-sided triangle.
/// `fraction` is in [0, 1] of the motion; the capsule at that fraction touches the triangle (its
/// surface at distance 0). A capsule that already touches or overlaps the triangle at the start
/// reports fraction 0 when the motion approaches the contact, and nothing when it leaves it.
struct SweepContact {
  double fraction = 0;  ///< share of `motion` travelled at impact, [0, 1]
};
std::optional<SweepContact> sweep_capsule_triangle(const Capsule& capsule, const Vec3& motion, const Triangle& tri);
/// The first test of both sweeps, which most triangles a sweep is asked about fail: how the
/// capsule's reach (everything it can touch lies within fabs(normal.y) * half_segment + radius of
/// the plane) stands to the plane of `tri`. Inline, for callers that ask about many triangles: an
/// answer of nothing returned from a sweep's call goes through memory (a byte stored, eight loaded,
/// which the store buffer cannot forward), and that stall was most of a fence test's time.
struct SweepReach {
  double dn = 0;    ///< the motion along the normal, metres
  double s0 = 0;    ///< the plane's distance beyond the capsule's reach at the start, metres
  bool out = true;  ///< the triangle faces away, or its plane stays out of reach all along the motion: no contact
};
inline SweepReach sweep_reach(const Capsule& capsule, const Vec3& motion, const Triangle& tri) {
  const double dc = center_plane_distance(capsule.center, tri);
  if (dc <= 0) return {};  // one-sided: behind the triangle
  const double reach = std::fabs(tri.normal.y) * capsule.half_segment + capsule.radius;
  const double dn = dot(motion, tri.normal);
  const double s0 = dc - reach;
  return {dn, s0, s0 > 0 && (dn >= 0 || s0 + dn > 0)};
}
/// sweep_capsule_triangle() against the whole plane of `tri` (one-sided, the same rules): for a
/// triangle so large that nothing one motion reaches lies beyond its edges (a fence between two
/// characters, movement.md §16), the same answer for a fraction of the work.
std::optional<SweepContact> sweep_capsule_plane(const Capsule& capsule, const Vec3& motion, const Triangle& tri);

}  // namespace foothold
