#include "shared/triggers.h"

#include "shared/det_math.h"

namespace foothold {

namespace {

// How far `v` lies outside [lo, hi] (0 inside).
inline double outside(double v, double lo, double hi) { return det_max(0.0, det_max(lo - v, v - hi)); }

// capsule_overlaps_box(), inline for the loop over a world's triggers. An axis alone as far as the
// radius decides it (the sum of the squares, rounded, is then at least the radius squared, rounded):
// most boxes are far in X or Z, and this leaves the answer as it was.
inline bool overlaps(const Vec3& centre, double half_segment, double radius, const Vec3& lo, const Vec3& hi) {
  const double dx = outside(centre.x, lo.x, hi.x);
  if (dx >= radius) return false;
  const double dz = outside(centre.z, lo.z, hi.z);
  if (dz >= radius) return false;
  // The segment is along Y, an axis of the box: its distance to the box is the centre's distance to
  // the box grown by half_segment along Y, and each axis's part of it is separate.
  const double dy = outside(centre.y, lo.y - half_segment, hi.y + half_segment);
  return dx * dx + dy * dy + dz * dz < radius * radius;
}

}  // namespace

bool capsule_overlaps_box(const Vec3& centre, double half_segment, double radius, const Vec3& lo, const Vec3& hi) {
  return overlaps(centre, half_segment, radius, lo, hi);
}

std::optional<Aabb> trigger_box(const TriggerBox& trigger, const MoverFrame* frame) {
  if (trigger.mover == 0) return Aabb{trigger.lo, trigger.hi};
  const std::size_t m = trigger.mover - 1u;
  if (!frame || m >= frame->mover_count()) return std::nullopt;
  const Pose& pose = frame->pose(m);
  Aabb box;
  for (int corner = 0; corner < 8; ++corner) {
    const Vec3 local{corner & 1 ? trigger.hi.x : trigger.lo.x, corner & 2 ? trigger.hi.y : trigger.lo.y,
                     corner & 4 ? trigger.hi.z : trigger.lo.z};
    const Vec3 p = apply(pose, local);
    box.lo = corner == 0 ? p : Vec3{det_min(box.lo.x, p.x), det_min(box.lo.y, p.y), det_min(box.lo.z, p.z)};
    box.hi = corner == 0 ? p : Vec3{det_max(box.hi.x, p.x), det_max(box.hi.y, p.y), det_max(box.hi.z, p.z)};
  }
  return box;
}

TriggerSet triggers_containing(const World& world, const CharacterState& state, const DerivedSettings& settings,
                               const MoverFrame* frame) {
  TriggerSet in;
  const auto& triggers = world.triggers();
  if (triggers.empty()) return in;
  const DerivedSettings& s = settings.for_profile(state.profile);
  const double half = state.crouched ? s.crouch_half_segment : s.half_segment;
  const Vec3 centre = to_position(state.position);
  for (std::size_t t = 0; t < triggers.size(); ++t) {
    const TriggerBox& trigger = triggers[t];
    if (trigger.mover == 0) {
      if (overlaps(centre, half, s.radius, trigger.lo, trigger.hi)) in.set(t);
    } else if (const std::optional<Aabb> box = trigger_box(trigger, frame)) {
      if (overlaps(centre, half, s.radius, box->lo, box->hi)) in.set(t);
    }
  }
  return in;
}

}  // namespace foothold
