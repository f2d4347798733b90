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
  // Drops, by reason (kDropTooLarge to kDropRateLimited: every one counts in dropped()).
  kDropTooLarge,
  kDropMalformed,
  kDropBadProtocol,      ///< no Foothold prefix, or not Foothold's protocol id
  kDropUnknownType,
  kDropWrongDirection,   ///< a message the server does not take, or not in the layer it came in
  kDropVersion,          ///< another protocol version (handshakes get a Reject hint)
  kDropTooSmall,         ///< an unpadded handshake: answering it could amplify
  kDropNoSession,        ///< session traffic from an address with no session
  kDropBadSeal,          ///< a session datagram that does not authenticate: forged, altered or another session's
  kDropReplayed,         ///< a session sequence already received, or older than the replay window
  kDropBadToken,         ///< a connect token that is malformed or does not open with the key
  kDropExpiredToken,     ///< a connect token past its expiry
  kDropBadCookie,        ///< a Connect whose cookie is bad or expired, or whose proof does not open
  kDropBadValue,         ///< values out of range inside a valid packet
  kDropRateLimited,      ///< a client over its packet rate
  kSourceLimited,        ///< handshake datagrams refused by the per-address or per-prefix limits
  kHandshakeRateLimited, ///< handshake replies refused by the global limit
  kStatusRateLimited,    ///< status replies refused by their own global limit
  kTokenRateLimited,     ///< handshakes refused because one token asked too often (a replayed token)
  // Handshakes.
  kChallengesSent,
  kStatusSent,
  kAccepted,
  kAcceptsResent,        ///< Accept sent again for a Connect repeated (its Accept was lost)
  kReplaced,             ///< sessions ended by a new connect of the same player from the same address
  kRejectedBadCookie,
  kRejectedFull,
  kRejectedMismatch,
  kRejectedVersion,
  kRejectedShuttingDown,
  kRejectedWrongServer,
  kRejectedClientIdInUse,
  kRejectedAddressFull,
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
  /// Adds every counter of `other` (a worker thread's) to these.
  void merge(const Counters& other) {
    for (size_t i = 0; i < values_.size(); ++i) values_[i] += other.values_[i];
  }
  /// All drops of received datagrams, whatever the reason.
  uint64_t dropped() const;

 private:
  std::array<uint64_t, static_cast<size_t>(Counter::kCount)> values_{};
};

}  // namespace foothold::server
