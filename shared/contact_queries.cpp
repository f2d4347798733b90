#include "shared/contact_queries.h"

#include <cmath>
#include <limits>

#include "shared/det_math.h"
#include "shared/tolerances.h"

namespace foothold {

namespace {
bool nearer(const Contact& a, const Contact& b) {
  return a.gap < b.gap || (a.gap == b.gap && a.triangle < b.triangle);
}
bool overlaps(const Vec3& a_lo, const Vec3& a_hi, const Vec3& lo, const Vec3& hi) {
  return a_lo.x <= hi.x && a_hi.x >= lo.x && a_lo.y <= hi.y && a_hi.y >= lo.y && a_lo.z <= hi.z && a_hi.z >= lo.z;
}
bool overlaps(const WorldTriangle& t, const Vec3& lo, const Vec3& hi) { return overlaps(t.lo, t.hi, lo, hi); }
// Calls visit(i) for each mover triangle i (the frame's index) that overlaps the box [lo, hi], in
// ascending order, a whole mover's bounds tested first, until it returns true; whether it did.
template <typename Visit>
bool visit_mover_triangles(const MoverFrame& movers, const Vec3& lo, const Vec3& hi, Visit&& visit) {
  for (std::size_t m = 0; m < movers.mover_count(); ++m) {
    if (!overlaps(movers.bounds(m).lo, movers.bounds(m).hi, lo, hi)) continue;
    for (uint32_t i = movers.first(m); i < movers.first(m + 1); ++i)
      if (overlaps(movers.triangle(i), lo, hi) && visit(i)) return true;
  }
  return false;
}
}  // namespace

void ContactList::insert(const Contact& c) {
  int pos = count_;
  while (pos > 0 && nearer(c, items_[size_t(pos - 1)])) --pos;
  if (pos >= kCapacity) return;
  const int last = count_ < kCapacity ? count_ : kCapacity - 1;
  for (int i = last; i > pos; --i) items_[size_t(i)] = items_[size_t(i - 1)];
  items_[size_t(pos)] = c;
  if (count_ < kCapacity) ++count_;
}

void ContactList::remove(int i) {
  for (int k = i; k + 1 < count_; ++k) items_[size_t(k)] = items_[size_t(k + 1)];
  --count_;
}

SweepHit ContactQueries::sweep_shape(const Capsule& shape, const Vec3& motion) {
  SweepHit best;
  if (length_sq(motion) <= 0) return best;
  // Bounds of the swept shape: triangles outside them cannot be touched.
  const Vec3 ext{shape.radius, shape.half_segment + shape.radius, shape.radius};
  const Vec3 end = shape.center + motion;
  const Vec3 lo{det_min(shape.center.x, end.x) - ext.x, det_min(shape.center.y, end.y) - ext.y,
                det_min(shape.center.z, end.z) - ext.z};
  const Vec3 hi{det_max(shape.center.x, end.x) + ext.x, det_max(shape.center.y, end.y) + ext.y,
                det_max(shape.center.z, end.z) + ext.z};
  ensure(lo, hi);
  for (uint32_t i : candidates_) {
    const WorldTriangle& t = triangle(i);
    if (!overlaps(t, lo, hi)) continue;
    if (ignored_mover_ >= 0 && mover_of(i) == ignored_mover_) continue;
    if (sweep_reach(shape, motion, t.tri).out) continue;  // as either sweep would say, without the call
    // A fence stands for the whole plane (its square is far larger than a tick's reach).
    const auto hit = i >= fence_base_ ? sweep_capsule_plane(shape, motion, t.tri) : sweep_capsule_triangle(shape, motion, t.tri);
    if (hit && hit->fraction < best.fraction) {
      best.hit = true;
      best.fraction = hit->fraction;
      best.triangle = i;
    }
  }
  if (best.hit) {
    // The normal of the contact the shape makes where it stops (a hit is always in front of the
    // triangle, so the contact exists; the face normal stands in should rounding say otherwise).
    // A fence's is its plane's.
    const Triangle& tri = triangle(best.triangle).tri;
    if (best.triangle >= fence_base_) {
      best.normal = tri.normal;
      return best;
    }
    const Capsule at{shape.center + motion * best.fraction, shape.half_segment, shape.radius};
    const auto c = capsule_triangle_contact(at, tri, std::numeric_limits<double>::infinity());
    best.normal = c ? c->normal : tri.normal;
  }
  return best;
}

Aabb ContactQueries::contact_box(const Vec3& center, double max_gap) const {
  const double reach = settings_.radius + max_gap;
  return {{center.x - reach, center.y - settings_.half_segment - reach, center.z - reach},
          {center.x + reach, center.y + settings_.half_segment + reach, center.z + reach}};
}

void ContactQueries::contacts(const Vec3& center, double max_gap, ContactList& out) {
  out.clear();
  const Capsule cap = capsule(center);
  const auto [lo, hi] = contact_box(center, max_gap);
  ensure(lo, hi);
  for (uint32_t i : candidates_) {
    if (i >= fence_base_) break;  // fences are never contacts (they come last)
    const WorldTriangle& t = triangle(i);
    if (!overlaps(t, lo, hi)) continue;
    const auto found = capsule_triangle_contact(cap, t.tri, max_gap);
    if (!found) continue;
    Contact c;
    c.triangle = i;
    c.point = found->point;
    c.core_point = found->core_point;
    c.normal = found->normal;
    c.gap = found->gap;
    c.tag = t.tag;
    out.insert(c);
  }
}

void ContactQueries::prefetch(const Aabb& box, CandidateCache* cache) {
  any_ = true;
  if (!cache) {
    covered_ = box;
    world_.collect(box, candidates_);
    add_mover_candidates(box);
    return;
  }
  const Aabb& c = cache->covered;
  if (!(cache->valid && box.lo.x >= c.lo.x && box.lo.y >= c.lo.y && box.lo.z >= c.lo.z && box.hi.x <= c.hi.x &&
        box.hi.y <= c.hi.y && box.hi.z <= c.hi.z)) {
    // Grown so that the next few steps of a walking character fall inside it.
    constexpr double kSlack = tolerance::kCacheSlack;
    cache->covered = {{box.lo.x - kSlack, box.lo.y - kSlack, box.lo.z - kSlack}, {box.hi.x + kSlack, box.hi.y + kSlack, box.hi.z + kSlack}};
    world_.collect(cache->covered, cache->candidates);
    cache->valid = true;
  }
  covered_ = cache->covered;
  candidates_.assign(cache->candidates.begin(), cache->candidates.end());
  add_mover_candidates(covered_);
}

bool ContactQueries::mover_within(const Vec3& center, double max_gap) const {
  if (!movers_) return false;
  // contacts()'s own test, on the movers' triangles alone: one it passes over is none of its contacts.
  const auto [lo, hi] = contact_box(center, max_gap);
  return visit_mover_triangles(*movers_, lo, hi, [](uint32_t) { return true; });
}

// Movers and fences are few and change every tick: their triangles are tested against the box
// directly (a whole mover's bounds first), after the static ones, so the list stays ascending.
void ContactQueries::add_mover_candidates(const Aabb& box) {
  if (movers_) visit_mover_triangles(*movers_, box.lo, box.hi, [this](uint32_t i) {
    candidates_.push_back(static_count_ + i);
    return false;
  });
  for (uint32_t k = 0; k < fence_count_; ++k)
    if (overlaps(fences_[k], box.lo, box.hi)) candidates_.push_back(fence_base_ + k);
}

void ContactQueries::ensure(const Vec3& lo, const Vec3& hi) {
  if (any_ && lo.x >= covered_.lo.x && lo.y >= covered_.lo.y && lo.z >= covered_.lo.z && hi.x <= covered_.hi.x &&
      hi.y <= covered_.hi.y && hi.z <= covered_.hi.z)
    return;
  // Grow to cover both, with room to spare so that a wandering step collects rarely.
  constexpr double kSlack = tolerance::kGatherSlack;
  Aabb box{{lo.x - kSlack, lo.y - kSlack, lo.z - kSlack}, {hi.x + kSlack, hi.y + kSlack, hi.z + kSlack}};
  if (any_) {
    box.lo = {det_min(box.lo.x, covered_.lo.x), det_min(box.lo.y, covered_.lo.y), det_min(box.lo.z, covered_.lo.z)};
    box.hi = {det_max(box.hi.x, covered_.hi.x), det_max(box.hi.y, covered_.hi.y), det_max(box.hi.z, covered_.hi.z)};
  }
  prefetch(box);
}

bool ContactQueries::first_crossing_above(const Vec3& point, double reach, bool& faces_up) {
  const Vec3 lo = point, hi = point + Vec3{0, reach, 0};
  ensure(lo, hi);
  bool found = false;
  double best = 0;
  for (uint32_t i : candidates_) {
    if (i >= fence_base_) break;  // other characters are not solids
    const WorldTriangle& t = triangle(i);
    if (!overlaps(t, lo, hi) || t.tri.normal.y == 0) continue;
    // Inside the triangle's shadow on the XZ plane (edges included): the three edge cross products
    // agree in sign.
    const Triangle& tri = t.tri;
    auto edge = [&](const Vec3& a, const Vec3& b) { return (b.x - a.x) * (point.z - a.z) - (b.z - a.z) * (point.x - a.x); };
    const double e0 = edge(tri.a, tri.b), e1 = edge(tri.b, tri.c), e2 = edge(tri.c, tri.a);
    if (!((e0 >= 0 && e1 >= 0 && e2 >= 0) || (e0 <= 0 && e1 <= 0 && e2 <= 0))) continue;
    const Vec3& n = tri.normal;
    const double y = tri.a.y - (n.x * (point.x - tri.a.x) + n.z * (point.z - tri.a.z)) / n.y;
    if (!(y >= point.y && y <= hi.y)) continue;
    if (!found || y < best) {
      found = true;
      best = y;
      faces_up = n.y > 0;
    }
  }
  return found;
}

double ContactQueries::gap_to(uint32_t triangle, const Vec3& center) const {
  const auto c = capsule_triangle_contact(capsule(center), this->triangle(triangle).tri,
                                          std::numeric_limits<double>::infinity());
  return c ? c->gap : std::numeric_limits<double>::infinity();
}

}  // namespace foothold
