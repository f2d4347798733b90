// The datagram codec: what it builds decodes to the same values, and what it refuses it names.

#include <algorithm>
#include <array>
#include <cstring>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "proto/codec.h"

namespace foothold::proto {
namespace {

std::vector<uint8_t> copy(PacketWriter::Bytes b) { return {b.begin(), b.end()}; }

// Decoding needs 8-byte aligned bytes, as the opening functions' buffers give. Each message is
// checked in the layer it travels in.
Layer layer_for(const std::vector<uint8_t>& bytes, Direction d) {
  if (bytes.size() < 8) return Layer::kSession;
  const auto* p = flatbuffers::GetRoot<proto::fb::Packet>(bytes.data());
  using B = proto::fb::Body;
  switch (p->body_type()) {
    case B::ConnectRequest: case B::Connect: case B::StatusRequest: return Layer::kClear;
    case B::Challenge: case B::Status: return Layer::kSealed;
    case B::Reject: return d == Direction::kToClient ? Layer::kSealed : Layer::kClear;
    default: return Layer::kSession;
  }
}
DecodeResult decode_aligned(const std::vector<uint8_t>& bytes, Direction d, Layer layer) {
  alignas(8) static uint8_t buffer[4096];
  if (!bytes.empty()) std::memcpy(buffer, bytes.data(), bytes.size());
  return decode(std::span<const uint8_t>(buffer, bytes.size()), d, layer);
}
DecodeResult decode_aligned(const std::vector<uint8_t>& bytes, Direction d) {
  // Garbage has no layer worth guessing: any one will do to exercise the verifier.
  Layer layer = Layer::kSession;
  if (bytes.size() >= 8) {
    flatbuffers::Verifier v(bytes.data(), bytes.size());
    if (proto::fb::VerifyPacketBuffer(v)) layer = layer_for(bytes, d);
  }
  return decode_aligned(bytes, d, layer);
}

const std::array<uint8_t, kTokenSealedBytes> kToken = [] {
  std::array<uint8_t, kTokenSealedBytes> t{};
  for (std::size_t i = 0; i < t.size(); ++i) t[i] = uint8_t(i * 7);
  return t;
}();

CharacterState sample_state() {
  CharacterState s;
  s.position = {1024, -2048, 123456};
  s.velocity = {-65536, 3, 7};
  s.floor_normal = {0, 16384, 0};
  s.ground = GroundKind::kWalkable;
  return s;
}

TEST(Codec, HandshakeRequestsArePaddedAndEveryReplyIsNoLarger) {
  PacketWriter w;
  const std::vector<uint8_t> cookie(kCookieSize, 7);
  const std::vector<uint8_t> proof(kProofBytes, 3);
  // Clear datagrams carry a prefix byte more than their Packet.
  std::vector<std::size_t> requests;
  for (const auto& bytes : {copy(w.connect_request(kToken, 1)), copy(w.connect(kToken, 1, cookie, proof)),
                            copy(w.status_request(kToken, 1))}) {
    EXPECT_GE(bytes.size() + 1, kMinHandshakeDatagram);
    requests.push_back(bytes.size() + 1);
  }
  const std::size_t smallest = *std::min_element(requests.begin(), requests.end());
  // Sealed replies carry kSealedOverhead more than their Packet; a clear Reject one byte more.
  EXPECT_LE(copy(w.challenge(cookie)).size() + kSealedOverhead, smallest);
  const auto longest_reject = copy(w.reject(proto::fb::RejectReason::ClientIdInUse, std::string(500, 'x')));
  EXPECT_LE(longest_reject.size() + kSealedOverhead, smallest) << "even the longest reject message";
  EXPECT_LE(copy(w.status(1, 2, 3, 4, 5, 6)).size() + kSealedOverhead, smallest);
}

TEST(Codec, EveryMessageRoundTrips) {
  PacketWriter w;
  {
    ServerRandom random{};
    for (std::size_t i = 0; i < random.size(); ++i) random[i] = uint8_t(i * 7 + 1);
    const auto b = copy(w.accept(33, 44, 60, 2, sample_state(), random));
    const auto d = decode_aligned(b, Direction::kToClient, Layer::kSealed);
    ASSERT_TRUE(d.ok());
    ASSERT_EQ(d.message.type, proto::fb::Body::Accept);
    const auto* a = d.message.packet->body_as_Accept();
    EXPECT_EQ(a->character_id(), 33u);
    EXPECT_EQ(a->tick(), 44u);
    EXPECT_EQ(a->tick_rate(), 60);
    EXPECT_EQ(a->snapshot_interval(), 2);
    EXPECT_EQ(from_wire(*a->state()), sample_state());
    const auto r = bytes_of(a->server_random());
    EXPECT_TRUE(std::equal(r.begin(), r.end(), random.begin(), random.end()));
  }
  {
    const auto b = copy(w.connect_request(kToken, 0x1122334455667788ull));
    const auto d = decode_aligned(b, Direction::kToServer, Layer::kClear);
    ASSERT_TRUE(d.ok());
    const auto* r = d.message.packet->body_as_ConnectRequest();
    EXPECT_EQ(r->client_salt(), 0x1122334455667788ull);
    const auto t = bytes_of(r->token());
    EXPECT_TRUE(std::equal(t.begin(), t.end(), kToken.begin(), kToken.end()));
  }
  {
    const auto b = copy(w.reject(proto::fb::RejectReason::SettingsMismatch, "hash differs"));
    const auto d = decode_aligned(b, Direction::kToClient, Layer::kSealed);
    ASSERT_TRUE(d.ok());
    EXPECT_EQ(d.message.packet->body_as_Reject()->reason(), proto::fb::RejectReason::SettingsMismatch);
    EXPECT_EQ(d.message.packet->body_as_Reject()->message()->str(), "hash differs");
  }
}

TEST(Codec, EachMessageIsAcceptedOnlyInItsLayer) {
  // A Disconnect in clear could be sent by anyone: never accepted there.
  PacketWriter w;
  const auto disconnect = copy(w.disconnect(proto::fb::DisconnectReason::ClientQuit));
  EXPECT_TRUE(decode_aligned(disconnect, Direction::kToServer, Layer::kSession).ok());
  EXPECT_EQ(decode_aligned(disconnect, Direction::kToServer, Layer::kClear).error, DropReason::kWrongDirection);
  EXPECT_EQ(decode_aligned(disconnect, Direction::kToClient, Layer::kClear).error, DropReason::kWrongDirection);
  EXPECT_EQ(decode_aligned(disconnect, Direction::kToClient, Layer::kSealed).error, DropReason::kWrongDirection);
  // The Accept is a sealed reply: it carries the server's share of the session keys.
  const auto accept = copy(w.accept(1, 2, 60, 1, sample_state(), ServerRandom{}));
  EXPECT_TRUE(decode_aligned(accept, Direction::kToClient, Layer::kSealed).ok());
  EXPECT_EQ(decode_aligned(accept, Direction::kToClient, Layer::kSession).error, DropReason::kWrongDirection);
  EXPECT_EQ(decode_aligned(accept, Direction::kToClient, Layer::kClear).error, DropReason::kWrongDirection);
  const auto challenge = copy(w.challenge(std::vector<uint8_t>(kCookieSize, 1)));
  EXPECT_TRUE(decode_aligned(challenge, Direction::kToClient, Layer::kSealed).ok());
  EXPECT_EQ(decode_aligned(challenge, Direction::kToClient, Layer::kClear).error, DropReason::kWrongDirection);
  const auto request = copy(w.connect_request(kToken, 1));
  EXPECT_EQ(decode_aligned(request, Direction::kToServer, Layer::kSession).error, DropReason::kWrongDirection);
  // Snapshots and inputs are compact messages now: no Packet in a session carries them.
  EXPECT_EQ(decode_aligned(accept, Direction::kToServer, Layer::kSession).error, DropReason::kWrongDirection);
}

TEST(Codec, RefusesOversizedTruncatedAndForeignDatagrams) {
  PacketWriter w;
  const auto hello = copy(w.connect_request(kToken, 42));
  EXPECT_EQ(decode_aligned(std::vector<uint8_t>(kMaxDatagram + 1, 0), Direction::kToServer).error, DropReason::kTooLarge);
  // Every truncation that cuts into the message is refused (the verifier sees the exact length); one
  // that only drops trailing alignment bytes still reads exactly the same values. None crashes.
  int refused = 0;
  for (std::size_t n = 0; n < hello.size(); ++n) {
    const std::vector<uint8_t> cut(hello.begin(), hello.begin() + long(n));
    const auto d = decode_aligned(cut, Direction::kToServer);
    if (!d.ok()) {
      ++refused;
      continue;
    }
    const auto* r = d.message.packet->body_as_ConnectRequest();
    ASSERT_NE(r, nullptr) << "length " << n;
    EXPECT_EQ(r->client_salt(), 42u) << "length " << n;
    const auto t = bytes_of(r->token());
    EXPECT_TRUE(std::equal(t.begin(), t.end(), kToken.begin(), kToken.end())) << "length " << n;
    EXPECT_GE(n, hello.size() - 7) << "only alignment bytes at the very end may go";
  }
  EXPECT_GE(refused, int(hello.size()) - 7);
  // Another protocol: same shape, different id.
  const auto foreign = copy(w.finish(proto::fb::Body::ConnectRequest, proto::fb::CreateConnectRequest(w.builder()).Union(), 0x12345678));
  EXPECT_EQ(decode_aligned(foreign, Direction::kToServer).error, DropReason::kBadProtocol);
  // A server message sent to a server, and a client message sent to a client.
  EXPECT_EQ(decode_aligned(copy(w.challenge({})), Direction::kToServer, Layer::kClear).error, DropReason::kWrongDirection);
  EXPECT_EQ(decode_aligned(hello, Direction::kToClient, Layer::kSealed).error, DropReason::kWrongDirection);
  // Another version decodes: the server answers it with VersionMismatch.
  const auto next_version = copy(w.finish(proto::fb::Body::ConnectRequest, proto::fb::CreateConnectRequest(w.builder()).Union(), kProtocolId, uint16_t(kProtocolVersion + 1)));
  const auto d = decode_aligned(next_version, Direction::kToServer, Layer::kClear);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d.message.version, kProtocolVersion + 1);
}

TEST(Codec, UnknownUnionTagIsRefusedByOurRangeCheck) {
  PacketWriter w;
  auto& fbb = w.builder();
  fbb.Clear();
  const auto body = proto::fb::CreateConnectRequest(fbb).Union();
  proto::fb::PacketBuilder pb(fbb);
  pb.add_protocol(kProtocolId);
  pb.add_version(kProtocolVersion);
  pb.add_body_type(static_cast<proto::fb::Body>(99));
  pb.add_body(body);
  fbb.Finish(pb.Finish(), proto::fb::PacketIdentifier());
  const std::vector<uint8_t> bytes(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
  EXPECT_EQ(decode_aligned(bytes, Direction::kToServer).error, DropReason::kUnknownType);
}

TEST(Codec, RandomBytesAndBitFlipsNeverCrash) {
  PacketWriter w;
  std::mt19937 rng(3);
  const auto accept = copy(w.accept(7, 1234, 60, 1, sample_state(), ServerRandom{}));
  int accepted = 0;
  for (int i = 0; i < 20000; ++i) {
    std::vector<uint8_t> b = accept;
    const int flips = 1 + int(rng() % 4);
    for (int f = 0; f < flips; ++f) b[rng() % b.size()] ^= uint8_t(1u << (rng() % 8));
    const auto d = decode_aligned(b, Direction::kToClient, Layer::kSession);
    if (d.ok()) {
      ++accepted;
      // Whatever passed is safe to read in full.
      const auto* a = d.message.packet->body_as_Accept();
      if (a && a->state()) (void)from_wire(*a->state());
    }
    std::vector<uint8_t> junk(rng() % 1300);
    for (auto& c : junk) c = uint8_t(rng());
    (void)decode_aligned(junk, Direction::kToServer);
  }
  EXPECT_GT(accepted, 0) << "flips inside values (not offsets) still decode";
}

TEST(Codec, WireValuesAreClampedToWhatTheStepKnows) {
  const proto::fb::CharacterStateW bad(proto::fb::Vec3i(1, 2, 3), proto::fb::Vec3i(4, 5, 6), proto::fb::Normal3s(0, 0, 0), 200, 0, 0, 0, 7,
                                       9, 200, 3, proto::fb::Vec3i(7, 8, 9));
  EXPECT_EQ(from_wire(bad).ground, GroundKind::kNone);
  EXPECT_TRUE(from_wire(bad).crouched) << "any non-zero byte is crouched";
  EXPECT_TRUE(from_wire(bad).frozen) << "any non-zero byte is frozen";
  EXPECT_EQ(from_wire(bad).profile, 0) << "no profile beyond 15 reaches the step (decode() refuses the Accept)";
  EXPECT_EQ(from_wire(bad).platform, 3);
  EXPECT_EQ(from_wire(bad).platform_offset, (FixedVec3{7, 8, 9}));
}

TEST(Codec, TheAcceptCarriesFrozenAndTheProfileAndRefusesAProfileBeyondFifteen) {
  PacketWriter w;
  const ServerRandom random{};
  for (const uint8_t profile : {uint8_t(0), uint8_t(1), uint8_t(15)}) {
    CharacterState s = sample_state();
    s.frozen = profile == 1;
    s.profile = profile;
    s.platform = 2;
    s.platform_offset = {-5, 6, 7};
    const auto b = copy(w.accept(1, 2, 60, 1, s, random));
    const auto d = decode_aligned(b, Direction::kToClient, Layer::kSealed);
    ASSERT_TRUE(d.ok()) << int(profile);
    EXPECT_EQ(from_wire(*d.message.packet->body_as_Accept()->state()), s);
  }
  CharacterState s = sample_state();
  s.profile = 16;
  EXPECT_EQ(decode_aligned(copy(w.accept(1, 2, 60, 1, s, random)), Direction::kToClient, Layer::kSealed).error,
            DropReason::kMalformed);
  s.profile = 255;
  EXPECT_EQ(decode_aligned(copy(w.accept(1, 2, 60, 1, s, random)), Direction::kToClient, Layer::kSealed).error,
            DropReason::kMalformed);
  static_assert(sizeof(proto::fb::CharacterStateW) == 52, "frozen and profile took two bytes of padding");
}

}  // namespace
}  // namespace foothold::proto
