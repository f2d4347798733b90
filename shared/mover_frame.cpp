#include "shared/mover_frame.h"

#include <algorithm>

namespace foothold {

void MoverFrame::build(const World& world, uint32_t tick, int tick_rate, const MoverClocks* clocks) {
  tick_ = tick;
  const auto& movers = world.movers();
  now_.clear();
  before_.clear();
  triangles_.clear();
  owner_.clear();
  first_.clear();
  bounds_.clear();
  for (std::size_t m = 0; m < movers.size(); ++m) {
    const Mover& mover = movers[m];
    if (clocks && m < clocks->size()) {
      now_.push_back(clocks->pose(world, m, tick, tick_rate));
      before_.push_back(tick == 0 ? now_.back() : clocks->pose(world, m, tick - 1, tick_rate));
    } else if (mover.driven) {  // no clocks: a driven mover stands where it starts
      now_.push_back(chain_pose_at(mover.chain, 0));
      before_.push_back(now_.back());
    } else {
      now_.push_back(chain_pose(mover.chain, tick, tick_rate));
      before_.push_back(tick == 0 ? now_.back() : chain_pose(mover.chain, tick - 1, tick_rate));
    }
    first_.push_back(uint32_t(triangles_.size()));
    Aabb box;
    for (std::size_t i = 0; i < mover.local.size(); ++i) {
      const Triangle& t = mover.local[i].tri;
      const Pose& p = now_.back();
      WorldTriangle placed = make_world_triangle(apply(p, t.a), apply(p, t.b), apply(p, t.c), mover.local[i].tag);
      // A rotation keeps a triangle's shape: a placed triangle that rounds to degenerate keeps the
      // rotated normal of its local one, so it is never lost.
      if (!(length_sq(placed.tri.normal) > 0)) placed.tri.normal = rotate(p.rotation, t.normal);
      if (i == 0) box = {placed.lo, placed.hi};
      box.lo = {std::min(box.lo.x, placed.lo.x), std::min(box.lo.y, placed.lo.y), std::min(box.lo.z, placed.lo.z)};
      box.hi = {std::max(box.hi.x, placed.hi.x), std::max(box.hi.y, placed.hi.y), std::max(box.hi.z, placed.hi.z)};
      triangles_.push_back(placed);
      owner_.push_back(uint16_t(m));
    }
    bounds_.push_back(box);
  }
  first_.push_back(uint32_t(triangles_.size()));
}

FixedVec3 platform_offset_guess(const Pose& to_local, const FixedVec3& position) {
  return quantize_position(apply(to_local, to_position(position)));
}

}  // namespace foothold
