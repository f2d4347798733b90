#pragma once
// Characters against characters (movement.md §16): what a step knows of the others, the fences it
// keeps from them, and the crowd index the server and re-simulation find neighbours with.

#include <cstdint>
#include <span>
#include <vector>

#include "shared/cell_runs.h"
#include "shared/character_state.h"
#include "shared/mover_frame.h"
#include "shared/settings.h"
#include "shared/world.h"

namespace foothold {

/// Positions of other characters are seen at 1/256 m: the low kPublishedShift bits of a position's
/// 1/1024 m counts are cleared (rounding toward minus infinity), exactly what snapshots carry, so the
/// server's steps and every client's predictions see the same numbers.
inline constexpr int kPublishedShift = 2;
/// Metres: others whose centres lie farther apart horizontally (after their movers carried them)
/// never meet a character within one tick; the step ignores them, so the answer never depends on
/// how many farther ones a caller passed.
inline constexpr double kNeighbourRange = 3;

/// Another character as a step sees it: what every peer knows of it after the last tick.
struct OtherCharacter {
  uint32_t id = 0;          ///< its id (the tie-break when two centres coincide)
  FixedVec3 position;       ///< capsule centre, 1/1024 m, published (published_position())
  bool crouched = false;    ///< its posture: the capsule's height
  uint16_t platform = 0;    ///< the mover it stands on (index + 1; 0: none): it is carried too
  bool operator==(const OtherCharacter&) const = default;
};

/// `p` with its low kPublishedShift bits cleared (toward minus infinity).
constexpr FixedVec3 published_position(const FixedVec3& p) {
  constexpr int32_t mask = ~((int32_t(1) << kPublishedShift) - 1);
  return {p.x & mask, p.y & mask, p.z & mask};
}
/// A character as the others see it.
OtherCharacter as_other(uint32_t id, const CharacterState& state);
/// Its capsule centre at the start of this tick as everyone computes it: the published position,
/// carried by its mover from the previous tick's pose to this one's (`frame` may be null).
Vec3 seen_centre(const OtherCharacter& other, const MoverFrame* frame);

/// The triangle that stands for a fence (movement.md §16): in the plane through `centre` whose unit
/// front normal is `normal`, tagged never_ground, holding the square of 2 * kFenceHalfSize metres on
/// a side centred on `centre` (a right triangle with legs of four half sizes, its right angle at a
/// corner of the square). Sweeps take it as its whole plane; its bounds hold the square's, and every
/// point within kFenceHalfSize of `centre` lies over its inside, far from an edge.
WorldTriangle fence_triangle(const Vec3& centre, const Vec3& normal);

/// The characters of one tick, indexed by 3.25 m cells of where the steps of that tick see them, for
/// finding each one's neighbours. The server and re-simulation both use it, so both give every step
/// the same list.
class Crowd {
 public:
  /// Indexes `all` (ascending id; kept by reference until the next build()) where this tick's steps
  /// see them: carried by their movers to this tick's pose (seen_centre() with `frame`, which must be
  /// the tick's frame in a world with movers; null without).
  void build(std::span<const OtherCharacter> all, const MoverFrame* frame);
  /// Replaces `out` with every character but all[i] that a step of all[i] may meet (seen within
  /// `range`, at most kNeighbourRange, and 1/64 m of it horizontally), ascending id. Any mover's
  /// speed: the distance is measured where both are seen, after their carry. A step asks with its
  /// own reach (Surroundings::crowd), so that a crowd's farther ones are never copied.
  void neighbours(std::size_t i, std::vector<OtherCharacter>& out, double range = kNeighbourRange) const;
  /// The characters' indices into `all` in the index's order: by cell, so that neighbours come one
  /// after the other (an order for stepping them that keeps the triangles they share in the cache).
  /// k in [0, all.size()).
  uint32_t in_cell_order(std::size_t k) const { return cells_[k].index; }

 private:
  std::span<const OtherCharacter> all_;
  // One per character, sorted by (key, index), with the seen centre's X and Z beside the index so
  // that the search reads one array.
  struct Cell {
    int64_t key = 0;
    uint32_t index = 0;
    double x = 0, z = 0;
  };
  std::vector<Cell> cells_;
  std::vector<uint32_t> at_;  // cells_ entry of each character
  CellRuns runs_;              // where each cell's run of cells_ begins
};

}  // namespace foothold
