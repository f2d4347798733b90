#include "proto/codec.h"

#include <algorithm>

namespace foothold::proto {

std::string_view to_string(DropReason r) {
  switch (r) {
    case DropReason::kNone: return "none";
    case DropReason::kTooLarge: return "too_large";
    case DropReason::kMalformed: return "malformed";
    case DropReason::kBadProtocol: return "bad_protocol";
    case DropReason::kUnknownType: return "unknown_type";
    case DropReason::kWrongDirection: return "wrong_direction";
    case DropReason::kCount: break;
  }
  return "invalid";
}

std::string_view to_string(proto::fb::RejectReason r) {
  const char* name = proto::fb::EnumNameRejectReason(r);
  return name && *name ? name : "Unknown";
}

namespace {
// Which messages each side accepts, and in which layer: anything else is dropped, so that, say, a
// Disconnect in clear (which anyone could forge) is never honoured.
bool accepted(proto::fb::Body t, Direction at, Layer layer) {
  using B = proto::fb::Body;
  if (at == Direction::kToServer) {
    if (layer == Layer::kClear) return t == B::ConnectRequest || t == B::Connect || t == B::StatusRequest;
    if (layer == Layer::kSession) return t == B::Disconnect || t == B::PathResponse;  // inputs come as compact messages
    return false;
  }
  if (layer == Layer::kClear) return t == B::Reject;
  if (layer == Layer::kSealed) return t == B::Challenge || t == B::Accept || t == B::Reject || t == B::Status;
  if (layer == Layer::kSession) return t == B::Disconnect || t == B::PathChallenge;  // snapshots come as compact messages
  return false;
}
}  // namespace

DecodeResult decode(std::span<const uint8_t> datagram, Direction arriving_at, Layer layer) {
  DecodeResult r;
  if (datagram.size() > kMaxDatagram) {
    r.error = DropReason::kTooLarge;
    return r;
  }
  // Tight limits: a Packet is a root table, a body table and vectors of structs; nothing nests deeper.
  flatbuffers::Verifier::Options opts;
  opts.max_depth = 4;
  opts.max_tables = 8;
  opts.check_alignment = true;
  flatbuffers::Verifier verifier(datagram.data(), datagram.size(), opts);
  if (datagram.size() < 8 || !proto::fb::VerifyPacketBuffer(verifier)) {
    r.error = DropReason::kMalformed;
    return r;
  }
  const proto::fb::Packet* p = proto::fb::GetPacket(datagram.data());
  if (p->protocol() != kProtocolId) {
    r.error = DropReason::kBadProtocol;
    return r;
  }
  const auto type = p->body_type();
  if (type <= proto::fb::Body::MIN || type > proto::fb::Body::MAX) {
    r.error = DropReason::kUnknownType;
    return r;
  }
  if (p->body() == nullptr) {
    r.error = DropReason::kMalformed;
    return r;
  }
  if (!accepted(type, arriving_at, layer)) {
    r.error = DropReason::kWrongDirection;
    return r;
  }
  // A movement profile beyond what any settings hold is no state a server sends: refused, as a
  // compact snapshot's own state with one is.
  if (type == proto::fb::Body::Accept) {
    const auto* state = p->body_as_Accept()->state();
    if (state && state->profile() > kMaxProfiles) {
      r.error = DropReason::kMalformed;
      return r;
    }
    // The attribute names: as many, as long and of the characters a server writes (a game's schema
    // allows no other), or the Accept is no server's.
    for (const auto* list : {p->body_as_Accept()->character_attributes(), p->body_as_Accept()->match_attributes()}) {
      if (!list) continue;
      bool ok = list->size() <= kMaxAttributeNames;
      for (flatbuffers::uoffset_t i = 0; ok && i < list->size(); ++i) {
        const flatbuffers::String* n = list->Get(i);
        ok = n && n->size() >= 1 && n->size() <= kMaxAttributeName &&
             std::all_of(n->begin(), n->end(), [](char ch) { return (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_'; });
      }
      if (!ok) {
        r.error = DropReason::kMalformed;
        return r;
      }
    }
  }
  r.message = {p, type, p->version(), datagram.size()};
  return r;
}

proto::fb::CharacterStateW to_wire(const CharacterState& s) {
  return proto::fb::CharacterStateW(proto::fb::Vec3i(s.position.x, s.position.y, s.position.z),
                               proto::fb::Vec3i(s.velocity.x, s.velocity.y, s.velocity.z),
                               proto::fb::Normal3s(s.floor_normal.x, s.floor_normal.y, s.floor_normal.z),
                               static_cast<uint8_t>(s.ground), s.air_ticks, s.jump_buffer, s.jump_held ? 1 : 0,
                               s.crouched ? 1 : 0, s.frozen ? 1 : 0, s.profile, s.platform,
                               proto::fb::Vec3i(s.platform_offset.x, s.platform_offset.y, s.platform_offset.z));
}

CharacterState from_wire(const proto::fb::CharacterStateW& w) {
  CharacterState s;
  s.position = {w.position().x(), w.position().y(), w.position().z()};
  s.velocity = {w.velocity().x(), w.velocity().y(), w.velocity().z()};
  s.floor_normal = {w.floor_normal().x(), w.floor_normal().y(), w.floor_normal().z()};
  s.ground = w.ground() < kGroundKindCount ? static_cast<GroundKind>(w.ground()) : GroundKind::kNone;
  s.air_ticks = w.air_ticks();
  s.jump_buffer = w.jump_buffer();
  s.jump_held = w.jump_held() != 0;
  s.crouched = w.crouched() != 0;
  s.frozen = w.frozen() != 0;
  s.profile = w.profile() <= kMaxProfiles ? w.profile() : 0;
  s.platform = w.platform();
  s.platform_offset = {w.platform_offset().x(), w.platform_offset().y(), w.platform_offset().z()};
  return s;
}

PacketWriter::Bytes PacketWriter::finish(proto::fb::Body type, flatbuffers::Offset<void> body, uint32_t protocol,
                                         uint16_t version) {
  proto::fb::PacketBuilder pb(fbb_);
  pb.add_protocol(protocol);
  pb.add_version(version);
  pb.add_body_type(type);
  pb.add_body(body);
  fbb_.Finish(pb.Finish(), proto::fb::PacketIdentifier());
  return {fbb_.GetBufferPointer(), fbb_.GetSize()};
}

template <typename Build>
PacketWriter::Bytes PacketWriter::padded(Build&& build) {
  fbb_.Clear();
  const std::size_t bare = build(std::span<const uint8_t>()).size();
  // The padding vector costs its length prefix and alignment besides its bytes.
  const std::size_t want = kMinHandshakeDatagram - 1;  // the clear prefix byte makes up the rest
  const std::size_t pad = bare >= want ? 0 : want - bare;
  fbb_.Clear();
  return build(std::span<const uint8_t>(zeros_.data(), std::min(pad, zeros_.size())));
}

PacketWriter::Bytes PacketWriter::connect_request(std::span<const uint8_t> token, uint64_t client_salt) {
  return padded([&](std::span<const uint8_t> pad) {
    const auto t = fbb_.CreateVector(token.data(), token.size());
    const auto padding = fbb_.CreateVector(pad.data(), pad.size());
    return finish(proto::fb::Body::ConnectRequest, proto::fb::CreateConnectRequest(fbb_, t, client_salt, padding).Union());
  });
}

PacketWriter::Bytes PacketWriter::challenge(std::span<const uint8_t> cookie) {
  fbb_.Clear();
  const auto c = fbb_.CreateVector(cookie.data(), cookie.size());
  return finish(proto::fb::Body::Challenge, proto::fb::CreateChallenge(fbb_, c).Union());
}

PacketWriter::Bytes PacketWriter::connect(std::span<const uint8_t> token, uint64_t client_salt,
                                          std::span<const uint8_t> cookie, std::span<const uint8_t> proof) {
  // A token and a cookie make a Connect larger than any reply already; no padding needed.
  fbb_.Clear();
  const auto t = fbb_.CreateVector(token.data(), token.size());
  const auto c = fbb_.CreateVector(cookie.data(), cookie.size());
  const auto p = fbb_.CreateVector(proof.data(), proof.size());
  return finish(proto::fb::Body::Connect, proto::fb::CreateConnect(fbb_, t, client_salt, c, p).Union());
}

PacketWriter::Bytes PacketWriter::accept(uint32_t character_id, uint32_t tick, uint16_t tick_rate,
                                         uint16_t snapshot_interval, const CharacterState& state,
                                         std::span<const uint8_t> server_random, uint32_t route,
                                         std::span<const std::string> character_attributes,
                                         std::span<const std::string> match_attributes, uint64_t client_id,
                                         uint32_t seen_by_all) {
  fbb_.Clear();
  const proto::fb::CharacterStateW w = to_wire(state);
  const auto r = fbb_.CreateVector(server_random.data(), server_random.size());
  auto names = [&](std::span<const std::string> list) -> flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<flatbuffers::String>>> {
    if (list.empty()) return 0;
    std::vector<flatbuffers::Offset<flatbuffers::String>> out;
    for (const std::string& n : list.first(std::min(list.size(), kMaxAttributeNames)))
      out.push_back(fbb_.CreateString(n.substr(0, kMaxAttributeName)));
    return fbb_.CreateVector(out);
  };
  const auto character_names = names(character_attributes);
  const auto match_names = names(match_attributes);
  return finish(proto::fb::Body::Accept, proto::fb::CreateAccept(fbb_, character_id, tick, tick_rate, snapshot_interval, &w, r,
                                                                 route, character_names, match_names, client_id, seen_by_all)
                                             .Union());
}

PacketWriter::Bytes PacketWriter::path_challenge(uint64_t data) {
  fbb_.Clear();
  return finish(proto::fb::Body::PathChallenge, proto::fb::CreatePathChallenge(fbb_, data).Union());
}

PacketWriter::Bytes PacketWriter::path_response(uint64_t data) {
  fbb_.Clear();
  return finish(proto::fb::Body::PathResponse, proto::fb::CreatePathResponse(fbb_, data).Union());
}

PacketWriter::Bytes PacketWriter::reject(proto::fb::RejectReason reason, std::string_view message) {
  fbb_.Clear();
  const auto m = fbb_.CreateString(message.substr(0, kMaxRejectMessage));
  return finish(proto::fb::Body::Reject, proto::fb::CreateReject(fbb_, reason, m).Union());
}

PacketWriter::Bytes PacketWriter::disconnect(proto::fb::DisconnectReason reason) {
  fbb_.Clear();
  return finish(proto::fb::Body::Disconnect, proto::fb::CreateDisconnect(fbb_, reason).Union());
}

PacketWriter::Bytes PacketWriter::status_request(std::span<const uint8_t> token, uint64_t client_salt) {
  return padded([&](std::span<const uint8_t> pad) {
    const auto t = fbb_.CreateVector(token.data(), token.size());
    const auto padding = fbb_.CreateVector(pad.data(), pad.size());
    return finish(proto::fb::Body::StatusRequest, proto::fb::CreateStatusRequest(fbb_, t, client_salt, padding).Union());
  });
}

PacketWriter::Bytes PacketWriter::status(uint32_t tick, uint32_t clients, uint32_t max_clients, uint64_t uptime_ms,
                                         uint64_t world_hash, uint64_t settings_hash) {
  fbb_.Clear();
  return finish(proto::fb::Body::Status,
                proto::fb::CreateStatus(fbb_, tick, clients, max_clients, uptime_ms, world_hash, settings_hash).Union());
}

}  // namespace foothold::proto
