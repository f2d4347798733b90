#pragma once
// The server's counters: every datagram received ends in exactly one of them, so nothing is dropped
// silently. The stats line and the tests read them.

#include <array>
#include <cstdint>
#include <string_view>

#include "proto/datagram_reader.h"

namespace foothold::server {

/// The server's counters, by what they count (to_string() gives the names the stats line uses).
enum class Counter : uint8_t {
  /// Datagrams received, every one, before any check.
  kPacketsIn,
  /// Bytes of those datagrams.
  kBytesIn,
  /// Datagrams the core handed to its sink.
  kPacketsOut,
  /// Bytes of those datagrams.
  kBytesOut,
  /// Reserved: nothing adds to it. The stats line's send_errors is the sink's own count
  /// (UdpSink::errors()).
  kSendErrors,
  // Drops, by reason (kDropTooLarge to kDropRateLimited: every one counts in dropped()).
  /// Over proto::kMaxDatagram bytes.
  kDropTooLarge,
  /// Refused by the FlatBuffers Verifier (or without a body), or a session datagram too short to open.
  kDropMalformed,
  kDropBadProtocol,      ///< no Foothold prefix, or not Foothold's protocol id
  /// A union tag outside the schema.
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
  /// A Connect whose cookie already opened a session (a replay), other than the same attempt
  /// repeated while its session lives (that gets its Accept again: kAcceptsResent); or, never in
  /// practice, one that found the memory of spent cookies full.
  kDropCookieSpent,
  kDropEarlyToken,       ///< a connect token whose not-before time is still ahead (beyond the clock skew)
  kDropFarToken,         ///< a connect token whose expiry is further ahead than token_max_ahead and the skew
  /// A snapshot ack from the future is counted here, but the rest of its inputs message is still
  /// used (a message with more than kMaxInputsPerPacket inputs is malformed: kDropMalformed).
  kDropBadValue,         ///< values out of range inside a valid packet
  kDropRateLimited,      ///< a client over its packet rate
  kSourceLimited,        ///< handshake datagrams refused by the per-address or per-prefix limits
  kHandshakeRateLimited, ///< handshake replies refused by the global limit
  kStatusRateLimited,    ///< status replies refused by their own global limit
  kVersionHintRateLimited, ///< clear VersionMismatch hints refused by their own global limit
  kTokenRateLimited,     ///< handshakes refused because one token asked too often (a replayed token)
  // Handshakes.
  /// Challenges sent: ConnectRequests answered.
  kChallengesSent,
  /// Status replies sent.
  kStatusSent,
  /// Sessions created (Accepts sent for the first time).
  kAccepted,
  kAcceptsResent,        ///< Accept sent again for a Connect repeated (its Accept was lost)
  kReplaced,             ///< sessions ended by a new connect of the same player from the same address
  /// Reject(BadCookie) sent: the token opened, the cookie is bad or expired.
  kRejectedBadCookie,
  /// Reject(ServerFull) sent: max_clients sessions already.
  kRejectedFull,
  /// The client's world or movement settings hash differs from the server's.
  kRejectedMismatch,
  /// Clear VersionMismatch hints sent.
  kRejectedVersion,
  /// Reject(ShuttingDown) sent: after ServerCore::shutdown().
  kRejectedShuttingDown,
  /// Reject(WrongServer) sent: the token names none of the server's addresses.
  kRejectedWrongServer,
  /// Reject(ClientIdInUse) sent: the token's client id plays from another address.
  kRejectedClientIdInUse,
  /// Reject(AddressFull) sent: the address holds max_clients_per_address sessions.
  kRejectedAddressFull,
  /// Sessions a client ended with Disconnect.
  kDisconnectsReceived,
  /// Sessions ended because the client was silent for the client timeout.
  kTimeouts,
  // Inputs.
  /// Inputs stored for a tick still to come (InputBuffer::Offer, one counter each).
  kInputsAccepted,
  /// Inputs already held or already consumed (redundant copies).
  kInputsDuplicate,
  kInputsLate,           ///< arrived after their tick was simulated
  /// InputBuffer::kWindow or more ticks ahead of the next tick to simulate.
  kInputsTooFarAhead,
  kInputsRepeated,       ///< ticks simulated with a repeated input
  /// Ticks simulated with the client's own input.
  kInputsConsumed,
  /// Snapshots sent (one per client every snapshot interval).
  kSnapshotsSent,
  /// Snapshots whose own state went in full (a correction may be owed, or the client asked).
  kSnapshotsWithState,
  // Bytes by message kind (each also in kBytesIn or kBytesOut): the stats line's shares.
  kBytesOutSnapshots,   ///< snapshots
  kBytesOutHandshake,   ///< Challenge, Accept, Reject, Status
  kBytesOutControl,     ///< Disconnect
  kBytesInInputs,       ///< authenticated inputs messages
  kBytesInHandshake,    ///< ConnectRequest, Connect, StatusRequest (whatever became of them)
  kBytesOutMessages,    ///< datagrams of messages only, and the message sections riding in snapshots
  kBytesInMessages,     ///< message sections received (also in kBytesInInputs when they rode with inputs)
  // Messages (proto/message_endpoint.h).
  kMessagesReceived,    ///< messages delivered to the game, both channels
  kMessagesSent,        ///< messages the game queued, both channels
  kMessagesRefused,     ///< messages the game tried to send and was refused (queue full, too large, no client)
  kMessagesUndelivered, ///< messages received with no game to take them (--game none): dropped
  kMessageRetransmissions, ///< reliable fragments sent again
  kMessageViolations,   ///< sessions cut off for breaking the message layer's rules (Disconnect(MessageViolation))
  kMessageTimeouts,     ///< sessions cut off because their messages stood still (Disconnect(MessageTimeout))
  // Path validation (a NAT that rebinds a client).
  kPathChallenges,      ///< PathChallenges sent to an address a session's authentic datagrams newly came from
  kPathMigrations,      ///< sessions moved to a new address that answered its challenge
  kPathRefused,         ///< PathResponses that moved nothing: another address, another challenge, or an address in use
  kPathChallengesLimited, ///< challenges not sent: the session had caused kPathChallengeRate a second already
  kPathMovesAddressFull,  ///< answered challenges that moved nothing: the new address held max_clients_per_address
  kPathDisplaced,         ///< sessions removed because another proved it now receives at their address (a NAT reused the port)
  // The game (server/game.h).
  kGameCommands,        ///< commands applied at a tick boundary
  kGameCommandsDropped, ///< commands dropped at the boundary: their character had left since they were given
  kGameRemovals,        ///< sessions the game ended (Disconnect(Removed)), its NPCs too
  kGameSpawns,          ///< characters the game spawned (NPCs, GameControl::spawn)
  kRewindQueries,       ///< lag-compensated queries (rays, overlaps)
  kRewindClamped,       ///< ...whose view time was outside the window or after the viewer's newest snapshot
  kRewindViewRaised,    ///< ...whose view time was older than its client's round trip and interpolation delay explain
  kRewindFireRefused,   ///< fire ticks further ahead than the client's newest input (GameControl::fire_tick_allowed)
  kRewindOriginRefused, ///< shot origins outside the shooter or behind a wall from it (GameControl::origin_allowed)
  /// The number of counters (not a counter).
  kCount
};

/// The counter's snake_case name, e.g. "drop_bad_seal" ("invalid" out of range).
std::string_view to_string(Counter c);
/// The counter a datagram the reader (proto/datagram_reader.h) refused goes in.
Counter drop_counter(proto::DatagramDrop d);

/// What is left of `whole` once `a` and `b` are taken, in percent of `whole` (0 when `whole` is 0;
/// `a` and `b` beyond it leave 0). Subtracted in integers: 100 less two shares in floating point left
/// -0.0 for a remainder of nothing (issue #66).
double remainder_pct(uint64_t whole, uint64_t a, uint64_t b);
/// A figure per client of `total` over `clients` clients: 0 with none (the stats line showed the
/// total as a per-client figure then, issue #66).
double per_client(double total, std::size_t clients);

/// One value per Counter, all from 0. Not thread-safe: each worker thread keeps its own, merged into
/// the server's by the tick thread.
class Counters {
 public:
  /// Adds `n` (datagrams, bytes or events, as the counter counts).
  void add(Counter c, uint64_t n = 1) { values_[static_cast<size_t>(c)] += n; }
  /// The counter's value since the server started.
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
