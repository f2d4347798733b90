#pragma once
// The encryption layer under every Foothold datagram (libsodium). WIRE_FORMAT.md gives the layouts.
//
// Every datagram starts with one prefix byte that says how the rest is protected:
//   kClearPrefix    a FlatBuffers Packet in clear: the client's handshake requests, which carry a
//                   sealed connect token (token.h), and the server's unauthenticated version hint;
//   kSealedPrefix   a server's reply before a session exists (Challenge, Accept, Reject, Status):
//                   the client's salt, a random 24-byte nonce and the Packet sealed with
//                   XChaCha20-Poly1305 under the token's server-to-client key, bound to the request
//                   it answers (a RequestTag in its additional data);
//   kSessionPrefix  everything in a session, both ways: a 64-bit packet sequence (its low bytes) and
//                   the Packet sealed with ChaCha20-Poly1305 under that direction's session key, the
//                   sequence being the nonce. A replay window refuses repeats and stragglers.
// Session keys are derived from the token's keys and fresh randomness from both sides (the client's
// Connect proof, the server's Accept), so that no two sessions share a key, whatever is replayed:
// WIRE_FORMAT.md says why a (key, nonce) pair never repeats, case by case.

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "proto/token.h"

namespace foothold::proto {

/// First byte of a clear datagram (handshake requests, the version hint).
inline constexpr uint8_t kClearPrefix = 0x01;
/// First byte of a sealed reply (Challenge, Reject, Status).
inline constexpr uint8_t kSealedPrefix = 0x02;
/// Session datagrams use 0x10 | (n - 1), where n in [1, 8] is the number of sequence bytes sent,
/// when they carry a FlatBuffers Packet...
inline constexpr uint8_t kSessionPrefix = 0x10;
/// ...and 0x18 | (n - 1) when they carry a compact message (compact.h: snapshots, inputs).
inline constexpr uint8_t kCompactPrefix = 0x18;
/// Set in either prefix (0x30-0x3f) when a route follows it: the 4-byte session route (little-endian)
/// the server gave in the Accept, before the sequence bytes, authenticated with them. Every datagram
/// a client sends in a session carries it, so that the server finds the session of a datagram from
/// an address it does not know (a NAT that rebound the client's port or address) without trying
/// every session's key; it moves the session there only after a path challenge (WIRE_FORMAT.md).
inline constexpr uint8_t kRoutedFlag = 0x20;
/// Bytes of a route.
inline constexpr std::size_t kRouteBytes = 4;
/// What a session datagram carries (its prefix says; the prefix is authenticated).
enum class Payload : uint8_t { kPacket, kCompact };
/// The payload a session datagram's prefix names (kPacket for anything that is not a compact one).
Payload session_payload(std::span<const uint8_t> datagram);
/// Bytes of a Poly1305 authentication tag.
inline constexpr std::size_t kTagBytes = 16;
/// Bytes of the random XChaCha20 nonce of a sealed reply or a proof.
inline constexpr std::size_t kReplyNonceBytes = 24;
/// Which request a sealed reply answers: for a reply to a Connect, request_tag() of its proof; for
/// replies to a ConnectRequest or a StatusRequest, which carry nothing only their sender could make,
/// kNoRequestTag. It is authenticated (the reply's additional data), never sent.
using RequestTag = std::array<uint8_t, 16>;
/// The tag of replies to the first requests (ConnectRequest, StatusRequest).
inline constexpr RequestTag kNoRequestTag{};
/// The tag of the replies to a Connect whose proof is `proof`: BLAKE2b-128 of it. A proof is random
/// per attempt and only the token's holder can make one that opens, so a reply to anyone else's
/// Connect (an attacker's, with the victim's token and salt) never opens at the victim.
RequestTag request_tag(std::span<const uint8_t> proof);
/// Bytes of the server's fresh contribution to the session keys, carried in the Accept.
inline constexpr std::size_t kServerRandomBytes = 32;
/// The server's fresh contribution to a session's keys.
using ServerRandom = std::array<uint8_t, kServerRandomBytes>;
/// 32 fresh random bytes (libsodium's generator).
ServerRandom random_server_contribution();
/// Bytes a sealed reply adds to its Packet: prefix, client salt, nonce, tag.
inline constexpr std::size_t kSealedOverhead = 1 + 8 + kReplyNonceBytes + kTagBytes;
/// Most bytes a session datagram adds to its Packet: prefix, route, 8 sequence bytes, tag.
inline constexpr std::size_t kSessionOverhead = 1 + kRouteBytes + 8 + kTagBytes;

/// How a datagram is protected, from its first byte (kInvalid: empty, or an unknown prefix).
enum class Layer : uint8_t { kInvalid, kClear, kSealed, kSession };
/// The layer its first byte names; nothing else is checked.
Layer layer_of(std::span<const uint8_t> datagram);

/// One side's keys for one session.
struct SessionKeys {
  /// Seals what this side sends.
  Key send{};
  /// Opens what this side receives.
  Key receive{};
};

/// What a session's keys are derived from besides the token's keys: both sides' salts and both sides'
/// fresh randomness. The server's random is new for every session it creates, so even a Connect
/// replayed byte for byte (or a server that restarted) never yields a key used before; the client's
/// (its proof, random per attempt) keeps a replayed Accept from making the client reuse a key.
struct KeyInputs {
  uint64_t client_salt = 0;  ///< the client's, per connection attempt
  uint64_t server_salt = 0;  ///< the server's, per Challenge (it travels in the cookie)
  RequestTag connect{};      ///< request_tag() of the Connect's proof
  ServerRandom server_random{};  ///< the server's, per session (it travels in the Accept)
};

/// The keys of the session that a token's holder opens with `inputs`. The two functions give
/// mirrored keys: the client's send key is the server's receive key, and the other way round.
SessionKeys client_session_keys(const Key& client_to_server, const Key& server_to_client, const KeyInputs& inputs);
/// The server's side of the same session.
SessionKeys server_session_keys(const Key& client_to_server, const Key& server_to_client, const KeyInputs& inputs);

/// Which packet sequences have been received: the newest and the kSize before it. A sequence is
/// fresh when it is newer than the window's start and not seen yet. Only authenticated datagrams
/// may be marked, so a forged one moves nothing.
class ReplayWindow {
 public:
  /// Sequences remembered before the newest one.
  static constexpr uint64_t kSize = 256;
  /// An empty window: every sequence is fresh.
  ReplayWindow() = default;
  /// True when `sequence` has not been marked and is within the window (it changes nothing).
  bool fresh(uint64_t sequence) const;
  /// Records `sequence` as received; call only for a datagram that authenticated. One older than
  /// the window changes nothing (it could never be fresh again anyway).
  void mark(uint64_t sequence);
  /// The newest sequence marked (0 before any).
  uint64_t newest() const { return newest_; }

 private:
  static constexpr uint64_t kNever = ~0ull;  // never a valid sequence
  // One bit per sequence of the window, sequence s at bit s % kSize: set when s was received. A
  // bit stands for the newest sequence with its remainder up to newest_; moving newest_ forward
  // clears the bits of the sequences it passes. 32 bytes, where a sequence per slot took 2 KB of
  // every session.
  std::array<uint64_t, kSize / 64> seen_{};
  uint64_t newest_ = 0;
  bool marked(uint64_t sequence) const { return (seen_[(sequence % kSize) / 64] >> (sequence % 64)) & 1; }
};

/// Why a protected datagram was refused.
enum class OpenError : uint8_t {
  /// Opened.
  kNone = 0,
  kMalformed,  ///< too short, or a prefix this function does not open
  kReplayed,   ///< a sequence already received, or older than the replay window
  kBadSeal,    ///< does not authenticate under the key: forged, altered, or another session's
};

/// A buffer for one datagram, aligned as the FlatBuffers verifier wants.
struct alignas(8) DatagramBuffer {
  /// Room for any datagram (kMaxDatagram is 1200 bytes) with its overhead.
  std::array<uint8_t, 2048> bytes;
};

/// Seals a finished Packet (or, with Payload::kCompact, a compact message) into a session datagram
/// with `sequence` (never reused with one key). `key` is this direction's session key
/// (SessionKeys::send). Returns the datagram, in `out` (empty when the packet does not fit).
/// A non-zero `route` is written after the prefix (kRoutedFlag): the client's datagrams carry one.
std::span<const uint8_t> seal_session(const Key& key, uint64_t sequence, std::span<const uint8_t> packet,
                                      DatagramBuffer& out, Payload payload = Payload::kPacket, uint32_t route = 0);
/// Bytes a session datagram with `sequence` adds to its payload: prefix, route if `routed`, sequence
/// bytes, tag.
std::size_t session_overhead(uint64_t sequence, bool routed = false);
/// The route a session datagram carries (0: none, or too short to hold one). Unauthenticated until
/// the datagram opens: it only says which session's key to try.
uint32_t session_route(std::span<const uint8_t> datagram);

/// Opens a session datagram under `key`. On success `sequence` is its sequence (the caller marks it
/// in its window once it accepts the datagram) and the returned span, in `out`, is the Packet.
/// On failure nothing is written but `out`.
OpenError open_session(const Key& key, const ReplayWindow& window, std::span<const uint8_t> datagram,
                       DatagramBuffer& out, uint64_t& sequence, std::span<const uint8_t>& packet);

/// Seals a Packet into a sealed reply for the client that sent `client_salt`, answering the request
/// `answers` names, under the token's server-to-client key, with a random nonce. Returns the
/// datagram, in `out` (empty when the packet does not fit).
std::span<const uint8_t> seal_reply(const Key& server_to_client, uint64_t client_salt, const RequestTag& answers,
                                    std::span<const uint8_t> packet, DatagramBuffer& out);

/// The client salt a sealed reply is addressed to (0 when the datagram is too short to hold one).
uint64_t sealed_reply_salt(std::span<const uint8_t> datagram);

/// Opens a sealed reply under `server_to_client` that answers the request `answers` names (a reply
/// to another request does not open: kBadSeal); `packet` is the Packet, in `out`. The caller first
/// checks sealed_reply_salt() against its attempt's salt (the salt is also authenticated).
OpenError open_reply(const Key& server_to_client, const RequestTag& answers, std::span<const uint8_t> datagram,
                     DatagramBuffer& out, std::span<const uint8_t>& packet);

/// Bytes of a Connect's proof: nonce, the two hashes, tag.
inline constexpr std::size_t kProofBytes = kReplyNonceBytes + 16 + kTagBytes;

/// A Connect's proof that its sender holds the token: the world and settings hashes sealed under the
/// token's client-to-server key with a random nonce, the cookie as additional data (so a proof
/// cannot be moved to another attempt).
std::array<uint8_t, kProofBytes> seal_proof(const Key& client_to_server, std::span<const uint8_t> cookie,
                                            uint64_t world_hash, uint64_t settings_hash);
/// Opens a proof; false when it does not open (then the hashes are untouched).
bool open_proof(const Key& client_to_server, std::span<const uint8_t> cookie, std::span<const uint8_t> proof,
                uint64_t& world_hash, uint64_t& settings_hash);

/// A clear datagram: the prefix, then `packet`, in `out` (empty when it does not fit).
std::span<const uint8_t> frame_clear(std::span<const uint8_t> packet, DatagramBuffer& out);
/// The Packet inside a clear datagram, copied into `out` so that it is aligned (empty when the
/// datagram is not a clear one).
std::span<const uint8_t> unframe_clear(std::span<const uint8_t> datagram, DatagramBuffer& out);

/// 64 random bits from libsodium's generator (salts, nonces, ids). Throws std::runtime_error when
/// libsodium cannot initialise.
uint64_t random_u64();

/// Little-endian integer helpers for the raw layouts: 8 bytes at `p`.
void put_u64(uint8_t* p, uint64_t v);
/// Reads what put_u64 wrote.
uint64_t get_u64(const uint8_t* p);

}  // namespace foothold::proto
