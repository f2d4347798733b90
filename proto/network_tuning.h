#pragma once
// The network's tuning numbers, in one place as shared/tolerances.h holds the simulation's: each with
// its unit and why it is what it is. The wire's own limits (sizes, field widths) are in compact.h and
// codec.h; these are choices either side could make differently without changing a byte's meaning.

#include <cstddef>
#include <cstdint>

#include "proto/clock.h"

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

// The client's inputs (client/session.cpp): how many copies of the newest ones each message carries.
/// One rung of the redundancy ladder: below `loss` (the share of snapshots the client sees missing,
/// smoothed), each message repeats the newest `copies` inputs. Sized so that every copy of an input
/// being lost is rare (about 1e-3 at that loss, assuming the two directions lose alike), at least 2.
struct RedundancyRung {
  double loss;
  std::size_t copies;
};
inline constexpr RedundancyRung kRedundancyLadder[] = {{0.01, 2}, {0.05, 3}, {0.15, 4}, {0.30, 6}};
/// Copies at a loss above the ladder's last rung.
inline constexpr std::size_t kMaxRedundancy = 8;
/// Snapshots over which the measured loss is smoothed (an exponential average of this weight).
inline constexpr double kLossSmoothing = 16;
/// The round trip assumed before one is measured: when an unacknowledged input counts as overdue
/// (sent longer ago than a round trip and two ticks), and is sent again with the rest.
inline constexpr Nanos kAssumedRoundTrip = 250 * kMillisecond;

// The client's handshake (client/session.h SessionOptions): its defaults.
/// A ConnectRequest or Connect unanswered this long is sent again (a quarter second: a lost one
/// costs little, and a server under a flood is not asked more than four times a second).
inline constexpr Nanos kHandshakeRetry = 250 * kMillisecond;
/// Connecting gives up after this long without an Accept.
inline constexpr Nanos kConnectTimeout = 5 * kSecond;

}  // namespace foothold::proto
