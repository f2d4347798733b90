#pragma once
// The world's movers at one tick (movement.md §15.1): every mover's pose at the end of the tick and
// at the end of the one before, and its triangles placed in world axes. A pure function of the world,
// the movers' clocks (shared/mover_clock.h), the tick and the tick rate, so the server and every
// client build the very same frame; the server builds it once per tick and every step of that tick
// reads it.

#include <cstdint>
#include <span>
#include <vector>

#include "shared/animation.h"
#include "shared/fixed_point.h"
#include "shared/mover_clock.h"
#include "shared/world.h"

namespace foothold {

/// The movers of one world at one tick. Reusable: build() again for another tick keeps the memory.
class MoverFrame {
 public:
  /// Poses every mover of `world` at the end of tick `tick` and of tick - 1 (tick 0: both at 0), and
  /// places its triangles: each on its clock in `clocks` (sized for `world`); when null, as clocks
  /// just reset (the driven movers still at their start, the others on the world's clock). Keeps no
  /// reference to `world` or `clocks`.
  void build(const World& world, uint32_t tick, int tick_rate, const MoverClocks* clocks = nullptr);
  /// Empties the frame (mover_count() 0): a cache of frames forgets them when the clocks change.
  void forget() { now_.clear(); }

  /// The tick it was built for.
  uint32_t tick() const { return tick_; }
  /// Number of movers (the world's).
  std::size_t mover_count() const { return now_.size(); }
  /// Mover m's pose at the end of the tick. Precondition: m < mover_count().
  const Pose& pose(std::size_t m) const { return now_[m]; }
  /// Mover m's pose at the end of the tick before.
  const Pose& previous_pose(std::size_t m) const { return before_[m]; }
  /// Where mover m carries the point `p` (world axes, where it was at the end of the tick before)
  /// by the end of this tick.
  Vec3 carry(std::size_t m, const Vec3& p) const { return apply(now_[m], apply(inverse(before_[m]), p)); }

  /// Number of placed triangles, all movers together.
  std::size_t triangle_count() const { return triangles_.size(); }
  /// Placed triangle i (mover by mover, each in its World::Mover::local order).
  const WorldTriangle& triangle(std::size_t i) const { return triangles_[i]; }
  /// Every placed triangle, all movers together (mover m's from first(m) on).
  std::span<const WorldTriangle> triangles() const { return triangles_; }
  /// The mover placed triangle i belongs to.
  uint16_t mover_of(std::size_t i) const { return owner_[i]; }
  /// Mover m's placed triangles are [first(m), first(m + 1)).
  uint32_t first(std::size_t m) const { return first_[m]; }
  /// Bounds of mover m's placed triangles, metres.
  const Aabb& bounds(std::size_t m) const { return bounds_[m]; }

 private:
  uint32_t tick_ = 0;
  std::vector<Pose> now_, before_;
  std::vector<WorldTriangle> triangles_;
  std::vector<uint16_t> owner_;
  std::vector<uint32_t> first_;
  std::vector<Aabb> bounds_;
};

/// Where a character whose rounded position is `position` (1/1024 m) stands in the axes of a mover
/// posed `to_local` (the inverse of its pose at the tick): what the step records as its
/// platform_offset, but from the rounded position rather than the exact one, so within a unit or
/// two of it. Both ends of a snapshot's neighbours section compute it (proto::SnapshotNeighbour):
/// the wire carries only the difference.
FixedVec3 platform_offset_guess(const Pose& to_local, const FixedVec3& position);

}  // namespace foothold
