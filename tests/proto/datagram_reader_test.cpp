// The datagram reader: every datagram either side receives is screened, opened, decoded and (a
// session's) marked in its replay window, or refused for one named reason, from the first check that
// failed; a refused datagram never marks the window, so a forger cannot spend a real sequence.

#include <ostream>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "proto/datagram_reader.h"

namespace foothold::proto {

// gtest prints a reason by its name.
void PrintTo(DatagramDrop d, std::ostream* os) { *os << to_string(d); }

namespace {

Key key_of(uint8_t seed) {
  Key k{};
  for (std::size_t i = 0; i < k.size(); ++i) k[i] = uint8_t(seed + 3 * i);
  return k;
}

std::vector<uint8_t> copy(std::span<const uint8_t> b) { return {b.begin(), b.end()}; }

const std::array<uint8_t, kTokenSealedBytes> kToken = [] {
  std::array<uint8_t, kTokenSealedBytes> t{};
  for (std::size_t i = 0; i < t.size(); ++i) t[i] = uint8_t(i * 7);
  return t;
}();

// A compact message's bytes as the reader hands them over: opaque to it.
const std::vector<uint8_t> kCompactMessage = {0x12, 0x34, 0x56, 0x78, 0x9a};

// What a client sends in its session (the server receives with these keys' mirror).
struct Session {
  explicit Session(const Key& send = key_of(7)) : client_send(send) {}
  Key client_send;
  DatagramBuffer out;
  PacketWriter w;
  std::vector<uint8_t> compact(uint64_t sequence) {
    return copy(seal_session(client_send, sequence, kCompactMessage, out, Payload::kCompact));
  }
  std::vector<uint8_t> packet(uint64_t sequence, std::span<const uint8_t> packet) {
    return copy(seal_session(client_send, sequence, packet, out));
  }
  std::vector<uint8_t> disconnect(uint64_t sequence) {
    return packet(sequence, copy(w.disconnect(proto::fb::DisconnectReason::ClientQuit)));
  }
};

// A Packet with any protocol id, version and union tag (the writer's builder, by hand).
std::vector<uint8_t> crafted(proto::fb::Body tag, uint32_t protocol = kProtocolId, uint16_t version = kProtocolVersion) {
  PacketWriter w;
  auto& fbb = w.builder();
  fbb.Clear();
  const auto body = proto::fb::CreateDisconnect(fbb).Union();
  proto::fb::PacketBuilder pb(fbb);
  pb.add_protocol(protocol);
  pb.add_version(version);
  pb.add_body_type(tag);
  pb.add_body(body);
  fbb.Finish(pb.Finish(), proto::fb::PacketIdentifier());
  return {fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize()};
}

// The window's whole observable state around `sequence`: its newest, and which of the sequences
// near it are fresh.
std::string window_state(const ReplayWindow& w, uint64_t around) {
  std::string s = std::to_string(w.newest()) + ":";
  for (uint64_t q = around > 8 ? around - 8 : 1; q <= around + 8; ++q) s += w.fresh(q) ? '1' : '0';
  return s;
}

TEST(DatagramReader, ScreensSizePrefixAndDirectionBeforeAnything) {
  const DatagramReader server(Direction::kToServer), client(Direction::kToClient);
  Session s;
  const auto good = s.compact(1);
  EXPECT_TRUE(server.screen(good).ok());
  EXPECT_EQ(server.screen(good).layer, Layer::kSession);
  // Too large is judged first, on the whole datagram, whatever its prefix.
  std::vector<uint8_t> large(kMaxDatagram + 1, 0);
  large[0] = kSessionPrefix;
  EXPECT_EQ(server.screen(large).drop, DatagramDrop::kTooLarge);
  EXPECT_EQ(client.screen(large).drop, DatagramDrop::kTooLarge);
  large.pop_back();
  EXPECT_TRUE(server.screen(large).ok()) << "kMaxDatagram bytes exactly is not too large";
  // An unknown layer, or nothing at all.
  EXPECT_EQ(server.screen(std::vector<uint8_t>{0x7f, 1, 2, 3}).drop, DatagramDrop::kBadProtocol);
  EXPECT_EQ(client.screen(std::vector<uint8_t>{0x00}).drop, DatagramDrop::kBadProtocol);
  EXPECT_EQ(client.screen({}).drop, DatagramDrop::kBadProtocol);
  // Only servers send sealed replies: one arriving at a server went the wrong way.
  DatagramBuffer out;
  const auto reply = copy(seal_reply(key_of(2), 42, kNoRequestTag, PacketWriter().challenge({}), out));
  EXPECT_EQ(server.screen(reply).drop, DatagramDrop::kWrongDirection);
  EXPECT_TRUE(client.screen(reply).ok());
  EXPECT_EQ(client.screen(reply).layer, Layer::kSealed);
  const auto clear = copy(frame_clear(PacketWriter().connect_request(kToken, 1), out));
  EXPECT_EQ(server.screen(clear).layer, Layer::kClear);
  EXPECT_EQ(client.screen(clear).layer, Layer::kClear);
}

TEST(DatagramReader, ASessionDatagramIsOpenedDecodedAndMarked) {
  DatagramReader server(Direction::kToServer);
  Session s;
  ReplayWindow window;
  const SessionDatagram compact = server.session(s.client_send, window, s.compact(5));
  ASSERT_TRUE(compact.ok()) << to_string(compact.drop);
  EXPECT_EQ(compact.kind, Payload::kCompact);
  EXPECT_EQ(copy(compact.compact), kCompactMessage);
  EXPECT_EQ(compact.sequence, 5u);
  EXPECT_TRUE(compact.newest);
  EXPECT_FALSE(window.fresh(5)) << "marked";
  EXPECT_EQ(window.newest(), 5u);

  const SessionDatagram bye = server.session(s.client_send, window, s.disconnect(9));
  ASSERT_TRUE(bye.ok()) << to_string(bye.drop);
  EXPECT_EQ(bye.kind, Payload::kPacket);
  EXPECT_EQ(bye.message.type, proto::fb::Body::Disconnect);
  EXPECT_EQ(bye.message.packet->body_as_Disconnect()->reason(), proto::fb::DisconnectReason::ClientQuit);
  EXPECT_TRUE(bye.newest);
  EXPECT_FALSE(window.fresh(9));

  // A straggler is taken (the window still has room for it) but is not the newest.
  const SessionDatagram straggler = server.session(s.client_send, window, s.compact(7));
  ASSERT_TRUE(straggler.ok());
  EXPECT_EQ(straggler.sequence, 7u);
  EXPECT_FALSE(straggler.newest);
  EXPECT_EQ(window.newest(), 9u);
  EXPECT_FALSE(window.fresh(7));
}

TEST(DatagramReader, EverySessionRefusalIsNamedAndNeverMarksTheWindow) {
  DatagramReader server(Direction::kToServer);
  Session s;
  ReplayWindow window;
  ASSERT_TRUE(server.session(s.client_send, window, s.compact(100)).ok());
  const uint64_t next = 101;
  const std::string before = window_state(window, next);
  ASSERT_TRUE(window.fresh(next));
  const auto expect_refused = [&](const std::vector<uint8_t>& datagram, DatagramDrop why, const std::string& what) {
    const SessionDatagram d = server.session(s.client_send, window, datagram);
    EXPECT_EQ(d.drop, why) << what << ": " << to_string(d.drop);
    EXPECT_FALSE(d.ok()) << what;
    EXPECT_EQ(window_state(window, next), before) << what << " moved the window";
  };

  const auto good = s.compact(next);
  // Forged: every single bit flipped, anywhere, is refused. In the sealed part it does not open; in
  // the prefix or the sequence byte it names another layer or sequence (which may be one already
  // had), and never opens either: both are authenticated.
  for (std::size_t bit = 0; bit < good.size() * 8; ++bit) {
    auto flipped = good;
    flipped[bit / 8] ^= uint8_t(1u << (bit % 8));
    const SessionDatagram d = server.session(s.client_send, window, flipped);
    EXPECT_FALSE(d.ok()) << "bit " << bit;
    if (bit >= 16) {
      EXPECT_EQ(d.drop, DatagramDrop::kBadSeal) << "bit " << bit << ": " << to_string(d.drop);
    }
    EXPECT_EQ(window_state(window, next), before) << "bit " << bit;
  }
  expect_refused(Session(key_of(8)).compact(next), DatagramDrop::kBadSeal, "sealed under another key");
  // Truncated: too short to open is its own reason; cut later, it does not authenticate.
  for (std::size_t n = 1; n < 1 + 1 + kTagBytes; ++n)
    expect_refused({good.begin(), good.begin() + long(n)}, DatagramDrop::kTruncated, "cut to " + std::to_string(n));
  for (std::size_t n = 1 + 1 + kTagBytes; n < good.size(); ++n)
    expect_refused({good.begin(), good.begin() + long(n)}, DatagramDrop::kBadSeal, "cut to " + std::to_string(n));
  // Replayed.
  expect_refused(s.compact(100), DatagramDrop::kReplayed, "a repeat");
  std::vector<uint8_t> large(kMaxDatagram + 1, 0);
  large[0] = kSessionPrefix;
  expect_refused(large, DatagramDrop::kTooLarge, "too large");
  expect_refused({0x7f, 1, 2, 3}, DatagramDrop::kBadProtocol, "an unknown layer");
  DatagramBuffer out;
  expect_refused(copy(frame_clear(PacketWriter().connect_request(kToken, 1), out)), DatagramDrop::kBadProtocol,
                 "a clear datagram read as a session one");
  // Authentic, with the next sequence, but its Packet does not decode: the sequence is not taken.
  PacketWriter w;
  expect_refused(s.packet(next, copy(w.accept(1, 2, 60, 1, CharacterState{}, ServerRandom{}))),
                 DatagramDrop::kWrongDirection, "an Accept sent to a server");
  expect_refused(s.packet(next, crafted(proto::fb::Body::Disconnect, 0x12345678)), DatagramDrop::kBadProtocol,
                 "another protocol's Packet");
  expect_refused(s.packet(next, crafted(static_cast<proto::fb::Body>(99))), DatagramDrop::kUnknownType,
                 "an unknown union tag");
  expect_refused(s.packet(next, std::vector<uint8_t>(40, 0xab)), DatagramDrop::kMalformed, "no FlatBuffer");

  // The sequence they all named is still the real one's to take.
  const SessionDatagram real = server.session(s.client_send, window, good);
  ASSERT_TRUE(real.ok()) << to_string(real.drop);
  EXPECT_TRUE(real.newest);
  EXPECT_FALSE(window.fresh(next));
}

TEST(DatagramReader, ASessionPacketIsJudgedForTheSideItArrivesAt) {
  // A client takes a Disconnect in its session, as a server does; an Accept in a session, neither.
  DatagramReader client(Direction::kToClient);
  Session server_side(key_of(9));
  ReplayWindow window;
  EXPECT_TRUE(client.session(server_side.client_send, window, server_side.disconnect(1)).ok());
  const SessionDatagram accept = client.session(
      server_side.client_send, window, server_side.packet(2, copy(PacketWriter().accept(1, 2, 60, 1, CharacterState{}, ServerRandom{}))));
  EXPECT_EQ(accept.drop, DatagramDrop::kWrongDirection);
  EXPECT_TRUE(window.fresh(2));
}

TEST(DatagramReader, AClearRequestIsDecodedThenJudgedByItsWholeSize) {
  DatagramReader server(Direction::kToServer);
  PacketWriter w;
  DatagramBuffer out;
  const auto request = copy(frame_clear(w.connect_request(kToken, 42), out));
  ASSERT_GE(request.size(), kMinHandshakeDatagram);
  const PacketDatagram d = server.clear(request);
  ASSERT_TRUE(d.ok()) << to_string(d.drop);
  EXPECT_EQ(d.message.type, proto::fb::Body::ConnectRequest);
  EXPECT_EQ(d.message.packet->body_as_ConnectRequest()->client_salt(), 42u);
  EXPECT_EQ(d.message.size + 1, request.size()) << "the Packet, without its prefix";

  // An unpadded request could be answered with more than it is: too small. (Without a token, to be
  // small: what is in it is the server's to judge, after the reader.)
  auto& fbb = w.builder();
  fbb.Clear();
  const auto bare = copy(frame_clear(w.finish(proto::fb::Body::ConnectRequest, proto::fb::CreateConnectRequest(fbb, 0, 42).Union()), out));
  ASSERT_LT(bare.size(), kMinHandshakeDatagram);
  EXPECT_EQ(server.clear(bare).drop, DatagramDrop::kTooSmall);
  // The size is the whole datagram's, prefix included: the same request with trailing bytes (which
  // the Verifier ignores) is too small one byte short of the limit, and taken at it.
  auto at_limit = bare;
  at_limit.resize(kMinHandshakeDatagram, 0);
  const PacketDatagram taken = server.clear(at_limit);
  ASSERT_TRUE(taken.ok()) << to_string(taken.drop);
  EXPECT_EQ(taken.message.packet->body_as_ConnectRequest()->client_salt(), 42u);
  auto short_by_one = bare;
  short_by_one.resize(kMinHandshakeDatagram - 1, 0);
  EXPECT_EQ(server.clear(short_by_one).drop, DatagramDrop::kTooSmall);
  // Decoding is judged before size: small and malformed is malformed.
  EXPECT_EQ(server.clear(std::vector<uint8_t>{kClearPrefix, 1, 2, 3}).drop, DatagramDrop::kMalformed);
  EXPECT_EQ(server.clear(copy(frame_clear(crafted(proto::fb::Body::ConnectRequest, 0x12345678), out))).drop,
            DatagramDrop::kBadProtocol);
  EXPECT_EQ(server.clear(copy(frame_clear(crafted(static_cast<proto::fb::Body>(99)), out))).drop,
            DatagramDrop::kUnknownType);
  // A message a server never takes in clear.
  EXPECT_EQ(server.clear(copy(frame_clear(w.disconnect(proto::fb::DisconnectReason::ClientQuit), out))).drop,
            DatagramDrop::kWrongDirection);
  // Another version is read, not refused: the server answers it with a hint.
  fbb.Clear();
  const auto pad = fbb.CreateVector(std::vector<uint8_t>(kMinHandshakeDatagram, 0));
  const auto next_version = copy(frame_clear(
      w.finish(proto::fb::Body::ConnectRequest, proto::fb::CreateConnectRequest(fbb, 0, 42, pad).Union(), kProtocolId, uint16_t(kProtocolVersion + 1)), out));
  const PacketDatagram other = server.clear(next_version);
  ASSERT_TRUE(other.ok()) << to_string(other.drop);
  EXPECT_EQ(other.message.version, kProtocolVersion + 1);
}

TEST(DatagramReader, AClientTakesOnlyARejectInClearOfAnySize) {
  DatagramReader client(Direction::kToClient);
  PacketWriter w;
  DatagramBuffer out;
  const auto hint = copy(frame_clear(w.reject(proto::fb::RejectReason::VersionMismatch, "v7"), out));
  ASSERT_LT(hint.size(), kMinHandshakeDatagram);
  const PacketDatagram d = client.clear(hint);
  ASSERT_TRUE(d.ok()) << to_string(d.drop);
  EXPECT_EQ(d.message.type, proto::fb::Body::Reject);
  EXPECT_EQ(client.clear(copy(frame_clear(w.challenge({}), out))).drop, DatagramDrop::kWrongDirection);
}

TEST(DatagramReader, ASealedReplyOpensOnlyForItsSaltRequestAndKey) {
  DatagramReader client(Direction::kToClient);
  PacketWriter w;
  DatagramBuffer out;
  const Key s2c = key_of(2);
  const uint64_t salt = 0x1122334455667788ull;
  RequestTag mine{};
  mine.fill(5);
  const auto reply = copy(seal_reply(s2c, salt, mine, w.challenge(std::vector<uint8_t>(kCookieSize, 3)), out));
  const PacketDatagram d = client.reply(s2c, salt, mine, reply);
  ASSERT_TRUE(d.ok()) << to_string(d.drop);
  EXPECT_EQ(d.message.type, proto::fb::Body::Challenge);
  EXPECT_EQ(bytes_of(d.message.packet->body_as_Challenge()->cookie()).size(), kCookieSize);

  EXPECT_EQ(client.reply(s2c, salt + 1, mine, reply).drop, DatagramDrop::kBadSeal) << "another attempt's salt";
  EXPECT_EQ(client.reply(s2c, salt, kNoRequestTag, reply).drop, DatagramDrop::kBadSeal) << "another request";
  EXPECT_EQ(client.reply(key_of(3), salt, mine, reply).drop, DatagramDrop::kBadSeal) << "another key";
  for (std::size_t bit = 8; bit < reply.size() * 8; ++bit) {  // the prefix byte's flips are other layers
    auto flipped = reply;
    flipped[bit / 8] ^= uint8_t(1u << (bit % 8));
    EXPECT_EQ(client.reply(s2c, salt, mine, flipped).drop, DatagramDrop::kBadSeal) << "bit " << bit;
  }
  for (std::size_t n = 1; n < kSealedOverhead; ++n)
    EXPECT_EQ(client.reply(s2c, salt, mine, std::span<const uint8_t>(reply.data(), n)).drop, DatagramDrop::kTruncated)
        << "cut to " << n;
  for (std::size_t n = kSealedOverhead; n < reply.size(); ++n)
    EXPECT_EQ(client.reply(s2c, salt, mine, std::span<const uint8_t>(reply.data(), n)).drop, DatagramDrop::kBadSeal)
        << "cut to " << n;

  // Authentic, but not what a client takes: refused by decode()'s reason, then by version.
  const auto request = copy(seal_reply(s2c, salt, mine, w.connect_request(kToken, 1), out));
  EXPECT_EQ(client.reply(s2c, salt, mine, request).drop, DatagramDrop::kWrongDirection);
  const auto other_version = copy(seal_reply(s2c, salt, mine, crafted(proto::fb::Body::Disconnect, kProtocolId, uint16_t(kProtocolVersion + 1)), out));
  EXPECT_EQ(client.reply(s2c, salt, mine, other_version).drop, DatagramDrop::kWrongDirection)
      << "a Disconnect is not a reply, whatever its version";
  w.builder().Clear();
  const auto next_version = copy(seal_reply(s2c, salt, mine, w.finish(proto::fb::Body::Challenge, proto::fb::CreateChallenge(w.builder()).Union(), kProtocolId, uint16_t(kProtocolVersion + 1)), out));
  EXPECT_EQ(client.reply(s2c, salt, mine, next_version).drop, DatagramDrop::kVersion);

  // A server never reads a sealed reply.
  DatagramReader server(Direction::kToServer);
  EXPECT_EQ(server.reply(s2c, salt, mine, reply).drop, DatagramDrop::kWrongDirection);
}

TEST(DatagramReader, EveryReasonHasItsOwnNameAndOnlyOpeningFailuresAreUnauthenticated) {
  std::set<std::string_view> names;
  std::set<DatagramDrop> unauthenticated_ones;
  for (int i = 0; i < int(DatagramDrop::kCount); ++i) {
    const auto d = static_cast<DatagramDrop>(i);
    EXPECT_NE(to_string(d), "invalid") << i;
    names.insert(to_string(d));
    if (unauthenticated(d)) unauthenticated_ones.insert(d);
  }
  EXPECT_EQ(names.size(), std::size_t(DatagramDrop::kCount));
  EXPECT_EQ(unauthenticated_ones,
            (std::set<DatagramDrop>{DatagramDrop::kTruncated, DatagramDrop::kReplayed, DatagramDrop::kBadSeal}));
}

}  // namespace
}  // namespace foothold::proto
