#pragma once
// The server's counters: every datagram received ends in exactly one of them, so nothing is dropped
// silently. The stats line and the tests read them.

#include <array>
#include <cstdint>
#include <string_view>

namespace foothold::server {

enum class Counter : uint8_t {
  kPacketsIn,
  kBytesIn,
  kPacketsOut,
  kBytesOut,
  kSendErrors,
  // Drops, by reason.
  kDropTooLarge,
  kDropMalformed,
  kDropBadProtocol,
  kDropUnknownType,
  kDropWrongDirection,
  kDropVersion,          ///< another protocol version (handshakes get a Reject)
  kDropTooSmall,         ///< an unpadded handshake: answering it could amplify
  kDropNoSession,        ///< session traffic from an address with no session
  kDropBadSession,       ///< session traffic with the wrong session id
  kDropStale,            ///< sequence not newer than the last one seen (replayed or reordered)
  kDropBadValue,         ///< values out of range inside a valid packet
  kDropRateLimited,      ///< a client over its packet rate
  kHandshakeRateLimited, ///< handshake replies refused by the global limit
  // Handshakes.
  kChallengesSent,
  kStatusSent,
  kAccepted,
  kRejectedBadCookie,
  kRejectedFull,
  kRejectedMismatch,
  kRejectedVersion,
  kRejectedShuttingDown,
  kDisconnectsReceived,
  kTimeouts,
  // Inputs.
  kInputsAccepted,
  kInputsDuplicate,
  kInputsLate,           ///< arrived after their tick was simulated
  kInputsTooFarAhead,
  kInputsRepeated,       ///< ticks simulated with a repeated input
  kInputsConsumed,
  kSnapshotsSent,
  kCount
};

std::string_view to_string(Counter c);

class Counters {
 public:
  void add(Counter c, uint64_t n = 1) { values_[static_cast<size_t>(c)] += n; }
  uint64_t get(Counter c) const { return values_[static_cast<size_t>(c)]; }
  /// All drops of received datagrams, whatever the reason.
  uint64_t dropped() const;

 private:
  std::array<uint64_t, static_cast<size_t>(Counter::kCount)> values_{};
};

}  // namespace foothold::server
