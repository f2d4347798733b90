#include "shared/interpolation.h"

#include <algorithm>

namespace foothold {

const RemoteInterpolator::Track* RemoteInterpolator::find(uint32_t id) const {
  const auto it = std::lower_bound(ids_.begin(), ids_.end(), id);
  return it != ids_.end() && *it == id ? &tracks_[std::size_t(it - ids_.begin())] : nullptr;
}

void RemoteInterpolator::add(uint32_t id, uint32_t tick, const FixedVec3& position, GroundKind ground, bool crouched) {
  const auto it = std::lower_bound(ids_.begin(), ids_.end(), id);
  const std::size_t k = std::size_t(it - ids_.begin());
  if (it == ids_.end() || *it != id) {
    ids_.insert(it, id);
    tracks_.insert(tracks_.begin() + std::ptrdiff_t(k), Track{});
  }
  Track& t = tracks_[k];
  // Keep tick order; a late (reordered) sample is slotted in, a duplicate tick replaced.
  int pos = t.count;
  while (pos > 0 && t.points[size_t(pos - 1)].tick > tick) --pos;
  if (pos > 0 && t.points[size_t(pos - 1)].tick == tick) {
    t.points[size_t(pos - 1)] = {tick, position, ground, crouched};
    return;
  }
  if (t.count == kSamples) {
    if (pos == 0) return;  // older than everything kept
    for (int i = 1; i < t.count; ++i) t.points[size_t(i - 1)] = t.points[size_t(i)];
    --t.count;
    --pos;
  }
  for (int i = t.count; i > pos; --i) t.points[size_t(i)] = t.points[size_t(i - 1)];
  t.points[size_t(pos)] = {tick, position, ground, crouched};
  ++t.count;
}

std::optional<RemoteInterpolator::Sample> RemoteInterpolator::sample(uint32_t id, double tick, double crouch_drop,
                                                                    bool cubic) const {
  const Track* found = find(id);
  if (!found || found->count == 0) return std::nullopt;
  const Track& t = *found;
  const Point& first = t.points[0];
  const Point& last = t.points[size_t(t.count - 1)];
  if (tick <= first.tick) return Sample{to_position(first.position), first.ground, {}, first.crouched};
  if (tick >= last.tick) return Sample{to_position(last.position), last.ground, {}, last.crouched};
  // Where a standing capsule with the same feet would have its centre (the centre itself where
  // standing): what is interpolated, so a crouch is no motion.
  const auto standing = [&](int i) {
    const Point& p = t.points[size_t(i)];
    return to_position(p.position) + Vec3{0, p.crouched ? crouch_drop : 0, 0};
  };
  // The segment [a, b] with b the first sample at or after `tick` (there is one: tick < last.tick),
  // looked for from the newest end: a drawn moment lies a sample or two before it, so a walk from the
  // oldest of kSamples would pass nearly all of them on every call.
  int i = t.count - 1;
  while (i > 1 && !(t.points[size_t(i - 1)].tick < tick)) --i;
  const Point& b = t.points[size_t(i)];
  const Point& a = t.points[size_t(i - 1)];
  const double h = double(b.tick - a.tick);
  const double f = (tick - a.tick) / h;
  const Point& near = f < 0.5 ? a : b;
  const Vec3 pa = standing(i - 1), pb = standing(i);
  const Vec3 drop{0, near.crouched ? crouch_drop : 0, 0};
  if (!cubic) return Sample{pa + (pb - pa) * f - drop, near.ground, (pb - pa) * (1.0 / h), near.crouched};
  // Cubic Hermite: the motion at each sample is the slope across its two neighbours (the
  // segment's own at the ends of the track), so the drawn velocity changes smoothly at samples.
  const auto slope = [&](int from, int to) {
    return (standing(to) - standing(from)) * (1.0 / double(t.points[size_t(to)].tick - t.points[size_t(from)].tick));
  };
  const Vec3 ma = slope(i >= 2 ? i - 2 : i - 1, i) * h, mb = slope(i - 1, i + 1 < t.count ? i + 1 : i) * h;
  const double f2 = f * f, f3 = f2 * f;
  const Vec3 p = pa * (2 * f3 - 3 * f2 + 1) + ma * (f3 - 2 * f2 + f) + pb * (-2 * f3 + 3 * f2) + mb * (f3 - f2);
  const Vec3 v = pa * (6 * f2 - 6 * f) + ma * (3 * f2 - 4 * f + 1) + pb * (-6 * f2 + 6 * f) + mb * (3 * f2 - 2 * f);
  return Sample{p - drop, near.ground, v * (1.0 / h), near.crouched};
}

std::optional<uint32_t> RemoteInterpolator::newest_tick(uint32_t id) const {
  const Track* t = find(id);
  if (!t || t->count == 0) return std::nullopt;
  return t->points[size_t(t->count - 1)].tick;
}

FixedVec3 RemoteInterpolator::motion(uint32_t id, uint32_t tick, uint32_t max_gap) const {
  const Track* found = find(id);
  if (!found || found->count < 2) return {};
  const Track& t = *found;
  const Point& b = t.points[size_t(t.count - 1)];
  const Point& a = t.points[size_t(t.count - 2)];
  const uint32_t gap = b.tick - a.tick;
  if (b.tick != tick || gap == 0 || gap > max_gap) return {};
  const auto per_tick = [gap](int32_t from, int32_t to) { return int32_t((int64_t(to) - int64_t(from)) / int64_t(gap)); };
  return {per_tick(a.position.x, b.position.x), 0, per_tick(a.position.z, b.position.z)};
}

void RemoteInterpolator::hold_until(uint32_t id, uint32_t tick) {
  const Track* t = find(id);
  if (!t || t->count == 0) return;
  const Point last = t->points[size_t(t->count - 1)];
  if (int32_t(tick - last.tick) > 0) add(id, tick, last.position, last.ground);
}

void RemoteInterpolator::retain(std::span<const uint32_t> ids) {
  keep_if([&](uint32_t id, const Track&) { return std::binary_search(ids.begin(), ids.end(), id); });
}

void RemoteInterpolator::forget_before(uint32_t tick) {
  keep_if([&](uint32_t, const Track& t) { return t.count > 0 && t.points[size_t(t.count - 1)].tick >= tick; });
}

}  // namespace foothold
