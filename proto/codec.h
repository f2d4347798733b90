#pragma once
// Decoding and encoding of Foothold's FlatBuffers Packets. A received datagram is first opened by
// its layer (secure.h: in clear, sealed, or in a session); the Packet inside then goes through
// decode() before anything reads it: size limits, the FlatBuffers Verifier with the exact length and
// tight depth and table limits, the protocol id, the union tag's range, and whether this side
// accepts that message in that layer. What decode() refuses is dropped and counted by the caller,
// never trusted.

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include <flatbuffers/flatbuffers.h>

#include "proto/compact.h"
#include "proto/foothold_generated.h"
#include "proto/secure.h"
#include "proto/token.h"
#include "shared/character_contacts.h"
#include "shared/character_state.h"
#include "shared/input.h"

namespace foothold::proto {

inline constexpr uint32_t kProtocolId = 0x44485446;  ///< "FTHD" read as a little-endian uint32
/// Names of replicated attributes an Accept carries at most, per list, and the longest name.
inline constexpr std::size_t kMaxAttributeNames = 16;
inline constexpr std::size_t kMaxAttributeName = 16;
inline constexpr uint16_t kProtocolVersion = 13;  ///< 2: connect tokens and encrypted sessions; 3: jump state; 4: posture, platforms; 5: compact snapshots and inputs; 6: fresh randomness from both sides in the session keys, replies bound to their request, tokens with a not-before time; 7: messages (carriers), their disconnect reasons; 8: game commands' corrections, replicated attributes, frozen characters and movement profiles; 9: players named (client ids in Accept and snapshots' additions, removals say whether the character left the match); 10: neighbours in full in snapshots (state, input and the inputs held for the next ticks of the nearest characters, for the client's prediction); 11: a game's push (knockback) in the own state and the neighbours; attributes others see (the Accept's seen_by_all, a snapshot's seen attributes of characters in its view); 12: the movers' clocks a game drives (a snapshot's movers section); 13: characters a game drives (NPCs: a snapshot's addition says so, and carries no client id)
inline constexpr std::size_t kMaxDatagram = 1200;    ///< bytes; larger datagrams are neither sent nor accepted
/// ConnectRequest, Connect and StatusRequest datagrams are padded to at least this size, and every
/// reply the server sends to an address it has not verified is no larger: answering never amplifies.
inline constexpr std::size_t kMinHandshakeDatagram = 300;
/// Most inputs in one inputs message (compact.h): a writer sends the newest this many.
inline constexpr std::size_t kMaxInputsPerPacket = kMaxCompactInputs;
inline constexpr std::size_t kCookieSize = 32;        ///< bytes: 8 of issue time, 8 of server salt, 16 of MAC

inline constexpr std::size_t kMaxRejectMessage = 96;  ///< bytes of text in a Reject
/// Remote characters a client knows of at most (the nearest; a snapshot's view, compact.h).
inline constexpr std::size_t kMaxRemotes = kMaxViewSize;
/// Remote positions are sent in 1/256 m: the exact 1/1024 m value shifted right by this (the
/// positions other characters step against, movement.md §16).
inline constexpr int kRemoteShift = kPublishedShift;

/// Which side a datagram is arriving at.
enum class Direction : uint8_t { kToServer, kToClient };

/// Why decode() refused a datagram (the caller counts each).
enum class DropReason : uint8_t {
  /// Accepted.
  kNone = 0,
  kTooLarge,       ///< over kMaxDatagram
  kMalformed,      ///< the FlatBuffers Verifier refused it (or the body is missing)
  kBadProtocol,    ///< not Foothold's protocol id
  kUnknownType,    ///< union tag out of range (the generated verifier lets unknown tags through)
  kWrongDirection, ///< a message this side does not accept, or not in the layer it came in
  /// The number of reasons (not a reason).
  kCount
};
/// The reason's snake_case name, e.g. "wrong_direction" ("invalid" out of range).
std::string_view to_string(DropReason r);
/// The schema's name, e.g. "ServerFull" ("Unknown" out of range).
std::string_view to_string(proto::fb::RejectReason r);

/// A Packet that passed decode(): views into the bytes it was decoded from.
struct Decoded {
  /// The verified Packet.
  const proto::fb::Packet* packet = nullptr;
  /// Its body's type (in the schema's range, accepted for this side and layer).
  proto::fb::Body type = proto::fb::Body::NONE;
  /// The sender's protocol version: decode() does not check it, the caller does.
  uint16_t version = 0;
  std::size_t size = 0;  ///< the datagram's length in bytes
};

/// decode()'s verdict: `message` is set only when ok().
struct DecodeResult {
  /// Why it was refused (kNone: accepted).
  DropReason error = DropReason::kNone;
  /// The message, when accepted.
  Decoded message;
  /// True when accepted.
  bool ok() const { return error == DropReason::kNone; }
};

/// Checks a Packet that arrived in `layer`. The bytes must stay alive (and unmodified) while the
/// result is used, and be 8-byte aligned (the opening functions of secure.h write into a
/// DatagramBuffer, which is). `packet` is the Packet alone: the layer's prefix and seal removed.
DecodeResult decode(std::span<const uint8_t> packet, Direction arriving_at, Layer layer);

/// Converters between the step's state and the wire's (the Accept's). The wire's values are
/// untrusted: a ground kind out of range becomes "none"; an Accept whose profile is beyond
/// kMaxProfiles never gets here (decode() refuses it). Positions stay in 1/1024 m, velocities in
/// 1/65536 m/s (world axes, Y up).
proto::fb::CharacterStateW to_wire(const CharacterState& s);
/// A character state from the wire (ground kind checked).
CharacterState from_wire(const proto::fb::CharacterStateW& w);

/// Builds outgoing datagrams into one reusable FlatBufferBuilder (no allocation once warm).
/// Each method returns a view of the finished Packet (to be framed or sealed with secure.h), valid
/// until the next call. Not thread-safe: one writer per thread.
class PacketWriter {
 public:
  /// Reserves room for one datagram.
  PacketWriter() : fbb_(kMaxDatagram + 256) {}
  /// A view into the writer's builder.
  using Bytes = std::span<const uint8_t>;

  /// ConnectRequest: the token's sealed part and this attempt's salt, padded so that the clear
  /// datagram is at least kMinHandshakeDatagram bytes.
  Bytes connect_request(std::span<const uint8_t> token, uint64_t client_salt);
  /// Challenge carrying the server's cookie (CookieJar).
  Bytes challenge(std::span<const uint8_t> cookie);
  /// Connect: the token again, the same salt, the cookie and the proof (seal_proof()). Not padded: it
  /// is larger than kMinHandshakeDatagram already.
  Bytes connect(std::span<const uint8_t> token, uint64_t client_salt, std::span<const uint8_t> cookie,
                std::span<const uint8_t> proof);
  /// Accept: the character's id and its state after server tick `tick`; `tick_rate` in ticks per
  /// second, `snapshot_interval` in ticks; `server_random` the server's share of the session keys;
  /// `route` the session's route (secure.h), which the client's datagrams carry; the names of the
  /// game's replicated attributes (at most kMaxAttributeNames each, each 1 to kMaxAttributeName bytes: all of them fit an Accept);
  /// `seen_by_all` bit i: character attribute i is seen by every client that sees the character.
  Bytes accept(uint32_t character_id, uint32_t tick, uint16_t tick_rate, uint16_t snapshot_interval,
               const CharacterState& state, std::span<const uint8_t> server_random, uint32_t route = 0,
               std::span<const std::string> character_attributes = {}, std::span<const std::string> match_attributes = {},
               uint64_t client_id = 0, uint32_t seen_by_all = 0);
  /// PathChallenge, to a session's new address (in the session).
  Bytes path_challenge(uint64_t data);
  /// PathResponse: the challenge's data, from the address it reached.
  Bytes path_response(uint64_t data);
  /// Reject, with `message` cut to kMaxRejectMessage bytes.
  Bytes reject(proto::fb::RejectReason reason, std::string_view message);
  /// Disconnect, either way.
  Bytes disconnect(proto::fb::DisconnectReason reason);
  /// StatusRequest: like connect_request, padded likewise.
  Bytes status_request(std::span<const uint8_t> token, uint64_t client_salt);
  /// Status: the server's last tick, its clients, uptime in milliseconds and its world and settings hashes.
  Bytes status(uint32_t tick, uint32_t clients, uint32_t max_clients, uint64_t uptime_ms, uint64_t world_hash,
               uint64_t settings_hash);

  /// The raw builder, for tests that need to craft unusual packets.
  flatbuffers::FlatBufferBuilder& builder() { return fbb_; }
  /// Finishes a packet around an already-built body.
  Bytes finish(proto::fb::Body type, flatbuffers::Offset<void> body, uint32_t protocol = kProtocolId,
               uint16_t version = kProtocolVersion);

 private:
  // Builds a handshake Packet padded so that its clear datagram (prefix included) is at least
  // kMinHandshakeDatagram: once without padding to learn its size, then again with what is missing.
  template <typename Build>
  Bytes padded(Build&& build);
  flatbuffers::FlatBufferBuilder fbb_;
  std::array<uint8_t, kMinHandshakeDatagram> zeros_{};
};

/// The bytes of an optional vector in a received table (empty when absent): a view into the Packet.
inline std::span<const uint8_t> bytes_of(const flatbuffers::Vector<uint8_t>* v) {
  return v ? std::span<const uint8_t>(v->data(), v->size()) : std::span<const uint8_t>();
}

}  // namespace foothold::proto
