#pragma once
// How a snapshot's choices (a change, an addition or a removal of a character in the client's
// view) rank, and which of them fit its budget when not all do: what a greedy pass in rank order
// takes (each choice that fits the room left; an addition only while the view has room), found
// without sorting them all. A snapshot short of room mostly takes a long run of its best-ranked
// choices whole, and sorting every choice to find that run was the largest single cost of a
// crowded server's snapshots: the run is found by selection instead, and only the few choices
// after it that could still fit are sorted.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>

#include "shared/fixed_point.h"

namespace foothold::server {

/// How much a character that changed adds to its priority for one viewer for each tick the viewer
/// lacks it: 257 beside the viewer, 129 at 4 m, 16 at 16 m, 4 at 32 m (horizontal distance, integers).
/// Inline: it is asked for every choice of every snapshot short of room.
inline uint64_t priority_weight(const FixedVec3& viewer, const FixedVec3& other) {
  constexpr int64_t kLimit = int64_t(1) << 30;
  constexpr int64_t kNear = int64_t(4 * 1024) * (4 * 1024);  // (4 m)^2 in (1/1024 m)^2
  constexpr int64_t kScaled = 256 * kNear;                   // 2^32
  const int64_t dx = std::clamp<int64_t>(int64_t(other.x) - viewer.x, -kLimit, kLimit);
  const int64_t dz = std::clamp<int64_t>(int64_t(other.z) - viewer.z, -kLimit, kLimit);
  const int64_t d = kNear + dx * dx + dz * dz;  // below 2^62
  if (d > kScaled) return 1;
  // kScaled / d rounded down, by a division of doubles (a 64-bit integer division was a quarter of
  // ranking a snapshot's choices), and exactly: d is at most 2^32, so both are exact doubles, and
  // the quotient q (at most 256) is rounded by at most q 2^-53 <= 2^-45, while a quotient that is
  // not a whole number lies at least 1/d >= 2^-32 from one: the rounding never carries it across.
  return 1 + uint64_t(double(kScaled) / double(d));
}

/// The bits of a choice's index at the bottom of its rank key.
inline constexpr unsigned kBudgetIndexBits = 16;

/// The index of the choice a rank key stands for.
inline std::size_t budget_index(uint64_t key) { return std::size_t(key & ((uint64_t(1) << kBudgetIndexBits) - 1)); }

/// The choices as the budget sees them, by index: their costs and what each does to the view's
/// size (-1 a removal, +1 an addition, 0 a change).
struct BudgetCosts {
  std::span<const uint32_t> bits;
  std::span<const int8_t> view;
};

/// Reorders `keys` so that those of the choices the greedy pass in ascending key takes come first,
/// and returns how many it takes. A key is a choice's rank above kBudgetIndexBits and its index
/// (into `costs`) below them; keys are unique. The pass takes each choice whose bits fit the room
/// left (`room`, less what it took before), except an addition while the view (`view_size`, less
/// the removals and plus the additions taken before) holds `max_view` or more. Every removal must
/// rank before every addition (the rank does: removals are its first class). The taken keys come
/// in no order.
std::size_t take_within_budget(std::span<uint64_t> keys, const BudgetCosts& costs, std::size_t room,
                               std::size_t view_size, std::size_t max_view);

}  // namespace foothold::server
