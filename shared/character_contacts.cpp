#include "shared/character_contacts.h"

#include <algorithm>

namespace foothold {

namespace {
// 4 m cells (4096 counts of 1/1024 m): kNeighbourRange plus what a mover may carry a character in a
// tick; the shift rounds toward minus infinity, so cells never straddle zero.
int64_t cell_of(int32_t raw) { return int64_t(raw) >> 12; }
int64_t cell_key(int64_t x, int64_t z) { return (x << 32) ^ (z & 0xffffffff); }
}  // namespace

OtherCharacter as_other(uint32_t id, const CharacterState& state) {
  return {id, published_position(state.position), state.crouched, state.platform};
}

Vec3 seen_centre(const OtherCharacter& other, const MoverFrame* frame) {
  const Vec3 p = to_position(other.position);
  if (!frame || other.platform == 0 || other.platform > frame->mover_count()) return p;
  return frame->carry(other.platform - 1u, p);
}

void Crowd::build(std::span<const OtherCharacter> all) {
  all_ = all;
  cells_.clear();
  for (uint32_t i = 0; i < all.size(); ++i)
    cells_.push_back({cell_key(cell_of(all[i].position.x), cell_of(all[i].position.z)), i});
  std::sort(cells_.begin(), cells_.end());
}

void Crowd::neighbours(std::size_t i, std::vector<OtherCharacter>& out) const {
  out.clear();
  // Only those within kNeighbourRange + 1 m: the step ignores the farther ones anyway, and in a crowd
  // the nine cells hold many more (copying and sorting them was most of a crowded step's cost).
  constexpr int64_t kReach = int64_t((kNeighbourRange + 1) * kPositionScale);
  const FixedVec3& me = all_[i].position;
  const int64_t cx = cell_of(me.x), cz = cell_of(me.z);
  for (int64_t dx = -1; dx <= 1; ++dx) {
    for (int64_t dz = -1; dz <= 1; ++dz) {
      const int64_t key = cell_key(cx + dx, cz + dz);
      auto it = std::lower_bound(cells_.begin(), cells_.end(), std::pair<int64_t, uint32_t>{key, 0});
      for (; it != cells_.end() && it->first == key; ++it) {
        if (it->second == i) continue;
        const FixedVec3& p = all_[it->second].position;
        const int64_t ex = int64_t(p.x) - me.x, ez = int64_t(p.z) - me.z;
        if (ex * ex + ez * ez <= kReach * kReach) out.push_back(all_[it->second]);
      }
    }
  }
  std::sort(out.begin(), out.end(), [](const OtherCharacter& a, const OtherCharacter& b) { return a.id < b.id; });
}

}  // namespace foothold
