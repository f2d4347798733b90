// The encryption layer: what one side seals the other opens, and anything altered, truncated,
// repeated, too old or sealed under another key is refused without a crash.

#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "proto/codec.h"
#include "proto/secure.h"

namespace foothold::proto {
namespace {

Key key_of(uint8_t seed) {
  Key k{};
  for (std::size_t i = 0; i < k.size(); ++i) k[i] = uint8_t(seed + 3 * i);
  return k;
}

std::vector<uint8_t> copy(std::span<const uint8_t> b) { return {b.begin(), b.end()}; }

std::vector<uint8_t> sample_packet() {
  PacketWriter w;
  return copy(w.disconnect(proto::fb::DisconnectReason::ClientQuit));
}

KeyInputs inputs(uint64_t client_salt, uint64_t server_salt, uint8_t proof_byte = 3, uint8_t random_byte = 4) {
  KeyInputs in;
  in.client_salt = client_salt;
  in.server_salt = server_salt;
  in.connect.fill(proof_byte);
  in.server_random.fill(random_byte);
  return in;
}

TEST(SessionKeys, BothSidesDeriveTheSameKeysCrosswise) {
  const Key c2s = key_of(1), s2c = key_of(2);
  const SessionKeys client = client_session_keys(c2s, s2c, inputs(11, 22));
  const SessionKeys server = server_session_keys(c2s, s2c, inputs(11, 22));
  EXPECT_EQ(client.send, server.receive);
  EXPECT_EQ(client.receive, server.send);
  EXPECT_NE(client.send, client.receive);
  EXPECT_NE(client.send, c2s) << "never the token's key itself";
}

TEST(SessionKeys, AnyInputOfEitherSideGivesOtherKeys) {
  // A token used twice, or a Connect replayed byte for byte (same salts, same proof), must not reuse
  // a key: the server's random alone makes the keys new.
  const Key c2s = key_of(1), s2c = key_of(2);
  const SessionKeys a = client_session_keys(c2s, s2c, inputs(11, 22));
  EXPECT_NE(a.send, client_session_keys(c2s, s2c, inputs(12, 22)).send);
  EXPECT_NE(a.send, client_session_keys(c2s, s2c, inputs(11, 23)).send);
  EXPECT_NE(a.receive, client_session_keys(c2s, s2c, inputs(12, 22)).receive);
  EXPECT_NE(a.send, client_session_keys(c2s, s2c, inputs(11, 22, 9)).send) << "the client's proof";
  EXPECT_NE(a.receive, client_session_keys(c2s, s2c, inputs(11, 22, 9)).receive);
  EXPECT_NE(a.send, client_session_keys(c2s, s2c, inputs(11, 22, 3, 9)).send) << "the server's random";
  EXPECT_NE(a.receive, client_session_keys(c2s, s2c, inputs(11, 22, 3, 9)).receive);
  // Every byte of both randoms counts.
  for (std::size_t i = 0; i < kServerRandomBytes; ++i) {
    KeyInputs in = inputs(11, 22);
    in.server_random[i] ^= 1;
    EXPECT_NE(a.send, client_session_keys(c2s, s2c, in).send) << "server random byte " << i;
  }
  for (std::size_t i = 0; i < sizeof(RequestTag); ++i) {
    KeyInputs in = inputs(11, 22);
    in.connect[i] ^= 1;
    EXPECT_NE(a.receive, client_session_keys(c2s, s2c, in).receive) << "proof tag byte " << i;
  }
}

TEST(SessionKeys, TheServersRandomIsFreshEachTime) {
  EXPECT_NE(random_server_contribution(), random_server_contribution());
  EXPECT_NE(random_server_contribution(), ServerRandom{});
}

TEST(SessionDatagram, RoundTripsWithTheSequenceInAsFewBytesAsItNeeds) {
  const Key k = key_of(5);
  const auto packet = sample_packet();
  for (uint64_t sequence : {1ull, 255ull, 256ull, 70000ull, (1ull << 40) + 3, ~0ull - 1}) {
    DatagramBuffer out, in;
    const auto datagram = copy(seal_session(k, sequence, packet, out));
    ASSERT_FALSE(datagram.empty());
    EXPECT_EQ(layer_of(datagram), Layer::kSession);
    int bytes = 1;
    while (bytes < 8 && (sequence >> (8 * bytes)) != 0) ++bytes;
    EXPECT_EQ(datagram.size(), packet.size() + 1 + size_t(bytes) + kTagBytes) << sequence;
    ReplayWindow window;
    uint64_t got = 0;
    std::span<const uint8_t> opened;
    ASSERT_EQ(open_session(k, window, datagram, in, got, opened), OpenError::kNone) << sequence;
    EXPECT_EQ(got, sequence);
    EXPECT_EQ(copy(opened), packet);
  }
}

TEST(SessionDatagram, EveryBitFlipIsRefused) {
  const Key k = key_of(5);
  DatagramBuffer out, in;
  const auto datagram = copy(seal_session(k, 1000, sample_packet(), out));
  ReplayWindow window;
  for (std::size_t bit = 0; bit < datagram.size() * 8; ++bit) {
    auto b = datagram;
    b[bit / 8] ^= uint8_t(1u << (bit % 8));
    uint64_t sequence = 0;
    std::span<const uint8_t> opened;
    EXPECT_NE(open_session(k, window, b, in, sequence, opened), OpenError::kNone) << "bit " << bit;
  }
}

TEST(SessionDatagram, EveryTruncationIsRefused) {
  const Key k = key_of(5);
  DatagramBuffer out, in;
  const auto datagram = copy(seal_session(k, 77, sample_packet(), out));
  ReplayWindow window;
  for (std::size_t n = 0; n < datagram.size(); ++n) {
    const std::vector<uint8_t> cut(datagram.begin(), datagram.begin() + long(n));
    uint64_t sequence = 0;
    std::span<const uint8_t> opened;
    EXPECT_NE(open_session(k, window, cut, in, sequence, opened), OpenError::kNone) << "length " << n;
  }
}

TEST(SessionDatagram, AnotherKeyDoesNotOpenIt) {
  DatagramBuffer out, in;
  const auto datagram = copy(seal_session(key_of(5), 9, sample_packet(), out));
  ReplayWindow window;
  uint64_t sequence = 0;
  std::span<const uint8_t> opened;
  EXPECT_EQ(open_session(key_of(6), window, datagram, in, sequence, opened), OpenError::kBadSeal);
}

TEST(ReplayWindow, RefusesRepeatsAndStragglersAndTakesTheReorderedOnce) {
  ReplayWindow w;
  EXPECT_TRUE(w.fresh(5));
  w.mark(5);
  EXPECT_FALSE(w.fresh(5)) << "a repeat";
  EXPECT_TRUE(w.fresh(3)) << "reordered, not seen yet";
  w.mark(3);
  EXPECT_FALSE(w.fresh(3));
  w.mark(1000);
  EXPECT_EQ(w.newest(), 1000u);
  EXPECT_TRUE(w.fresh(1000 - ReplayWindow::kSize + 1)) << "the oldest the window still holds";
  EXPECT_FALSE(w.fresh(1000 - ReplayWindow::kSize)) << "older than the window";
  EXPECT_FALSE(w.fresh(5));
  EXPECT_TRUE(w.fresh(999));
  EXPECT_FALSE(w.fresh(~0ull)) << "the empty marker is never a sequence";
}

// What a replay window should answer, the plain way: every sequence received, and the newest.
struct WindowModel {
  std::vector<uint64_t> seen;
  uint64_t newest = 0;
  bool fresh(uint64_t s) const {
    const bool in_set = std::find(seen.begin(), seen.end(), s) != seen.end();
    const bool too_old = newest >= ReplayWindow::kSize && s <= newest - ReplayWindow::kSize;
    return !in_set && !too_old;
  }
  void mark(uint64_t s) {
    seen.push_back(s);
    newest = std::max(newest, s);
  }
};

TEST(ReplayWindow, AgreesWithASetOverRandomArrivals) {
  std::mt19937_64 rng(7);
  ReplayWindow w;
  WindowModel model;
  for (int i = 0; i < 20000; ++i) {
    const uint64_t s = 1 + (rng() % 3000) + uint64_t(i / 4);
    ASSERT_EQ(w.fresh(s), model.fresh(s)) << "sequence " << s << " after " << i;
    if (w.fresh(s)) {
      w.mark(s);
      model.mark(s);
    }
  }
}

// Arrivals as a network gives them: mostly the next few, some reordered or repeated within and just
// beyond the window, now and then a jump far ahead (a burst lost) or one just short of a window's
// width; every sequence that arrives authentic is marked, fresh or not, as the session marks them.
TEST(ReplayWindow, AgreesWithASetThroughJumpsReorderingAndRepeats) {
  std::mt19937_64 rng(11);
  ReplayWindow w;
  WindowModel model;
  for (int i = 0; i < 20000; ++i) {
    const uint64_t kind = rng() % 100, newest = model.newest;
    uint64_t s = newest + 1 + rng() % 3;                                                   // the next few
    if (kind < 20) s = newest > 300 ? newest - rng() % 300 : 1 + rng() % 300;             // reordered, repeated, stale
    else if (kind < 23) s = newest + ReplayWindow::kSize - 2 + rng() % 4;                 // about a window ahead
    else if (kind < 25) s = newest + 1000 + rng() % 5000;                                 // a burst lost
    const bool fresh = model.fresh(s);
    ASSERT_EQ(w.fresh(s), fresh) << "sequence " << s << " at arrival " << i << ", newest " << newest;
    w.mark(s);  // a stale or repeated one changes nothing
    if (fresh) model.mark(s);
    ASSERT_EQ(w.newest(), model.newest);
  }
}

TEST(SealedReply, OpensOnlyUnderItsKeyAndNamesItsSalt) {
  const Key k = key_of(9);
  const auto packet = sample_packet();
  DatagramBuffer out, in;
  const auto a = copy(seal_reply(k, 0xabcdef, kNoRequestTag, packet, out));
  const auto b = copy(seal_reply(k, 0xabcdef, kNoRequestTag, packet, out));
  EXPECT_NE(a, b) << "a fresh nonce each time";
  EXPECT_EQ(a.size(), packet.size() + kSealedOverhead);
  EXPECT_EQ(sealed_reply_salt(a), 0xabcdefu);
  std::span<const uint8_t> opened;
  ASSERT_EQ(open_reply(k, kNoRequestTag, a, in, opened), OpenError::kNone);
  EXPECT_EQ(copy(opened), packet);
  EXPECT_EQ(open_reply(key_of(10), kNoRequestTag, a, in, opened), OpenError::kBadSeal);
  for (std::size_t bit = 0; bit < a.size() * 8; ++bit) {
    auto c = a;
    c[bit / 8] ^= uint8_t(1u << (bit % 8));
    EXPECT_NE(open_reply(k, kNoRequestTag, c, in, opened), OpenError::kNone) << "bit " << bit << " (the salt is bound too)";
  }
  for (std::size_t n = 0; n < a.size(); ++n)
    EXPECT_NE(open_reply(k, kNoRequestTag, std::span<const uint8_t>(a.data(), n), in, opened), OpenError::kNone)
        << "length " << n;
}

TEST(SealedReply, OpensOnlyAsTheAnswerToTheRequestItWasSealedFor) {
  // A reply to an attacker's Connect (the victim's token and salt, another proof) must not open as
  // the answer to the victim's own Connect, nor as an answer to a first request.
  const Key k = key_of(9);
  const auto packet = sample_packet();
  const Key c2s = key_of(4);
  const std::vector<uint8_t> cookie(kCookieSize, 7);
  const auto mine = seal_proof(c2s, cookie, 1, 2);
  const auto theirs = seal_proof(c2s, cookie, 1, 2);
  const RequestTag my_tag = request_tag(mine), their_tag = request_tag(theirs);
  ASSERT_NE(my_tag, their_tag) << "a proof is random per attempt";
  EXPECT_EQ(request_tag(mine), my_tag) << "the tag is a function of the proof";
  DatagramBuffer out, in;
  std::span<const uint8_t> opened;
  const auto to_them = copy(seal_reply(k, 0xabcdef, their_tag, packet, out));
  EXPECT_EQ(open_reply(k, their_tag, to_them, in, opened), OpenError::kNone);
  EXPECT_EQ(open_reply(k, my_tag, to_them, in, opened), OpenError::kBadSeal);
  EXPECT_EQ(open_reply(k, kNoRequestTag, to_them, in, opened), OpenError::kBadSeal);
  const auto first = copy(seal_reply(k, 0xabcdef, kNoRequestTag, packet, out));
  EXPECT_EQ(open_reply(k, my_tag, first, in, opened), OpenError::kBadSeal);
}

TEST(Proof, OpensWithTheCookieItWasMadeForOnly) {
  const Key k = key_of(4);
  const std::vector<uint8_t> cookie(kCookieSize, 1), other(kCookieSize, 2);
  const auto proof = seal_proof(k, cookie, 0x1111, 0x2222);
  uint64_t world = 0, settings = 0;
  ASSERT_TRUE(open_proof(k, cookie, proof, world, settings));
  EXPECT_EQ(world, 0x1111u);
  EXPECT_EQ(settings, 0x2222u);
  world = settings = 7;
  EXPECT_FALSE(open_proof(k, other, proof, world, settings));
  EXPECT_FALSE(open_proof(key_of(5), cookie, proof, world, settings));
  EXPECT_FALSE(open_proof(k, cookie, std::span<const uint8_t>(proof.data(), proof.size() - 1), world, settings));
  EXPECT_EQ(world, 7u) << "untouched on failure";
}

TEST(ClearFrame, RoundTripsAndIsAligned) {
  const auto packet = sample_packet();
  DatagramBuffer out, in;
  const auto framed = copy(frame_clear(packet, out));
  EXPECT_EQ(framed[0], kClearPrefix);
  const auto p = unframe_clear(framed, in);
  EXPECT_EQ(copy(p), packet);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p.data()) % 8, 0u);
  EXPECT_TRUE(unframe_clear(std::vector<uint8_t>{0x7f, 1, 2}, in).empty()) << "not a clear datagram";
}

TEST(Layer, OnlyTheKnownPrefixesHaveALayer) {
  int known = 0;
  for (int p = 0; p < 256; ++p) known += layer_of(std::vector<uint8_t>{uint8_t(p), 0}) != Layer::kInvalid;
  EXPECT_EQ(known, 2 + 8 + 8 + 8 + 8) << "clear, sealed, and the session's Packet and compact prefixes, each also routed";
  EXPECT_EQ(layer_of({}), Layer::kInvalid);
  EXPECT_EQ(session_payload(std::vector<uint8_t>{0x17, 0}), Payload::kPacket);
  EXPECT_EQ(session_payload(std::vector<uint8_t>{0x18, 0}), Payload::kCompact);
  EXPECT_EQ(session_payload(std::vector<uint8_t>{0x1f, 0}), Payload::kCompact);
  EXPECT_EQ(session_payload(std::vector<uint8_t>{0x37, 0}), Payload::kPacket);
  EXPECT_EQ(session_payload(std::vector<uint8_t>{0x38, 0}), Payload::kCompact);
  EXPECT_EQ(layer_of(std::vector<uint8_t>{0x20, 0}), Layer::kInvalid) << "not a session prefix at all";
  EXPECT_EQ(layer_of(std::vector<uint8_t>{0x50, 0}), Layer::kInvalid);
}

TEST(Layer, ARouteTravelsAuthenticatedAndOnlyWhereItIsGiven) {
  const Key key{7};
  DatagramBuffer tx, rx;
  const std::vector<uint8_t> message{1, 2, 3};
  const auto routed = seal_session(key, 5, message, tx, Payload::kCompact, 0xA1B2C3D4u);
  const std::vector<uint8_t> datagram(routed.begin(), routed.end());
  EXPECT_EQ(datagram.size(), 1 + kRouteBytes + 1 + message.size() + kTagBytes);
  EXPECT_EQ(session_overhead(5, true), 1 + kRouteBytes + 1 + kTagBytes);
  EXPECT_EQ(session_route(datagram), 0xA1B2C3D4u);
  EXPECT_EQ(session_payload(datagram), Payload::kCompact);
  ReplayWindow window;
  uint64_t sequence = 0;
  std::span<const uint8_t> opened;
  ASSERT_EQ(open_session(key, window, datagram, rx, sequence, opened), OpenError::kNone);
  EXPECT_EQ(sequence, 5u);
  EXPECT_EQ(std::vector<uint8_t>(opened.begin(), opened.end()), message);
  // Another route in the same datagram does not open: the route is authenticated.
  std::vector<uint8_t> rerouted = datagram;
  rerouted[1] ^= 1;
  EXPECT_EQ(open_session(key, window, rerouted, rx, sequence, opened), OpenError::kBadSeal);
  // Nor does dropping the route flag (the same bytes read as a sequence).
  std::vector<uint8_t> unflagged = datagram;
  unflagged[0] = uint8_t(unflagged[0] & ~kRoutedFlag);
  EXPECT_NE(open_session(key, window, unflagged, rx, sequence, opened), OpenError::kNone);
  // Unrouted: no route, and the datagram four bytes shorter.
  const auto plain = seal_session(key, 5, message, tx, Payload::kCompact);
  EXPECT_EQ(session_route(plain), 0u);
  EXPECT_EQ(plain.size(), datagram.size() - kRouteBytes);
}

}  // namespace
}  // namespace foothold::proto
