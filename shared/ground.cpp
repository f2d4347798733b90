#include "shared/ground.h"

#include <cmath>
#include <limits>

#include "shared/det_math.h"
#include "shared/tolerances.h"

namespace foothold {

namespace {

// A contact point is an inner point when a sphere moving from the capsule's core straight at it
// reaches a different triangle first, and the point lies behind that triangle's plane or on it
// (movement.md §3.3). Such points are hidden behind the true contact, and counting them would invent
// crevices and bumps at internal edges.
void prune_inner_points(ContactQueries& q, ContactList& contacts) {
  const double r = q.settings().radius;
  bool keep[ContactList::kCapacity];
  for (int i = 0; i < contacts.size(); ++i) {
    keep[i] = true;
    const Contact& c = contacts[i];
    if (c.gap <= 0) continue;  // touching or penetrating: nothing can be in front of it
    const Vec3 to_point = c.point - c.core_point;
    const double dist = length(to_point);
    if (dist <= r) continue;
    const Vec3 dir = to_point / dist;
    const Capsule sphere{c.core_point, 0, r};
    const Vec3& own_normal = q.triangle(c.triangle).tri.normal;
    // Travel a hair past the contact so that its own triangle is reached within the cast.
    const double travel = c.gap * (1 + tolerance::kCastOvershoot) + tolerance::kCastOvershoot;
    for (int j = 0; j < contacts.size(); ++j) {
      if (j == i) continue;
      const Triangle& other = q.triangle(contacts[j].triangle).tri;
      // Only a triangle the point lies behind can hide it, or one it lies on that continues its own
      // plane (a shared edge of a flat floor). In a concave corner the cast toward the floor grazes
      // the wall first, but the floor's point is in front of the wall, or on the crease they share:
      // both are real contacts.
      const double side = center_plane_distance(c.point, other);
      const bool behind = side < -tolerance::kDistanceNoise ||
                          (side <= tolerance::kDistanceNoise &&
                           dot(own_normal, other.normal) >= tolerance::kCoplanarDot);
      if (!behind) continue;
      const auto hit = sweep_capsule_triangle(sphere, dir * travel, other);
      // Strictly earlier by more than rounding noise: a shared edge reached at the same moment is
      // not in front.
      if (hit && hit->fraction * travel < c.gap - tolerance::kDistanceNoise) {
        keep[i] = false;
        break;
      }
    }
  }
  for (int i = contacts.size() - 1; i >= 0; --i)
    if (!keep[i]) contacts.remove(i);
}

// The wedge test (movement.md §3.4): for each upward contact, the direction gravity would slide the character
// along its plane; another normal opposing that slide leaves only the crease (the cross product)
// to move along. A crease no steeper than the slope limit holds the character (crevice); a steeper
// one holds it only when a third normal opposes the crease too (pit).
GroundKind wedge_kind(const ContactList& c, const DerivedSettings& s) {
  constexpr double kOppose = -tolerance::kOpposeDot;
  bool pit = false;
  for (int i = 0; i < c.size(); ++i) {
    if (c[i].tag == SurfaceTag::kNeverGround) continue;
    const Vec3& ni = c[i].normal;
    if (ni.y <= 0) continue;
    const Vec3 slide = normalized_or_zero(reject(Vec3{0, -1, 0}, ni));
    if (length_sq(slide) == 0) continue;
    for (int j = 0; j < c.size(); ++j) {
      if (j == i || c[j].tag == SurfaceTag::kNeverGround) continue;
      const Vec3& nj = c[j].normal;
      if (dot(ni, nj) >= tolerance::kCoplanarDot) continue;  // one plane: no crease (§3.4)
      if (dot(nj, slide) >= kOppose) continue;
      Vec3 crease = normalized_or_zero(cross(ni, nj));
      if (length_sq(crease) == 0) continue;
      if (crease.y > 0) crease = -crease;  // the way down the crease
      if (-crease.y <= s.sin_max_slope) return GroundKind::kCrevice;
      for (int k = 0; k < c.size() && !pit; ++k) {
        if (k == i || k == j || c[k].tag == SurfaceTag::kNeverGround) continue;
        if (dot(c[k].normal, crease) < kOppose) pit = true;
      }
    }
  }
  return pit ? GroundKind::kPit : GroundKind::kNone;
}

// §3.5 Perching: a character whose round base has rolled over the edge of walkable ground (a
// stair's nosing, a kerb) touches that edge with a normal too steep to stand on, though it will be on
// the ground below the edge within a tick or two. The edge holds it when the edge's own face is
// walkable and walkable ground lies no more than step_height below its standing height; then the
// step follows the edge's contact normal down over the nosing, and the stored ground never flickers.
// A real ledge (deeper than step_height) holds nothing: the character falls.
int perch(ContactQueries& q, const Vec3& center, const ContactList& contacts) {
  const DerivedSettings& s = q.settings();
  for (int i = 0; i < contacts.size(); ++i) {
    const Contact& c = contacts[i];
    if (c.normal.y <= 0 || c.tag == SurfaceTag::kNeverGround) continue;
    const Vec3& face = q.triangle(c.triangle).tri.normal;
    // The edge of a face that is itself walkable (or tagged so), touched on its edge.
    if (!(c.tag == SurfaceTag::kAlwaysGround || walkable_normal(face, s))) continue;
    if (dot(face, c.normal) >= tolerance::kCoplanarDot) continue;  // a face contact: not an edge
    // Walkable ground no more than step_height below the edge, under the part of the character's
    // base that is past the edge: a sphere on the axis just narrower than the edge's horizontal
    // distance, swept down. On stairs narrower than the capsule it finds the next tread even when
    // the axis is already over the one after.
    const Vec3 foot{center.x, center.y - s.half_segment, center.z};
    const double rho = det_max(det_min(s.radius, length(horizontal(c.point - foot))) - s.safety_margin, s.safety_margin);
    // Deep enough for the sphere's side to reach a tread edge at that depth; the contact point's
    // height decides.
    const double floor_y = c.point.y - s.step_height - tolerance::kDistanceNoise;
    const double depth = foot.y - floor_y;
    if (!(depth > 0)) return -1;
    const SweepHit below = q.sweep_shape(Capsule{foot, 0, rho}, Vec3{0, -depth, 0});
    if (!below.hit) return -1;
    const WorldTriangle& hit = q.triangle(below.triangle);
    const bool ground =
        hit.tag == SurfaceTag::kAlwaysGround || (hit.tag == SurfaceTag::kByNormal && walkable_normal(hit.tri.normal, s));
    if (!ground) return -1;
    const auto touch = capsule_triangle_contact(Capsule{foot + Vec3{0, -depth * below.fraction, 0}, 0, rho}, hit.tri,
                                                std::numeric_limits<double>::infinity());
    return touch && touch->point.y >= floor_y ? i : -1;
  }
  return -1;
}

}  // namespace

GroundResult evaluate_ground(ContactQueries& q, const Vec3& center) {
  GroundResult g;
  evaluate_ground(q, center, g);
  return g;
}

void evaluate_ground(ContactQueries& q, const Vec3& center, GroundResult& g) {
  const DerivedSettings& s = q.settings();
  g.kind = GroundKind::kNone;
  g.floor = -1;
  g.penetration = 0;
  q.contacts(center, s.contact_distance, g.contacts);
  // The nearest contact is never an inner point (anything a cast toward it met first would be nearer
  // still). When it supports the character, grounding is decided without looking at the others, so
  // the (quadratic) pruning is only paid where it can change the answer.
  if (!(g.contacts.size() > 0 && supports(g.contacts[0], s))) prune_inner_points(q, g.contacts);
  for (int i = 0; i < g.contacts.size(); ++i) {
    const Contact& c = g.contacts[i];
    if (-c.gap > g.penetration) g.penetration = -c.gap;
    if (g.floor < 0 && supports(c, s)) g.floor = i;  // the nearest supporting contact wins
  }
  if (g.floor < 0) g.floor = perch(q, center, g.contacts);
  if (g.floor >= 0) {
    g.kind = g.contacts[g.floor].tag == SurfaceTag::kAlwaysGround ? GroundKind::kTagged : GroundKind::kWalkable;
  } else {
    g.kind = wedge_kind(g.contacts, s);
  }
}

}  // namespace foothold
