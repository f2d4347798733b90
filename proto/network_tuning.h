#pragma once
// The network's tuning numbers, in one place as shared/tolerances.h holds the simulation's: each with
// its unit and why it is what it is. The wire's own limits (sizes, field widths) are in compact.h and
// codec.h; these are choices either side could make differently without changing a byte's meaning.

#include <cstdint>

namespace foothold::proto {

// Area of interest (server/replication.cpp): which characters a client's snapshots describe.
/// Metres: the side of the square cells (in X and Z) the server indexes characters by. About one
/// step of the search: small enough that a crowd's nearest 48 lie within a ring or two, large enough
/// that an empty field is crossed in a few cells.
inline constexpr double kInterestCell = 4.0;
/// Rings of cells searched around a client's own at most (8 rings of 4 m: 32 m out); characters
/// farther away are not of interest when the nearer rings hold too few.
inline constexpr int64_t kInterestMaxRings = 8;
/// Ticks a client's choice of characters is kept before it is made again (each client on its own
/// phase, so the work spreads evenly over the ticks); a join or leave refreshes every choice at once.
inline constexpr uint32_t kInterestRefresh = 8;

}  // namespace foothold::proto
