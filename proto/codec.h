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
#include <string_view>

#include <flatbuffers/flatbuffers.h>

#include "proto/foothold_generated.h"
#include "proto/secure.h"
#include "proto/token.h"
#include "shared/character_state.h"
#include "shared/input.h"

namespace foothold::proto {

inline constexpr uint32_t kProtocolId = 0x44485446;  ///< "FTHD" read as a little-endian uint32
inline constexpr uint16_t kProtocolVersion = 2;  ///< 2: connect tokens and encrypted sessions
inline constexpr std::size_t kMaxDatagram = 1200;    ///< bytes; larger datagrams are neither sent nor accepted
/// ConnectRequest, Connect and StatusRequest datagrams are padded to at least this size, and every
/// reply the server sends to an address it has not verified is no larger: answering never amplifies.
inline constexpr std::size_t kMinHandshakeDatagram = 300;
inline constexpr std::size_t kMaxInputsPerPacket = 32;
inline constexpr std::size_t kCookieSize = 32;        ///< bytes: 8 of issue time, 8 of server salt, 16 of MAC

inline constexpr std::size_t kMaxRejectMessage = 96;  ///< bytes of text in a Reject

/// Which side a datagram is arriving at.
enum class Direction : uint8_t { kToServer, kToClient };

/// Why decode() refused a datagram (the caller counts each).
enum class DropReason : uint8_t {
  kNone = 0,
  kTooLarge,       ///< over kMaxDatagram
  kMalformed,      ///< the FlatBuffers Verifier refused it (or the body is missing)
  kBadProtocol,    ///< not Foothold's protocol id
  kUnknownType,    ///< union tag out of range (the generated verifier lets unknown tags through)
  kWrongDirection, ///< a message this side does not accept, or not in the layer it came in
  kCount
};
std::string_view to_string(DropReason r);

struct Decoded {
  const wire::Packet* packet = nullptr;
  wire::Body type = wire::Body::NONE;
  uint16_t version = 0;
  std::size_t size = 0;  ///< the datagram's length in bytes
};

struct DecodeResult {
  DropReason error = DropReason::kNone;
  Decoded message;
  bool ok() const { return error == DropReason::kNone; }
};

/// Checks a Packet that arrived in `layer`. The bytes must stay alive (and unmodified) while the
/// result is used, and be 8-byte aligned (the opening functions of secure.h write into a
/// DatagramBuffer, which is).
DecodeResult decode(std::span<const uint8_t> packet, Direction arriving_at, Layer layer);

/// Converters between the step's types and the wire's. The wire's values are untrusted: ground
/// kinds out of range become "none", unknown button bits are cleared.
wire::CharacterStateW to_wire(const CharacterState& s);
CharacterState from_wire(const wire::CharacterStateW& w);
wire::InputW to_wire(const InputCmd& in);
InputCmd from_wire(const wire::InputW& w);

/// Builds outgoing datagrams into one reusable FlatBufferBuilder (no allocation once warm).
/// Each method returns a view of the finished datagram, valid until the next call.
class PacketWriter {
 public:
  PacketWriter() : fbb_(kMaxDatagram + 256) {}
  using Bytes = std::span<const uint8_t>;

  Bytes connect_request(std::span<const uint8_t> token, uint64_t client_salt);
  Bytes challenge(std::span<const uint8_t> cookie);
  Bytes connect(std::span<const uint8_t> token, uint64_t client_salt, std::span<const uint8_t> cookie,
                std::span<const uint8_t> proof);
  Bytes accept(uint32_t character_id, uint32_t tick, uint16_t tick_rate, uint16_t snapshot_interval,
               const CharacterState& state);
  Bytes reject(wire::RejectReason reason, std::string_view message);
  Bytes input_batch(uint32_t ack_snapshot, uint32_t send_time_us, std::span<const InputCmd> inputs);
  Bytes disconnect(wire::DisconnectReason reason);
  Bytes status_request(std::span<const uint8_t> token, uint64_t client_salt);
  Bytes status(uint32_t tick, uint32_t clients, uint32_t max_clients, uint64_t uptime_ms, uint64_t world_hash,
               uint64_t settings_hash);

  /// Snapshots are assembled by the caller, which knows the remote characters.
  struct SnapshotHeader {
    uint32_t tick = 0;
    uint32_t repeated_mask = 0;
    int16_t input_lead = 0;
    uint32_t echo_time_us = 0;
    uint32_t echo_delay_us = 0;
    CharacterState own;
    uint32_t base_tick = 0;
  };
  Bytes snapshot(const SnapshotHeader& h, std::span<const wire::RemoteFull> full, std::span<const wire::RemoteDelta> delta);

  /// The raw builder, for tests that need to craft unusual packets.
  flatbuffers::FlatBufferBuilder& builder() { return fbb_; }
  /// Finishes a packet around an already-built body.
  Bytes finish(wire::Body type, flatbuffers::Offset<void> body, uint32_t protocol = kProtocolId,
               uint16_t version = kProtocolVersion);

 private:
  // Builds a handshake Packet padded so that its clear datagram (prefix included) is at least
  // kMinHandshakeDatagram: once without padding to learn its size, then again with what is missing.
  template <typename Build>
  Bytes padded(Build&& build);
  flatbuffers::FlatBufferBuilder fbb_;
  std::array<uint8_t, kMinHandshakeDatagram> zeros_{};
};

/// Helpers for optional vectors in received tables.
inline std::span<const uint8_t> bytes_of(const flatbuffers::Vector<uint8_t>* v) {
  return v ? std::span<const uint8_t>(v->data(), v->size()) : std::span<const uint8_t>();
}

}  // namespace foothold::proto
