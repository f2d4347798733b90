#pragma once
// Every received datagram, server or client, is read here: screened (size, layer, direction), opened
// (a session's key and replay window, or a sealed reply's token key, salt and request), decoded
// (codec.h's decode() for Packets) and, for a session datagram that passed all of that, marked in its
// replay window. The caller gets a typed result: what arrived, or the single reason it was refused,
// from the first check that failed. What to do with a message (a handshake step, inputs, a
// snapshot) stays with the caller, and so do the checks that need its state (which client an address
// is, the handshake's phase, rate limits, the server's version hint).
//
// The checks run in this order; each refuses with its own reason:
//   screen   over kMaxDatagram (kTooLarge); an unknown prefix (kBadProtocol); a layer this side
//            never receives, a sealed reply at a server (kWrongDirection)
//   session  too short to open (kTruncated); a sequence the window has (kReplayed); does not
//            authenticate (kBadSeal); a Packet that decode() refuses (its reason); then the
//            window is marked: only ever for an authentic datagram whose Packet decoded (a compact
//            message is marked once authentic: compact.h's readers, which need the caller's
//            state, judge its content, and an authentic sender gains nothing by a bad one)
//   clear    decode() refuses it (its reason); at a server, under kMinHandshakeDatagram, whole
//            datagram with its prefix (kTooSmall): answering it could amplify
//   reply    too short to open (kTruncated); not to this attempt's salt, or does not open under the
//            token's key bound to the request it answers (kBadSeal); decode() refuses it (its
//            reason); another protocol version (kVersion)

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "proto/codec.h"
#include "proto/message_endpoint.h"
#include "proto/secure.h"
#include "proto/token.h"

namespace foothold::proto {

/// Why a received datagram was refused: one reason per datagram, from the first check that failed.
/// A server counts each under its own counter; a client counts them all as dropped, and those for
/// which unauthenticated() holds also as unauthenticated.
enum class DatagramDrop : uint8_t {
  /// Read: nothing refused it.
  kNone = 0,
  kTooLarge,        ///< over kMaxDatagram bytes
  kBadProtocol,     ///< empty, an unknown prefix, or a Packet without Foothold's protocol id
  kWrongDirection,  ///< a layer this side never receives, or a message it does not take in that layer
  kTruncated,       ///< a sealed reply or session datagram shorter than its layer's overhead: it cannot open
  kReplayed,        ///< a session sequence already received, or older than the replay window
  /// Does not open: forged, altered, another session's, or a reply to another salt or request.
  kBadSeal,
  kMalformed,       ///< the FlatBuffers Verifier refused the Packet, or it has no body
  kUnknownType,     ///< a union tag outside the schema
  kTooSmall,        ///< a clear datagram at a server under kMinHandshakeDatagram: answering could amplify
  kVersion,         ///< a sealed reply from another protocol version
  /// The number of reasons (not a reason).
  kCount
};
/// The reason's snake_case name, e.g. "bad_seal" ("invalid" out of range).
std::string_view to_string(DatagramDrop d);
/// True for the reasons that come before a datagram authenticates (kTruncated, kReplayed, kBadSeal):
/// it did not open under the keys, or it repeated one that did.
bool unauthenticated(DatagramDrop d);

/// A datagram's first look, before any key: the layer to read it in, or why not.
struct Screened {
  Layer layer = Layer::kInvalid;            ///< the layer its prefix names (when ok())
  DatagramDrop drop = DatagramDrop::kNone;  ///< kTooLarge, kBadProtocol or kWrongDirection
  /// True when it is to be read in `layer`.
  bool ok() const { return drop == DatagramDrop::kNone; }
};

/// A session datagram read: opened under the session's key, new to its replay window, its Packet
/// decoded, and marked in the window; or the reason it was refused (then the window is untouched).
struct SessionDatagram {
  DatagramDrop drop = DatagramDrop::kNone;  ///< kNone: read and marked
  uint64_t sequence = 0;                    ///< its sequence (when ok())
  /// Newer than every sequence the window had marked before it (a straggler is not): a receiver
  /// takes the newest datagram's word on what is current.
  bool newest = false;
  Payload kind = Payload::kPacket;          ///< what it carries (its authenticated prefix says)
  /// kCompact: the compact message (compact.h), in the reader's buffer, still to be read and checked
  /// (empty when a carrier brought only messages).
  std::span<const uint8_t> compact;
  /// kCompact in a carrier (message_endpoint.h): its message section, still to be read and checked.
  std::span<const uint8_t> messages;
  /// kPacket: the decoded Packet (accepted in a session, arriving at this side), in the reader's buffer.
  Decoded message;
  /// True when read (and marked).
  bool ok() const { return drop == DatagramDrop::kNone; }
};

/// A clear datagram or a sealed reply read: its Packet decoded; or the reason it was refused.
struct PacketDatagram {
  DatagramDrop drop = DatagramDrop::kNone;  ///< kNone: read
  /// The decoded Packet, in the reader's buffer. A clear one's version is not checked: a server
  /// answers another version with a hint, and a client takes that hint from any version.
  Decoded message;
  /// True when read.
  bool ok() const { return drop == DatagramDrop::kNone; }
};

/// Reads the datagrams arriving at one side (Direction) into a buffer of its own: every span and
/// pointer a result holds is into it, valid until the next read. One per thread that receives (the
/// server's io thread, a client session); each read function screens the datagram first (as
/// screen() does) and refuses one of another layer as kBadProtocol, so a caller that dispatched on
/// screen() can never reach a check meant for another layer.
class DatagramReader {
 public:
  /// A reader for datagrams arriving at `at`.
  explicit DatagramReader(Direction at) : at_(at) {}

  /// Size, prefix and direction only: which read function to call (or the refusal). Costs nothing.
  Screened screen(std::span<const uint8_t> datagram) const;

  /// A session datagram under `receive` (this side's SessionKeys::receive), judged by `window`, the
  /// session's replay window, which it marks when it returns ok() and only then.
  SessionDatagram session(const Key& receive, ReplayWindow& window, std::span<const uint8_t> datagram);

  /// A clear datagram: at a server a handshake request (padded: kTooSmall otherwise), at a client the
  /// server's unauthenticated version hint.
  PacketDatagram clear(std::span<const uint8_t> datagram);

  /// A sealed reply, at a client: addressed to `client_salt` (this attempt's), sealed under the
  /// token's `server_to_client` key and bound to the request `answers` names (kNoRequestTag for
  /// replies to a ConnectRequest, the Connect's request_tag() once it is sent), of our version.
  PacketDatagram reply(const Key& server_to_client, uint64_t client_salt, const RequestTag& answers,
                       std::span<const uint8_t> datagram);

 private:
  // Screens `datagram` as a datagram of `layer`: kNone, or the reason to refuse it.
  DatagramDrop screen_as(Layer layer, std::span<const uint8_t> datagram) const;

  Direction at_;
  DatagramBuffer buffer_;
};

}  // namespace foothold::proto
