#include "shared/contact_queries.h"

#include <cmath>
#include <limits>

#include "shared/tolerances.h"

namespace foothold {

namespace {
bool nearer(const Contact& a, const Contact& b) {
  return a.gap < b.gap || (a.gap == b.gap && a.triangle < b.triangle);
}
bool overlaps(const WorldTriangle& t, const Vec3& lo, const Vec3& hi) {
  return t.lo.x <= hi.x && t.hi.x >= lo.x && t.lo.y <= hi.y && t.hi.y >= lo.y && t.lo.z <= hi.z && t.hi.z >= lo.z;
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
  const Vec3 lo{std::fmin(shape.center.x, end.x) - ext.x, std::fmin(shape.center.y, end.y) - ext.y,
                std::fmin(shape.center.z, end.z) - ext.z};
  const Vec3 hi{std::fmax(shape.center.x, end.x) + ext.x, std::fmax(shape.center.y, end.y) + ext.y,
                std::fmax(shape.center.z, end.z) + ext.z};
  ensure(lo, hi);
  for (uint32_t i : candidates_) {
    const WorldTriangle& t = world_.triangle(i);
    if (!overlaps(t, lo, hi)) continue;
    const auto hit = sweep_capsule_triangle(shape, motion, t.tri);
    if (hit && hit->fraction < best.fraction) {
      best.hit = true;
      best.fraction = hit->fraction;
      best.triangle = i;
    }
  }
  if (best.hit) {
    // The normal of the contact the shape makes where it stops (a hit is always in front of the
    // triangle, so the contact exists; the face normal stands in should rounding say otherwise).
    const Triangle& tri = world_.triangle(best.triangle).tri;
    const Capsule at{shape.center + motion * best.fraction, shape.half_segment, shape.radius};
    const auto c = capsule_triangle_contact(at, tri, std::numeric_limits<double>::infinity());
    best.normal = c ? c->normal : tri.normal;
  }
  return best;
}

void ContactQueries::contacts(const Vec3& center, double max_gap, ContactList& out) {
  out.clear();
  const Capsule cap = capsule(center);
  const double reach = cap.radius + max_gap;
  const Vec3 lo{center.x - reach, center.y - cap.half_segment - reach, center.z - reach};
  const Vec3 hi{center.x + reach, center.y + cap.half_segment + reach, center.z + reach};
  ensure(lo, hi);
  for (uint32_t i : candidates_) {
    const WorldTriangle& t = world_.triangle(i);
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

}

void ContactQueries::ensure(const Vec3& lo, const Vec3& hi) {
  if (any_ && lo.x >= covered_.lo.x && lo.y >= covered_.lo.y && lo.z >= covered_.lo.z && hi.x <= covered_.hi.x &&
      hi.y <= covered_.hi.y && hi.z <= covered_.hi.z)
    return;
  // Grow to cover both, with room to spare so that a wandering step collects rarely.
  constexpr double kSlack = tolerance::kGatherSlack;
  Aabb box{{lo.x - kSlack, lo.y - kSlack, lo.z - kSlack}, {hi.x + kSlack, hi.y + kSlack, hi.z + kSlack}};
  if (any_) {
    box.lo = {std::fmin(box.lo.x, covered_.lo.x), std::fmin(box.lo.y, covered_.lo.y), std::fmin(box.lo.z, covered_.lo.z)};
    box.hi = {std::fmax(box.hi.x, covered_.hi.x), std::fmax(box.hi.y, covered_.hi.y), std::fmax(box.hi.z, covered_.hi.z)};
  }
  prefetch(box);
}

double ContactQueries::gap_to(uint32_t triangle, const Vec3& center) const {
  const auto c = capsule_triangle_contact(capsule(center), world_.triangle(triangle).tri,
                                          std::numeric_limits<double>::infinity());
  return c ? c->gap : std::numeric_limits<double>::infinity();
}

}  // namespace foothold
