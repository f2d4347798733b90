// The datagram codec: what it builds decodes to the same values, and what it refuses it names.

#include <cstring>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "proto/codec.h"

namespace foothold::proto {
namespace {

std::vector<uint8_t> copy(PacketWriter::Bytes b) { return {b.begin(), b.end()}; }

// Decoding needs 8-byte aligned bytes, as a socket's receive buffer gives.
DecodeResult decode_aligned(const std::vector<uint8_t>& bytes, Direction d) {
  alignas(8) static uint8_t buffer[4096];
  if (!bytes.empty()) std::memcpy(buffer, bytes.data(), bytes.size());
  return decode(std::span<const uint8_t>(buffer, bytes.size()), d);
}

CharacterState sample_state() {
  CharacterState s;
  s.position = {1024, -2048, 123456};
  s.velocity = {-65536, 3, 7};
  s.floor_normal = {0, 16384, 0};
  s.ground = GroundKind::kWalkable;
  return s;
}

TEST(Codec, HandshakeMessagesArePaddedAndRepliesAreSmaller) {
  PacketWriter w;
  const std::vector<uint8_t> cookie(kCookieSize, 7);
  for (const auto& bytes : {copy(w.hello(1)), copy(w.connect(1, cookie, 2, 3)), copy(w.status_request(1, cookie))}) {
    EXPECT_GE(bytes.size(), kMinHandshakeDatagram);
    EXPECT_LE(bytes.size(), kMinHandshakeDatagram + 16);
  }
  EXPECT_LT(copy(w.challenge(1, cookie)).size(), kMinHandshakeDatagram);
  EXPECT_LT(copy(w.reject(1, wire::RejectReason::BadCookie, std::string(500, 'x'))).size(), kMinHandshakeDatagram);
  EXPECT_LT(copy(w.status(1, 2, 3, 4, 5, 6, 7)).size(), kMinHandshakeDatagram);
}

TEST(Codec, EveryMessageRoundTrips) {
  PacketWriter w;
  const std::vector<uint8_t> cookie(kCookieSize, 9);
  {
    const auto b = copy(w.accept(11, 22, 33, 44, 60, 2, sample_state()));
    const auto d = decode_aligned(b, Direction::kToClient);
    ASSERT_TRUE(d.ok());
    ASSERT_EQ(d.message.type, wire::Body::Accept);
    const auto* a = d.message.packet->body_as_Accept();
    EXPECT_EQ(a->client_nonce(), 11u);
    EXPECT_EQ(a->session(), 22u);
    EXPECT_EQ(a->character_id(), 33u);
    EXPECT_EQ(a->tick(), 44u);
    EXPECT_EQ(a->tick_rate(), 60);
    EXPECT_EQ(a->snapshot_interval(), 2);
    EXPECT_EQ(from_wire(*a->state()), sample_state());
  }
  {
    std::vector<InputCmd> inputs;
    for (uint32_t t = 1; t <= 40; ++t) inputs.push_back(encode_move(0.5, -1, t % 2 ? kButtonJump : 0, t));
    const auto b = copy(w.input_batch(5, 6, 7, 8, inputs));
    const auto d = decode_aligned(b, Direction::kToServer);
    ASSERT_TRUE(d.ok());
    const auto* batch = d.message.packet->body_as_InputBatch();
    ASSERT_EQ(batch->inputs()->size(), kMaxInputsPerPacket) << "the newest 32 only";
    EXPECT_EQ(from_wire(*batch->inputs()->Get(0)), inputs[8]);
    EXPECT_EQ(from_wire(*batch->inputs()->Get(31)), inputs[39]);
    EXPECT_EQ(batch->sequence(), 6u);
    EXPECT_LE(b.size(), kMaxDatagram);
  }
  {
    PacketWriter::SnapshotHeader h;
    h.session = 1;
    h.tick = 99;
    h.repeated_mask = 0x5;
    h.input_lead = -3;
    h.own = sample_state();
    h.base_tick = 97;
    std::vector<wire::RemoteFull> full(48, wire::RemoteFull(1, -100000, 2, 3, 4));
    std::vector<wire::RemoteDelta> delta;
    const auto b = copy(w.snapshot(h, full, delta));
    EXPECT_LE(b.size(), kMaxDatagram) << "a snapshot full of absolute remotes still fits";
    const auto d = decode_aligned(b, Direction::kToClient);
    ASSERT_TRUE(d.ok());
    const auto* s = d.message.packet->body_as_Snapshot();
    EXPECT_EQ(s->tick(), 99u);
    EXPECT_EQ(s->input_lead(), -3);
    EXPECT_EQ(from_wire(*s->own()), sample_state());
    EXPECT_EQ(s->full()->size(), 48u);
    EXPECT_EQ(s->full()->Get(47)->x(), -100000);
  }
  {
    const auto b = copy(w.reject(3, wire::RejectReason::SettingsMismatch, "hash differs"));
    const auto d = decode_aligned(b, Direction::kToClient);
    ASSERT_TRUE(d.ok());
    EXPECT_EQ(d.message.packet->body_as_Reject()->reason(), wire::RejectReason::SettingsMismatch);
    EXPECT_EQ(d.message.packet->body_as_Reject()->message()->str(), "hash differs");
  }
}

TEST(Codec, RefusesOversizedTruncatedAndForeignDatagrams) {
  PacketWriter w;
  const auto hello = copy(w.hello(42));
  EXPECT_EQ(decode_aligned(std::vector<uint8_t>(kMaxDatagram + 1, 0), Direction::kToServer).error, DropReason::kTooLarge);
  // Every truncation is refused (the verifier sees the exact length), none crashes.
  for (std::size_t n = 0; n < hello.size(); ++n) {
    const std::vector<uint8_t> cut(hello.begin(), hello.begin() + long(n));
    EXPECT_FALSE(decode_aligned(cut, Direction::kToServer).ok()) << "length " << n;
  }
  // Another protocol: same shape, different id.
  const auto foreign = copy(w.finish(wire::Body::Hello, wire::CreateHello(w.builder(), 1).Union(), 0x12345678));
  EXPECT_EQ(decode_aligned(foreign, Direction::kToServer).error, DropReason::kBadProtocol);
  // A server message sent to a server, and a client message sent to a client.
  EXPECT_EQ(decode_aligned(copy(w.challenge(1, {})), Direction::kToServer).error, DropReason::kWrongDirection);
  EXPECT_EQ(decode_aligned(hello, Direction::kToClient).error, DropReason::kWrongDirection);
  // Another version decodes: the server answers it with VersionMismatch.
  const auto v2 = copy(w.finish(wire::Body::Hello, wire::CreateHello(w.builder(), 1).Union(), kProtocolId, 2));
  const auto d = decode_aligned(v2, Direction::kToServer);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d.message.version, 2);
}

TEST(Codec, UnknownUnionTagIsRefusedByOurRangeCheck) {
  PacketWriter w;
  auto& fbb = w.builder();
  fbb.Clear();
  const auto body = wire::CreateHello(fbb, 1).Union();
  wire::PacketBuilder pb(fbb);
  pb.add_protocol(kProtocolId);
  pb.add_version(kProtocolVersion);
  pb.add_body_type(static_cast<wire::Body>(99));
  pb.add_body(body);
  fbb.Finish(pb.Finish(), wire::PacketIdentifier());
  const std::vector<uint8_t> bytes(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
  EXPECT_EQ(decode_aligned(bytes, Direction::kToServer).error, DropReason::kUnknownType);
}

TEST(Codec, RandomBytesAndBitFlipsNeverCrash) {
  PacketWriter w;
  std::mt19937 rng(3);
  const auto snapshot = [&] {
    PacketWriter::SnapshotHeader h;
    h.own = sample_state();
    std::vector<wire::RemoteFull> full(5, wire::RemoteFull(1, 2, 3, 4, 9));
    std::vector<wire::RemoteDelta> delta(5, wire::RemoteDelta(1, 2, 3, 4, 9));
    return copy(w.snapshot(h, full, delta));
  }();
  int accepted = 0;
  for (int i = 0; i < 20000; ++i) {
    std::vector<uint8_t> b = snapshot;
    const int flips = 1 + int(rng() % 4);
    for (int f = 0; f < flips; ++f) b[rng() % b.size()] ^= uint8_t(1u << (rng() % 8));
    const auto d = decode_aligned(b, Direction::kToClient);
    if (d.ok()) {
      ++accepted;
      // Whatever passed is safe to read in full.
      const auto* s = d.message.packet->body_as_Snapshot();
      if (s && s->full())
        for (const auto* r : *s->full()) (void)r->x();
      if (s && s->own()) (void)from_wire(*s->own());
    }
    std::vector<uint8_t> junk(rng() % 1300);
    for (auto& c : junk) c = uint8_t(rng());
    (void)decode_aligned(junk, Direction::kToServer);
  }
  EXPECT_GT(accepted, 0) << "flips inside values (not offsets) still decode";
}

TEST(Codec, WireValuesAreClampedToWhatTheStepKnows) {
  const wire::CharacterStateW bad(wire::Vec3i(1, 2, 3), wire::Vec3i(4, 5, 6), wire::Normal3s(0, 0, 0), 200);
  EXPECT_EQ(from_wire(bad).ground, GroundKind::kNone);
  const InputCmd in = from_wire(wire::InputW(5, -128, 127, 0xff));
  EXPECT_EQ(in.move_x, -127);
  EXPECT_EQ(in.move_z, 127);
  EXPECT_EQ(in.buttons, kKnownButtons);
}

}  // namespace
}  // namespace foothold::proto
