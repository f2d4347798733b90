#include "follow/nearby_index.h"

#include <algorithm>
#include <tuple>
#include <utility>

#include "shared/det_math.h"

namespace foothold::follow {

NearbyIndex::NearbyIndex(double reach)
    : cell_fixed_(reach * kPositionScale), reach_sq_(reach * kPositionScale * reach * kPositionScale) {}

int32_t NearbyIndex::cell_of(int32_t fixed) const { return int32_t(det_floor(double(fixed) / cell_fixed_)); }

void NearbyIndex::add(uint32_t key, const CharacterState& state) {
  cells_.push_back({cell_of(state.position.x), cell_of(state.position.z), key, nearby_of(state)});
}

void NearbyIndex::sort() {
  std::sort(cells_.begin(), cells_.end(),
            [](const Cell& a, const Cell& b) { return std::tie(a.x, a.z, a.key) < std::tie(b.x, b.z, b.key); });
}

void NearbyIndex::near(const FixedVec3& at, uint32_t key, std::vector<Nearby>& out) const {
  // The three rows of cells around `at`, each a run of the sorted cells.
  const int32_t cx = cell_of(at.x), cz = cell_of(at.z);
  std::pair<std::vector<Cell>::const_iterator, std::vector<Cell>::const_iterator> rows[3];
  std::size_t candidates = 0;
  for (int32_t row = 0; row < 3; ++row) {
    const auto by_cell = [](const Cell& c, std::pair<int32_t, int32_t> v) { return std::pair(c.x, c.z) < v; };
    const auto begin = std::lower_bound(cells_.begin(), cells_.end(), std::pair(cx - 1 + row, cz - 1), by_cell);
    const auto end = std::lower_bound(begin, cells_.end(), std::pair(cx - 1 + row, cz + 2), by_cell);
    rows[row] = {begin, end};
    candidates += std::size_t(end - begin);
  }
  // Every candidate is written and kept by counting, not by a branch: in a crowd, whether the next
  // one is within reach is a coin toss the branch predictor loses.
  out.resize(candidates);
  std::size_t kept = 0;
  for (const auto& [begin, end] : rows) {
    for (auto it = begin; it != end; ++it) {
      // In the cell's entry: no visit to the character's state.
      const double dx = double(it->seen.position.x) - double(at.x), dz = double(it->seen.position.z) - double(at.z);
      out[kept] = it->seen;
      kept += std::size_t((dx * dx + dz * dz <= reach_sq_) & (it->key != key));
    }
  }
  out.resize(kept);
}

}  // namespace foothold::follow
