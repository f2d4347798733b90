#include "shared/character_contacts.h"

#include <algorithm>
#include <cmath>

#include "shared/det_math.h"
#include "shared/sort_presorted.h"
#include "shared/tolerances.h"

namespace foothold {

namespace {
// 3.25 m cells: more than kNeighbourRange and its 1/64 m margin (with room for the division's
// rounding), so the nine cells around a character hold everyone within reach, and as little more
// as that allows (4 m cells scanned half as much again). Keyed by cell_key(), so a column's cells
// are one run of the sorted index.
constexpr double kCellSize = 3.25;
static_assert(kCellSize > kNeighbourRange + 1.0 / 64 + 0.125, "the nine cells must hold everyone within reach");
int64_t cell_of(double v) { return int64_t(det_floor(v / kCellSize)); }
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

void Crowd::build(std::span<const OtherCharacter> all, const MoverFrame* frame) {
  all_ = all;
  // In the last build's order when it indexed as many characters (any order of the indices gives the
  // same sorted index: it only makes the sort quicker, as few characters change cell in a tick).
  if (cells_.size() != all.size()) {
    cells_.resize(all.size());
    for (uint32_t i = 0; i < all.size(); ++i) cells_[i].index = i;
  }
  for (Cell& cell : cells_) {
    const Vec3 c = seen_centre(all[cell.index], frame);
    cell = {cell_key(cell_of(c.x), cell_of(c.z)), cell.index, c.x, c.z};
  }
  sort_presorted(cells_, [](const Cell& a, const Cell& b) { return a.key < b.key || (a.key == b.key && a.index < b.index); });
  // Each character's own entry, for its queries.
  at_.resize(all.size());
  for (uint32_t k = 0; k < cells_.size(); ++k) at_[cells_[k].index] = k;
  // A column's stretch of cells in two reads, not two binary searches over everyone (those were a
  // third of a 4,000-character crowd's neighbour queries).
  runs_.build(std::span<const Cell>(cells_));
}

void Crowd::neighbours(std::size_t i, std::vector<OtherCharacter>& out, double range) const {
  out.clear();
  // Only those the step may keep: within `range` of where it sees this one, as it sees them (both
  // carried by their movers to this tick's pose), plus 1/64 m so that the step's own rounding never
  // keeps one we left out. The farther ones are most of the nine cells in a crowd (copying and
  // sorting them was most of a crowded step's cost).
  const double within = std::min(range, kNeighbourRange) + 1.0 / 64;
  const Cell& me = cells_[at_[i]];
  // Only the cells that may hold one that near (another 1/64 m for the rounding of the distances):
  // for a step's own reach, mostly two columns of two, not the nine around it.
  const double bound = within + 1.0 / 64;
  const int64_t x0 = cell_of(me.x - bound), x1 = cell_of(me.x + bound);
  const int64_t z0 = cell_of(me.z - bound), z1 = cell_of(me.z + bound);
  for (int64_t x = x0; x <= x1; ++x) {
    // A column's cells are one run of the index.
    const auto [first, past] = runs_.column(std::span<const Cell>(cells_), x, z0, z1);
    const auto begin = cells_.begin() + std::ptrdiff_t(first), end = cells_.begin() + std::ptrdiff_t(past);
    // Every entry is written and only those within reach are kept (the count advances by the test):
    // whether the next one is within reach is a coin toss no branch predictor wins in a crowd.
    std::size_t kept = out.size();
    out.resize(kept + std::size_t(end - begin));
    for (auto it = begin; it != end; ++it) {
      const double ex = it->x - me.x, ez = it->z - me.z;
      out[kept] = all_[it->index];
      kept += std::size_t((ex * ex + ez * ez <= within * within) & (it->index != i));
    }
    out.resize(kept);
  }
  std::sort(out.begin(), out.end(), [](const OtherCharacter& a, const OtherCharacter& b) { return a.id < b.id; });
}

}  // namespace foothold
