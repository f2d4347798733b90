#include "shared/ray_query.h"

#include <algorithm>
#include <cmath>

#include "shared/det_math.h"

namespace foothold {

namespace {

// The distance along the unit ray to triangle `t` (either face), or negative when it misses
// (Möller-Trumbore; a ray in the triangle's plane misses).
double ray_triangle(const Vec3& o, const Vec3& d, const Triangle& t) {
  const Vec3 e1 = t.b - t.a, e2 = t.c - t.a;
  const Vec3 p = cross(d, e2);
  const double det = dot(e1, p);
  if (det == 0) return -1;
  const double inv = 1.0 / det;
  const Vec3 s = o - t.a;
  const double u = dot(s, p) * inv;
  if (u < 0 || u > 1) return -1;
  const Vec3 q = cross(s, e1);
  const double v = dot(d, q) * inv;
  if (v < 0 || u + v > 1) return -1;
  return dot(e2, q) * inv;
}

// The nearer of the ray's entries into the sphere at `s` of radius `r` (0 inside it), or negative.
double ray_sphere(const Vec3& o, const Vec3& d, const Vec3& s, double r) {
  const Vec3 m = o - s;
  const double b = dot(m, d), c = dot(m, m) - r * r;
  if (c <= 0) return 0;
  if (b > 0) return -1;
  const double disc = b * b - c;
  if (disc < 0) return -1;
  return -b - std::sqrt(disc);
}

// A candidate hit beats the best so far: nearer, then by kind (character, mover, surface), then by
// its id or index.
struct Ranked {
  double distance = 0;
  int kind_rank = 0;
  uint32_t key = 0;
};
bool better(const Ranked& a, const Ranked& b) {
  if (a.distance != b.distance) return a.distance < b.distance;
  if (a.kind_rank != b.kind_rank) return a.kind_rank < b.kind_rank;
  return a.key < b.key;
}

Vec3 facing(const Vec3& n, const Vec3& d) { return dot(n, d) > 0 ? -n : n; }

}  // namespace

double ray_capsule(const Vec3& o, const Vec3& d, const QueryCapsule& c) {
  const double lo = c.center.y - c.half_segment, hi = c.center.y + c.half_segment;
  // Inside: the closest point of the core segment is within the radius.
  const Vec3 nearest{c.center.x, det_min(det_max(o.y, lo), hi), c.center.z};
  if (length_sq(o - nearest) <= c.radius * c.radius) return 0;
  double best = -1;
  // The cylinder's side: horizontal components only.
  const double ox = o.x - c.center.x, oz = o.z - c.center.z;
  const double a = d.x * d.x + d.z * d.z;
  if (a > 0) {
    const double b = ox * d.x + oz * d.z, k = ox * ox + oz * oz - c.radius * c.radius;
    const double disc = b * b - a * k;
    if (disc >= 0) {
      const double t = (-b - std::sqrt(disc)) / a;
      const double y = o.y + t * d.y;
      if (t >= 0 && y >= lo && y <= hi) best = t;
    }
  }
  // The two caps.
  for (const double y : {lo, hi}) {
    const double t = ray_sphere(o, d, {c.center.x, y, c.center.z}, c.radius);
    if (t >= 0 && (best < 0 || t < best)) best = t;
  }
  return best;
}

RayHit cast_ray(const World& world, const MoverFrame* movers, std::span<const QueryCapsule> characters, const Vec3& origin,
                const Vec3& direction, double length, uint32_t exclude, QueryScratch& scratch) {
  RayHit hit;
  const double dl = foothold::length(direction);
  if (!(dl > 0) || !(dl < 1e300) || !(length > 0) || !(length < 1e300)) return hit;
  if (!(origin.x == origin.x && origin.y == origin.y && origin.z == origin.z)) return hit;
  const Vec3 d = direction / dl;
  const Vec3 end = origin + d * length;
  Ranked best{length, 99, 0};
  bool found = false;
  auto offer = [&](double t, int kind_rank, uint32_t key) {
    if (t < 0 || t > length) return false;
    const Ranked r{t, kind_rank, key};
    if (found && !better(r, best)) return false;
    best = r;
    found = true;
    return true;
  };
  world.collect_along(origin, end, scratch.triangles);
  for (uint32_t i : scratch.triangles) {
    const WorldTriangle& t = world.triangle(i);
    if (offer(ray_triangle(origin, d, t.tri), 2, i)) {
      hit.kind = RayHit::Kind::kSurface;
      hit.triangle = i;
      hit.tag = t.tag;
      hit.normal = facing(t.tri.normal, d);
    }
  }
  if (movers) {
    for (std::size_t i = 0; i < movers->triangle_count(); ++i) {
      const WorldTriangle& t = movers->triangle(i);
      if (offer(ray_triangle(origin, d, t.tri), 1, uint32_t(i))) {
        hit.kind = RayHit::Kind::kMover;
        hit.triangle = uint32_t(i);
        hit.mover = movers->mover_of(i);
        hit.tag = t.tag;
        hit.normal = facing(t.tri.normal, d);
      }
    }
  }
  for (const QueryCapsule& c : characters) {
    if (exclude != 0 && c.id == exclude) continue;
    if (offer(ray_capsule(origin, d, c), 0, c.id)) {
      hit.kind = RayHit::Kind::kCharacter;
      hit.character = c.id;
      hit.triangle = 0;
      hit.mover = 0;
      hit.tag = SurfaceTag::kByNormal;
      const Vec3 p = origin + d * best.distance;
      const Vec3 axis{c.center.x, det_min(det_max(p.y, c.center.y - c.half_segment), c.center.y + c.half_segment), c.center.z};
      const Vec3 n = normalized_or_zero(p - axis);
      hit.normal = length_sq(n) > 0 ? n : -d;
    }
  }
  if (!found) return RayHit{};
  hit.distance = best.distance;
  hit.point = origin + d * best.distance;
  return hit;
}

void overlap_characters(std::span<const QueryCapsule> characters, const Vec3& center, double half_segment, double radius,
                        uint32_t exclude, std::vector<uint32_t>& out) {
  out.clear();
  for (const QueryCapsule& c : characters) {
    if (exclude != 0 && c.id == exclude) continue;
    // Two upright segments: their distance is the horizontal one and the vertical gap between them.
    const double dx = c.center.x - center.x, dz = c.center.z - center.z;
    const double gap = det_max(0.0, (c.center.y > center.y ? c.center.y - center.y : center.y - c.center.y) -
                                         (c.half_segment + half_segment));
    const double reach = c.radius + radius;
    if (dx * dx + dz * dz + gap * gap <= reach * reach) out.push_back(c.id);
  }
  std::sort(out.begin(), out.end());
}

}  // namespace foothold
