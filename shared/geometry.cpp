#include "shared/geometry.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "shared/det_math.h"
#include "shared/tolerances.h"

namespace foothold {

Vec3 closest_point_on_triangle(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c) {
  // Voronoi-region walk (Ericson, Real-Time Collision Detection 5.1.5).
  const Vec3 ab = b - a;
  const Vec3 ac = c - a;
  const Vec3 ap = p - a;
  const double d1 = dot(ab, ap);
  const double d2 = dot(ac, ap);
  if (d1 <= 0 && d2 <= 0) return a;
  const Vec3 bp = p - b;
  const double d3 = dot(ab, bp);
  const double d4 = dot(ac, bp);
  if (d3 >= 0 && d4 <= d3) return b;
  const double vc = d1 * d4 - d3 * d2;
  if (vc <= 0 && d1 >= 0 && d3 <= 0) return a + ab * (d1 / (d1 - d3));
  const Vec3 cp = p - c;
  const double d5 = dot(ab, cp);
  const double d6 = dot(ac, cp);
  if (d6 >= 0 && d5 <= d6) return c;
  const double vb = d5 * d2 - d1 * d6;
  if (vb <= 0 && d2 >= 0 && d6 <= 0) return a + ac * (d2 / (d2 - d6));
  const double va = d3 * d6 - d5 * d4;
  if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) return b + (c - b) * ((d4 - d3) / ((d4 - d3) + (d5 - d6)));
  const double denom = 1.0 / (va + vb + vc);
  return a + ab * (vb * denom) + ac * (vc * denom);
}

namespace {

// Closest points of segments p1q1 and p2q2 (Ericson 5.1.9); returns the squared distance.
double closest_segments(const Vec3& p1, const Vec3& q1, const Vec3& p2, const Vec3& q2, Vec3& c1, Vec3& c2) {
  constexpr double kEps = tolerance::kPointSegmentSq;
  const Vec3 d1 = q1 - p1;
  const Vec3 d2 = q2 - p2;
  const Vec3 r = p1 - p2;
  const double a = dot(d1, d1);
  const double e = dot(d2, d2);
  const double f = dot(d2, r);
  double s = 0;
  double t = 0;
  if (a <= kEps && e <= kEps) {
    c1 = p1;
    c2 = p2;
    return length_sq(c1 - c2);
  }
  if (a <= kEps) {
    t = std::clamp(f / e, 0.0, 1.0);
  } else {
    const double c = dot(d1, r);
    if (e <= kEps) {
      s = std::clamp(-c / a, 0.0, 1.0);
    } else {
      const double b = dot(d1, d2);
      const double denom = a * e - b * b;
      s = denom > kEps ? std::clamp((b * f - c * e) / denom, 0.0, 1.0) : 0.0;
      t = (b * s + f) / e;
      if (t < 0) {
        t = 0;
        s = std::clamp(-c / a, 0.0, 1.0);
      } else if (t > 1) {
        t = 1;
        s = std::clamp((b - c) / a, 0.0, 1.0);
      }
    }
  }
  c1 = p1 + d1 * s;
  c2 = p2 + d2 * t;
  return length_sq(c1 - c2);
}

// True when x (a point in the triangle's plane) lies inside the triangle or on its border.
bool inside_triangle(const Vec3& x, const Triangle& tri) {
  return dot(cross(tri.b - tri.a, x - tri.a), tri.normal) >= 0 && dot(cross(tri.c - tri.b, x - tri.b), tri.normal) >= 0 &&
         dot(cross(tri.a - tri.c, x - tri.c), tri.normal) >= 0;
}

// True when a dot product `d` of a motion with a unit direction (or, generally, of two vectors whose
// squared lengths multiply to `len_sq`) says the motion approaches: negative by more than rounding
// noise, a cosine of kApproachCosine. Squared, so that the common case costs no square root.
inline bool approaches(double d, double len_sq) {
  return d < 0 && d * d > tolerance::kApproachCosine * tolerance::kApproachCosine * len_sq;
}

// Entry time of the ray o + t*d (t in [0, t_max)) into the sphere (c, r); t_max when it misses.
double ray_sphere(const Vec3& o, const Vec3& d, const Vec3& c, double r, double t_max) {
  const Vec3 m = o - c;
  const double a = dot(d, d);
  const double b = dot(m, d);
  const double cc = dot(m, m) - r * r;
  // Moving away from the centre, or past it tangentially within rounding noise (a graze never enters).
  if (a <= 0 || !approaches(b, a * dot(m, m))) return t_max;
  const double disc = b * b - a * cc;
  if (disc < 0) return t_max;
  const double t = (-b - std::sqrt(disc)) / a;
  return (t >= 0 && t < t_max) ? t : t_max;
}

// Entry time of the ray into the side of the cylinder of radius r around segment p-q (the round
// ends are the vertex spheres, tested separately); t_max when it misses.
double ray_cylinder(const Vec3& o, const Vec3& d, const Vec3& p, const Vec3& q, double r, double t_max) {
  const Vec3 axis = q - p;
  const double len_sq = dot(axis, axis);
  if (len_sq <= tolerance::kPointSegmentSq) return t_max;
  const Vec3 m = o - p;
  const double md = dot(m, axis) / len_sq;
  const double dd = dot(d, axis) / len_sq;
  const Vec3 m_perp = m - axis * md;
  const Vec3 d_perp = d - axis * dd;
  const double a = dot(d_perp, d_perp);
  if (a <= tolerance::kZeroLengthSq) return t_max;  // moving along the axis: only the ends can be hit
  const double b = dot(m_perp, d_perp);
  if (!approaches(b, a * dot(m_perp, m_perp))) return t_max;  // away, or a graze
  const double cc = dot(m_perp, m_perp) - r * r;
  const double disc = b * b - a * cc;
  if (disc < 0) return t_max;
  const double t = (-b - std::sqrt(disc)) / a;
  if (t < 0 || t >= t_max) return t_max;
  const double s = md + t * dd;  // position along the axis, 0..1 on the segment
  return (s >= 0 && s <= 1) ? t : t_max;
}

}  // namespace

namespace {

// The common case of an upright capsule: the segment x = px, z = pz, y in [y0, y1] (y0 < y1), against
// a triangle that is not vertical. Along the infinite vertical line the squared distance to the
// triangle is convex in y; its minimum is where the line pierces the triangle, or (when it misses)
// at the nearest point of one of the edges, which in the XZ projection is a 2D point-segment
// distance. Clamping that y to the segment gives the segment's closest point, and one point-triangle
// query finishes the job. Cheaper than the general case by half.
SegmentTriangleClosest closest_vertical_segment_triangle(double px, double pz, double y0, double y1, const Triangle& tri) {
  const Vec3& n = tri.normal;
  double y_best;
  // Where the line meets the plane: n . ((px, y, pz) - a) = 0.
  const double y_plane = tri.a.y - (n.x * (px - tri.a.x) + n.z * (pz - tri.a.z)) / n.y;
  const Vec3 on_plane{px, y_plane, pz};
  const bool pierces = inside_triangle(on_plane, tri);
  if (pierces) {
    y_best = y_plane;
  } else {
    double best_d2 = std::numeric_limits<double>::infinity();
    y_best = y0;
    const Vec3* v[3] = {&tri.a, &tri.b, &tri.c};
    for (int i = 0; i < 3; ++i) {
      const Vec3& a = *v[i];
      const Vec3& b = *v[(i + 1) % 3];
      const double ex = b.x - a.x, ez = b.z - a.z;
      const double len2 = ex * ex + ez * ez;
      double u = len2 > tolerance::kZeroLengthSq ? ((px - a.x) * ex + (pz - a.z) * ez) / len2 : 0.0;
      u = std::clamp(u, 0.0, 1.0);
      const double dx = a.x + u * ex - px, dz = a.z + u * ez - pz;
      const double d2 = dx * dx + dz * dz;
      if (d2 < best_d2) {
        best_d2 = d2;
        y_best = a.y + u * (b.y - a.y);
      }
    }
  }
  const Vec3 s{px, std::clamp(y_best, y0, y1), pz};
  if (pierces && s.y == y_plane) return {s, s, 0.0};
  const Vec3 q = closest_point_on_triangle(s, tri.a, tri.b, tri.c);
  return {s, q, length(s - q)};
}

SegmentTriangleClosest closest_general_segment_triangle(const Vec3& p0, const Vec3& p1, const Triangle& tri);

}  // namespace

SegmentTriangleClosest closest_segment_triangle(const Vec3& p0, const Vec3& p1, const Triangle& tri) {
  if (p0 == p1) {  // a sphere's centre
    const Vec3 q = closest_point_on_triangle(p0, tri.a, tri.b, tri.c);
    return {p0, q, length(p0 - q)};
  }
  if (p0.x == p1.x && p0.z == p1.z && std::fabs(tri.normal.y) > tolerance::kVerticalNormalY) {
    return p0.y < p1.y ? closest_vertical_segment_triangle(p0.x, p0.z, p0.y, p1.y, tri)
                       : closest_vertical_segment_triangle(p0.x, p0.z, p1.y, p0.y, tri);
  }
  return closest_general_segment_triangle(p0, p1, tri);
}

namespace {

SegmentTriangleClosest closest_general_segment_triangle(const Vec3& p0, const Vec3& p1, const Triangle& tri) {
  SegmentTriangleClosest best;
  // Does the segment pierce the triangle?
  const double d0 = dot(p0 - tri.a, tri.normal);
  const double d1 = dot(p1 - tri.a, tri.normal);
  if ((d0 <= 0 && d1 >= 0) || (d0 >= 0 && d1 <= 0)) {
    if (d0 != d1) {
      const Vec3 x = p0 + (p1 - p0) * (d0 / (d0 - d1));
      if (inside_triangle(x, tri)) return {x, x, 0.0};
    }
  }
  // Otherwise the closest pair involves an endpoint of the segment or an edge of the triangle.
  double best_sq = std::numeric_limits<double>::infinity();
  auto consider = [&](const Vec3& s, const Vec3& t) {
    const double dsq = length_sq(s - t);
    if (dsq < best_sq) {
      best_sq = dsq;
      best.on_segment = s;
      best.on_triangle = t;
    }
  };
  consider(p0, closest_point_on_triangle(p0, tri.a, tri.b, tri.c));
  consider(p1, closest_point_on_triangle(p1, tri.a, tri.b, tri.c));
  const Vec3* v[3] = {&tri.a, &tri.b, &tri.c};
  for (int i = 0; i < 3; ++i) {
    Vec3 cs, ct;
    closest_segments(p0, p1, *v[i], *v[(i + 1) % 3], cs, ct);
    consider(cs, ct);
  }
  best.distance = std::sqrt(best_sq);
  return best;
}

}  // namespace

std::optional<CapsuleContact> capsule_triangle_contact(const Capsule& capsule, const Triangle& tri, double max_gap) {
  const double dc = center_plane_distance(capsule.center, tri);
  if (dc <= 0) return std::nullopt;
  // The nearest point of the core segment to the plane bounds the distance to the triangle.
  const double plane_gap = dc - std::fabs(tri.normal.y) * capsule.half_segment - capsule.radius;
  if (plane_gap > max_gap) return std::nullopt;
  const auto cp = closest_segment_triangle(capsule.bottom(), capsule.top(), tri);
  const double gap = cp.distance - capsule.radius;
  if (gap > max_gap) return std::nullopt;
  CapsuleContact contact;
  contact.point = cp.on_triangle;
  contact.core_point = cp.on_segment;
  contact.normal = cp.distance > tolerance::kContactDirection ? (cp.on_segment - cp.on_triangle) / cp.distance : tri.normal;
  contact.gap = gap;
  return contact;
}

std::optional<SweepContact> sweep_capsule_plane(const Capsule& capsule, const Vec3& motion, const Triangle& tri) {
  // sweep_capsule_triangle's steps where the triangle is the whole plane: the same cull, the same
  // touching rule (the closest point of a plane is straight across it) and the cap's entry time;
  // no edge or vertex can come first.
  const Vec3& n = tri.normal;
  const double hl = capsule.half_segment;
  const double r = capsule.radius;
  const Vec3& o = capsule.center;
  const SweepReach at = sweep_reach(capsule, motion, tri);
  if (at.out) return std::nullopt;
  const double dn = at.dn, s0 = at.s0;
  if (s0 <= tolerance::kDistanceNoise) {
    if (dn < -tolerance::kApproachCosine * length(motion)) return SweepContact{0.0};
    return std::nullopt;
  }
  if (!approaches(dn, length_sq(motion))) return std::nullopt;
  // The cap on the front side (for an upright plane both lie at the same distance).
  const Vec3 off{0, n.y < 0 ? -hl : hl, 0};
  const double t = (r - dot(o - (tri.a + off), n)) / dn;
  if (t < 0 || t > 1.0) return std::nullopt;
  if (center_plane_distance(o + motion * t, tri) <= 0) return std::nullopt;
  return SweepContact{t};
}

// long-function: kept whole on purpose. It is one exact geometric case analysis (already touching,
// out of reach, the slab cull, then the caps, side faces, edge cylinders and vertex spheres of
// P + sphere(r)) whose branches share their state: the earliest hit so far, `t_hit`, which each
// primitive may only lower, and the order of the tests, which decides which contact wins. Split into
// functions, that state would be passed back and forth and the order read in several places.
std::optional<SweepContact> sweep_capsule_triangle(const Capsule& capsule, const Vec3& motion, const Triangle& tri) {
  const Vec3& n = tri.normal;
  const double hl = capsule.half_segment;
  const double r = capsule.radius;
  const Vec3& o = capsule.center;
  // Behind the triangle, or never within the capsule's reach of its plane.
  if (sweep_reach(capsule, motion, tri).out) return std::nullopt;

  // Already touching: block only a motion that approaches the contact. A start that a sweep left
  // exactly touching may sit a rounding error outside: that counts as touching too, or the entry
  // time below would come out a hair negative and the motion would pass through.
  const auto cp = closest_segment_triangle(capsule.bottom(), capsule.top(), tri);
  if (cp.distance <= r + tolerance::kDistanceNoise) {
    const Vec3 nc = cp.distance > tolerance::kContactDirection ? (cp.on_segment - cp.on_triangle) / cp.distance : n;
    const double approach = dot(motion, nc);
    if (approach < -tolerance::kApproachCosine * length(motion)) return SweepContact{0.0};
    return std::nullopt;
  }
  // Out of reach: every point of the capsule moves by |motion|, so a gap longer than that stays
  // open (most triangles beside the one a character walks on end here, before the 15 primitives).
  if (cp.distance - r > std::sqrt(length_sq(motion)) + tolerance::kOutOfReachSpare) return std::nullopt;

  // Cheap rejection first: the ray against the bounds of P + sphere(r) (slab test).
  {
    double t0 = 0, t1 = 1;
    const double lo[3] = {det_min(det_min(tri.a.x, tri.b.x), tri.c.x) - r,
                          det_min(det_min(tri.a.y, tri.b.y), tri.c.y) - r - hl,
                          det_min(det_min(tri.a.z, tri.b.z), tri.c.z) - r};
    const double hi[3] = {det_max(det_max(tri.a.x, tri.b.x), tri.c.x) + r,
                          det_max(det_max(tri.a.y, tri.b.y), tri.c.y) + r + hl,
                          det_max(det_max(tri.a.z, tri.b.z), tri.c.z) + r};
    const double org[3] = {o.x, o.y, o.z};
    const double dir[3] = {motion.x, motion.y, motion.z};
    for (int axis = 0; axis < 3; ++axis) {
      if (dir[axis] == 0) {
        if (org[axis] < lo[axis] || org[axis] > hi[axis]) return std::nullopt;
        continue;
      }
      double ta = (lo[axis] - org[axis]) / dir[axis];
      double tb = (hi[axis] - org[axis]) / dir[axis];
      if (ta > tb) std::swap(ta, tb);
      t0 = det_max(t0, ta);
      t1 = det_min(t1, tb);
      if (t0 > t1) return std::nullopt;
    }
  }

  // The centre moves as a ray against P + sphere(r), where P is the triangle swept along the core
  // segment (a prism). Its boundary is covered by the offset faces of P, cylinders around P's edges
  // and spheres at P's vertices; the first entry into any of them is the time of impact.
  double t_hit = tolerance::kNoHitFraction;
  const Vec3 v[3] = {tri.a, tri.b, tri.c};
  auto finish = [&](double t) -> std::optional<SweepContact> {
    if (t > 1.0) return std::nullopt;
    // One-sided: a contact reached with the centre behind the plane is a contact with the back.
    if (center_plane_distance(o + motion * t, tri) <= 0) return std::nullopt;
    return SweepContact{t};
  };
  const Vec3 up_off{0, hl, 0};

  // A motion that approaches a face by no more than rounding noise runs along it: it never enters
  // the face (movement.md §6.2), or a slide along a plane would be stopped by its own rounding.
  const double motion_sq = length_sq(motion);
  // Caps: the triangle shifted up or down by hl, whichever faces the front; both for a vertical one.
  auto cap = [&](const Vec3& off) {
    const double denom = dot(motion, n);
    if (!approaches(denom, motion_sq)) return;
    const double t = (r - dot(o - (tri.a + off), n)) / denom;
    if (t < 0 || t >= t_hit) return;
    const Vec3 x = o + motion * t - n * r - off;
    if (inside_triangle(x, tri)) t_hit = t;
  };
  if (n.y > tolerance::kHorizontalY) {
    cap(up_off);
  } else if (n.y < -tolerance::kHorizontalY) {
    cap(-up_off);
  } else {
    cap(up_off);
    cap(-up_off);
  }

  // P + sphere(r) is convex, so a ray crossing one of its offset faces, inside the face and heading
  // inward, has found the one point where it enters: no edge or vertex can come earlier.
  if (t_hit <= 1.0) return finish(t_hit);
  if (hl > 0) {
    // Side faces: each edge swept along the segment, a vertical parallelogram.
    for (int i = 0; i < 3; ++i) {
      const Vec3& p = v[i];
      const Vec3 e = v[(i + 1) % 3] - p;
      const Vec3 eh = horizontal(e);
      const double eh_sq = length_sq(eh);
      if (eh_sq <= tolerance::kPointSegmentSq) continue;  // a vertical edge: its cylinder covers it
      Vec3 m = Vec3{-e.z, 0, e.x} / std::sqrt(eh_sq);
      const double away = dot(m, v[(i + 2) % 3] - p);
      if (away > tolerance::kEdgeSide) {
        m = -m;
      } else if (away >= -tolerance::kEdgeSide && dot(m, n) < 0) {
        m = -m;  // vertical triangle: the face on the front side
      }
      const double denom = dot(motion, m);
      if (!approaches(denom, motion_sq)) continue;
      const double t = (r - dot(o - p, m)) / denom;
      if (t < 0 || t >= t_hit) continue;
      const Vec3 local = o + motion * t - m * r - p;
      const double u = dot(horizontal(local), eh) / eh_sq;
      const double w = local.y - u * e.y;
      if (u >= 0 && u <= 1 && w >= -hl && w <= hl) return finish(t);
    }
    for (int i = 0; i < 3; ++i) {
      const Vec3 top_i = v[i] + up_off;
      const Vec3 bot_i = v[i] - up_off;
      const Vec3 top_j = v[(i + 1) % 3] + up_off;
      const Vec3 bot_j = v[(i + 1) % 3] - up_off;
      t_hit = ray_cylinder(o, motion, top_i, top_j, r, t_hit);
      t_hit = ray_cylinder(o, motion, bot_i, bot_j, r, t_hit);
      t_hit = ray_cylinder(o, motion, bot_i, top_i, r, t_hit);
      t_hit = ray_sphere(o, motion, top_i, r, t_hit);
      t_hit = ray_sphere(o, motion, bot_i, r, t_hit);
    }
  } else {
    for (int i = 0; i < 3; ++i) {
      t_hit = ray_cylinder(o, motion, v[i], v[(i + 1) % 3], r, t_hit);
      t_hit = ray_sphere(o, motion, v[i], r, t_hit);
    }
  }
  return finish(t_hit);
}

}  // namespace foothold
