#include "shared/character_contacts.h"

#include <algorithm>
#include <cmath>

#include "shared/tolerances.h"

namespace foothold {

namespace {
// 4 m cells (4096 counts of 1/1024 m): kNeighbourRange plus what a mover may carry a character in a
// tick; the shift rounds toward minus infinity, so cells never straddle zero.
int64_t cell_of(int32_t raw) { return int64_t(raw) >> 12; }
// Ordered as (x, z), z offset to be non-negative, so the cells z - 1, z, z + 1 of one column are
// neighbours in the sorted index too.
int64_t cell_key(int64_t x, int64_t z) { return (x << 32) + (z + (int64_t(1) << 31)); }
}  // namespace

OtherCharacter as_other(uint32_t id, const CharacterState& state) {
  return {id, published_position(state.position), state.crouched, state.platform};
}

Vec3 seen_centre(const OtherCharacter& other, const MoverFrame* frame) {
  const Vec3 p = to_position(other.position);
  if (!frame || other.platform == 0 || other.platform > frame->mover_count()) return p;
  return frame->carry(other.platform - 1u, p);
}

WorldTriangle fence_triangle(const Vec3& centre, const Vec3& normal) {
  // Two edges across the normal: from the up axis, or from the X axis where the normal is nearly up
  // or down (X itself is not across a normal that leans along it, which tilted the plane off the
  // normal by up to 2.6 degrees, so the two characters' fences could part).
  const Vec3 t1 = normalized_or_zero(cross(normal, std::fabs(normal.y) < tolerance::kFenceVertical ? kUp : Vec3{1, 0, 0}));
  const Vec3 t2 = cross(normal, t1);
  const double h = tolerance::kFenceHalfSize;
  return make_world_triangle(centre - t1 * h - t2 * h, centre + t1 * (3 * h) - t2 * h, centre - t1 * h + t2 * (3 * h),
                             SurfaceTag::kNeverGround);
}

void Crowd::build(std::span<const OtherCharacter> all) {
  all_ = all;
  cells_.clear();
  for (uint32_t i = 0; i < all.size(); ++i) {
    const FixedVec3& p = all[i].position;
    cells_.push_back({cell_key(cell_of(p.x), cell_of(p.z)), i, p.x, p.z, all[i].platform != 0});
  }
  std::sort(cells_.begin(), cells_.end(), [](const Cell& a, const Cell& b) { return a.key < b.key || (a.key == b.key && a.index < b.index); });
}

void Crowd::neighbours(std::size_t i, std::vector<OtherCharacter>& out) const {
  out.clear();
  // Only those the step may keep: within kNeighbourRange of it, plus 1 m for what a mover may carry
  // either of the two this tick (a pair on no mover is seen where it was published), plus 1/64 m so
  // that the step's own rounding of the distance never finds one we left out. The step ignores the
  // farther ones anyway; in a crowd they are most of the nine cells (copying and sorting them was
  // most of a crowded step's cost).
  constexpr int64_t kNear = int64_t(kNeighbourRange * kPositionScale) + int64_t(kPositionScale) / 64;
  constexpr int64_t kCarried = kNear + int64_t(kPositionScale);
  const FixedVec3& me = all_[i].position;
  const bool me_carried = all_[i].platform != 0;
  const int64_t cx = cell_of(me.x), cz = cell_of(me.z);
  for (int64_t dx = -1; dx <= 1; ++dx) {
    // The column's three cells are one run of the index.
    const int64_t first = cell_key(cx + dx, cz - 1), last = cell_key(cx + dx, cz + 1);
    auto it = std::lower_bound(cells_.begin(), cells_.end(), first, [](const Cell& c, int64_t key) { return c.key < key; });
    for (; it != cells_.end() && it->key <= last; ++it) {
      if (it->index == i) continue;
      const int64_t ex = int64_t(it->x) - me.x, ez = int64_t(it->z) - me.z;
      const int64_t reach = me_carried || it->carried ? kCarried : kNear;
      if (ex * ex + ez * ez <= reach * reach) out.push_back(all_[it->index]);
    }
  }
  std::sort(out.begin(), out.end(), [](const OtherCharacter& a, const OtherCharacter& b) { return a.id < b.id; });
}

}  // namespace foothold
