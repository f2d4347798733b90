#include "proto/datagram_reader.h"

namespace foothold::proto {

std::string_view to_string(DatagramDrop d) {
  switch (d) {
    case DatagramDrop::kNone: return "none";
    case DatagramDrop::kTooLarge: return "too_large";
    case DatagramDrop::kBadProtocol: return "bad_protocol";
    case DatagramDrop::kWrongDirection: return "wrong_direction";
    case DatagramDrop::kTruncated: return "truncated";
    case DatagramDrop::kReplayed: return "replayed";
    case DatagramDrop::kBadSeal: return "bad_seal";
    case DatagramDrop::kMalformed: return "malformed";
    case DatagramDrop::kUnknownType: return "unknown_type";
    case DatagramDrop::kTooSmall: return "too_small";
    case DatagramDrop::kVersion: return "version";
    case DatagramDrop::kCount: break;
  }
  return "invalid";
}

bool unauthenticated(DatagramDrop d) {
  return d == DatagramDrop::kTruncated || d == DatagramDrop::kReplayed || d == DatagramDrop::kBadSeal;
}

namespace {

DatagramDrop drop_of(DropReason r) {
  switch (r) {
    case DropReason::kNone: return DatagramDrop::kNone;
    case DropReason::kTooLarge: return DatagramDrop::kTooLarge;
    case DropReason::kMalformed: return DatagramDrop::kMalformed;
    case DropReason::kBadProtocol: return DatagramDrop::kBadProtocol;
    case DropReason::kUnknownType: return DatagramDrop::kUnknownType;
    case DropReason::kWrongDirection: return DatagramDrop::kWrongDirection;
    case DropReason::kCount: break;
  }
  return DatagramDrop::kMalformed;
}

DatagramDrop drop_of(OpenError e) {
  switch (e) {
    case OpenError::kNone: return DatagramDrop::kNone;
    // open_session() and open_reply() call a datagram malformed when it is shorter than their
    // layer's overhead (or of another layer, which screening has ruled out).
    case OpenError::kMalformed: return DatagramDrop::kTruncated;
    case OpenError::kReplayed: return DatagramDrop::kReplayed;
    case OpenError::kBadSeal: return DatagramDrop::kBadSeal;
  }
  return DatagramDrop::kBadSeal;
}

}  // namespace

Screened DatagramReader::screen(std::span<const uint8_t> datagram) const {
  Screened s;
  if (datagram.size() > kMaxDatagram) {
    s.drop = DatagramDrop::kTooLarge;
    return s;
  }
  s.layer = layer_of(datagram);
  if (s.layer == Layer::kInvalid) {
    s.drop = DatagramDrop::kBadProtocol;
  } else if (s.layer == Layer::kSealed && at_ == Direction::kToServer) {
    s.drop = DatagramDrop::kWrongDirection;  // only servers send sealed replies
  }
  return s;
}

DatagramDrop DatagramReader::screen_as(Layer layer, std::span<const uint8_t> datagram) const {
  const Screened s = screen(datagram);
  if (!s.ok()) return s.drop;
  return s.layer == layer ? DatagramDrop::kNone : DatagramDrop::kBadProtocol;
}

SessionDatagram DatagramReader::session(const Key& receive, ReplayWindow& window, std::span<const uint8_t> datagram) {
  SessionDatagram r;
  r.drop = screen_as(Layer::kSession, datagram);
  if (!r.ok()) return r;
  uint64_t sequence = 0;
  std::span<const uint8_t> opened;
  r.drop = drop_of(open_session(receive, window, datagram, buffer_, sequence, opened));
  if (!r.ok()) return r;
  // Authentic from here: only the peer holds the key it was sealed with.
  r.kind = session_payload(datagram);
  if (r.kind == Payload::kCompact) {
    r.compact = opened;
    // A carrier is opened here: cut short, it is malformed (and not marked), as a Packet would be.
    if (is_carrier(opened)) {
      CarrierParts parts;
      if (!split_carrier(opened, parts)) {
        r.drop = DatagramDrop::kMalformed;
        return r;
      }
      r.compact = parts.compact;
      r.messages = parts.messages;
    }
  } else {
    const DecodeResult d = decode(opened, at_, Layer::kSession);
    r.drop = drop_of(d.error);
    if (!r.ok()) return r;  // not marked: a sequence whose Packet did not decode is not taken
    r.message = d.message;
  }
  r.sequence = sequence;
  r.newest = sequence > window.newest();
  window.mark(sequence);
  return r;
}

PacketDatagram DatagramReader::clear(std::span<const uint8_t> datagram) {
  PacketDatagram r;
  r.drop = screen_as(Layer::kClear, datagram);
  if (!r.ok()) return r;
  const DecodeResult d = decode(unframe_clear(datagram, buffer_), at_, Layer::kClear);
  r.drop = drop_of(d.error);
  if (!r.ok()) return r;
  // A server's replies to an address it has not verified are no larger than the request, and judged
  // against the whole datagram, prefix included: so is the request's size.
  if (at_ == Direction::kToServer && datagram.size() < kMinHandshakeDatagram) {
    r.drop = DatagramDrop::kTooSmall;
    return r;
  }
  r.message = d.message;
  return r;
}

PacketDatagram DatagramReader::reply(const Key& server_to_client, uint64_t client_salt, const RequestTag& answers,
                                     std::span<const uint8_t> datagram) {
  PacketDatagram r;
  r.drop = screen_as(Layer::kSealed, datagram);
  if (!r.ok()) return r;
  if (datagram.size() < kSealedOverhead) {
    r.drop = DatagramDrop::kTruncated;
    return r;
  }
  // The salt is authenticated too; comparing it first spares the decryption of a reply to another
  // attempt (an old one's, or another client's behind the same address).
  if (sealed_reply_salt(datagram) != client_salt) {
    r.drop = DatagramDrop::kBadSeal;
    return r;
  }
  std::span<const uint8_t> opened;
  r.drop = drop_of(open_reply(server_to_client, answers, datagram, buffer_, opened));
  if (!r.ok()) return r;
  const DecodeResult d = decode(opened, at_, Layer::kSealed);
  r.drop = drop_of(d.error);
  if (!r.ok()) return r;
  if (d.message.version != kProtocolVersion) {
    r.drop = DatagramDrop::kVersion;
    return r;
  }
  r.message = d.message;
  return r;
}

}  // namespace foothold::proto
