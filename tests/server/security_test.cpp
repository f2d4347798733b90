// Attacks on sessions and on the handshake, as someone who can see and send any datagram would try
// them. Each was possible before connect tokens and encrypted sessions (issue 12 lists what they
// did); each must now be dropped and counted, change nothing, and leave every player playing with
// zero corrections.

#include <algorithm>
#include <vector>

#include <array>

#include <gtest/gtest.h>

#include "support/raw_client.h"
#include "support/scenario_support.h"
#include "support/sim_harness.h"

namespace foothold::test {
namespace {

using client::ClientSession;
using server::Counter;

constexpr proto::Nanos kS = proto::kSecond;
constexpr proto::Nanos kMs = proto::kMillisecond;

// Everything client `i` and the server send each other, captured on the path while the sniffer
// lives (its destructor removes the tap, so the network never calls into a dead sniffer).
struct Sniffer {
  SimHarness& h;
  std::vector<std::vector<uint8_t>> to_server, to_client;
  Sniffer(SimHarness& harness, int i) : h(harness) {
    const proto::Endpoint client = SimHarness::client_endpoint(i), server = SimHarness::server_endpoint();
    h.network().set_tap([this, client, server](const proto::Endpoint& from, const proto::Endpoint& to, std::span<const uint8_t> b) {
      if (from == client && to == server) to_server.emplace_back(b.begin(), b.end());
      if (from == server && to == client) to_client.emplace_back(b.begin(), b.end());
    });
  }
  ~Sniffer() { h.network().set_tap({}); }
  Sniffer(const Sniffer&) = delete;
  Sniffer& operator=(const Sniffer&) = delete;
  // The newest session datagram each way.
  std::vector<uint8_t> last_session(bool towards_server) const {
    const auto& v = towards_server ? to_server : to_client;
    for (auto it = v.rbegin(); it != v.rend(); ++it)
      if (proto::layer_of(*it) == proto::Layer::kSession) return *it;
    return {};
  }
};

// A session datagram client 0 really sent to the server (or received from it), captured over the
// next 40 ms of play; the capture stops before it returns.
std::vector<uint8_t> real_datagram(SimHarness& h, bool towards_server) {
  Sniffer sniff(h, 0);
  h.run_for(40 * kMs);
  return sniff.last_session(towards_server);
}

void send_as(SimHarness& h, const proto::Endpoint& from, std::span<const uint8_t> bytes, bool to_server = true,
             int client = 0) {
  h.network().sink_for(from).send(to_server ? SimHarness::server_endpoint() : SimHarness::client_endpoint(client), bytes);
}

proto::DatagramBuffer g_buf;

TEST(Security, ForgedDisconnectFromTheVictimsAddressChangesNothing) {
  SimHarness h(arena_world(), with_clients(2));
  h.start_all();
  h.run_for(1 * kS);
  const auto victim = SimHarness::client_endpoint(0);
  proto::PacketWriter w;
  const auto before = h.server().counters();
  // In clear: a Disconnect is accepted only inside a session.
  send_as(h, victim, proto::frame_clear(w.disconnect(proto::fb::DisconnectReason::ClientQuit), g_buf));
  // Sealed under a key the attacker made up, with a plausible sequence.
  send_as(h, victim, proto::seal_session(proto::Key{}, 5000, w.disconnect(proto::fb::DisconnectReason::ClientQuit), g_buf));
  h.run_for(50 * kMs);
  const auto& after = h.server().counters();
  EXPECT_EQ(after.get(Counter::kDisconnectsReceived), before.get(Counter::kDisconnectsReceived));
  EXPECT_GT(after.get(Counter::kDropWrongDirection), before.get(Counter::kDropWrongDirection));
  EXPECT_GT(after.get(Counter::kDropBadSeal), before.get(Counter::kDropBadSeal));
  EXPECT_EQ(h.server().client_count(), 2u);
  h.run_for(2 * kS);
  expect_clean_play(h, 2);
}

TEST(Security, FarAheadSequenceCannotTakeOverASession) {
  // Before: a forged input message with a far-ahead sequence made the victim's own packets stale.
  SimHarness h(arena_world(), with_clients(2));
  h.start_all();
  h.run_for(1 * kS);
  const auto forged = real_datagram(h, true);
  ASSERT_FALSE(forged.empty());
  // Claim a sequence far ahead (8 sequence bytes), keeping the rest: it cannot authenticate.
  std::vector<uint8_t> ahead = {uint8_t(proto::kSessionPrefix | 7), 0, 0, 0, 0, 0, 0, 0, 0x40};
  ahead.insert(ahead.end(), forged.begin() + 1 + ((forged[0] & 7) + 1), forged.end());
  std::vector<InputCmd> future;
  for (uint32_t t = 0; t < 32; ++t) future.push_back(encode_move(-1, -1, kButtonJump, h.server().current_tick() + 5 + t));
  std::array<uint8_t, 256> message{};
  const auto inputs = proto::write_inputs({0, future.back().tick, false}, future, message);
  const auto before = h.server().counters();
  for (int i = 0; i < 30; ++i) {
    send_as(h, SimHarness::client_endpoint(0), ahead);
    send_as(h, SimHarness::client_endpoint(0), proto::seal_session(proto::Key{}, (1ull << 40) + uint64_t(i), inputs, g_buf, proto::Payload::kCompact));
    h.run_for(20 * kMs);
  }
  const auto& after = h.server().counters();
  EXPECT_GE(after.get(Counter::kDropBadSeal) - before.get(Counter::kDropBadSeal), 60u);
  EXPECT_EQ(after.get(Counter::kDropReplayed), before.get(Counter::kDropReplayed))
      << "the victim's genuine packets are not made stale";
  h.run_for(2 * kS);
  expect_clean_play(h, 2);
  EXPECT_EQ(h.server().counters().get(Counter::kDropReplayed), before.get(Counter::kDropReplayed));
}

TEST(Security, ReplayedDatagramsAreDroppedAndBringNoInput) {
  SimHarness h(arena_world(), with_clients(2));
  h.start_all();
  h.run_for(1 * kS);
  std::vector<std::vector<uint8_t>> captured;
  {
    Sniffer sniff(h, 0);  // captures only while in scope, not what is replayed below
    h.run_for(500 * kMs);
    captured = sniff.to_server;
  }
  const auto before = h.server().counters();
  std::size_t replayed = 0;
  for (const auto& d : captured) {
    if (proto::layer_of(d) != proto::Layer::kSession) continue;
    send_as(h, SimHarness::client_endpoint(0), d);
    ++replayed;
  }
  h.run_for(50 * kMs);
  ASSERT_GT(replayed, 20u);
  const auto& after = h.server().counters();
  EXPECT_EQ(after.get(Counter::kDropReplayed) - before.get(Counter::kDropReplayed), replayed);
  h.run_for(2 * kS);
  expect_clean_play(h, 2);
}

TEST(Security, EveryBitFlipOfARealDatagramIsRefused) {
  // Before: replayed datagrams with one byte flipped were accepted as real input.
  SimHarness h(arena_world(), with_clients(2));
  h.start_all();
  h.run_for(1 * kS);
  const auto real = real_datagram(h, true);
  ASSERT_FALSE(real.empty());
  const auto before = h.server().counters();
  std::size_t sent = 0;
  for (std::size_t bit = 0; bit < real.size() * 8; ++bit) {
    auto b = real;
    b[bit / 8] ^= uint8_t(1u << (bit % 8));
    send_as(h, SimHarness::client_endpoint(0), b);
    ++sent;
    if (bit % 64 == 63) h.run_for(1 * kMs);
  }
  h.run_for(20 * kMs);
  const auto& after = h.server().counters();
  const uint64_t refused = (after.get(Counter::kDropBadSeal) - before.get(Counter::kDropBadSeal)) +
                           (after.get(Counter::kDropReplayed) - before.get(Counter::kDropReplayed)) +
                           (after.get(Counter::kDropMalformed) - before.get(Counter::kDropMalformed)) +
                           (after.get(Counter::kDropBadProtocol) - before.get(Counter::kDropBadProtocol)) +
                           (after.get(Counter::kDropWrongDirection) - before.get(Counter::kDropWrongDirection)) +
                           (after.get(Counter::kDropTooSmall) - before.get(Counter::kDropTooSmall));
  EXPECT_EQ(refused, sent) << "every flipped datagram was refused, none accepted";
  h.run_for(2 * kS);
  expect_clean_play(h, 2);
}

TEST(Security, EveryTruncationOfARealDatagramIsRefused) {
  SimHarness h(arena_world(), with_clients(1));
  h.start_all();
  h.run_for(1 * kS);
  const auto real = real_datagram(h, true);
  ASSERT_FALSE(real.empty());
  const auto before = h.server().counters();
  for (std::size_t n = 0; n < real.size(); ++n)
    send_as(h, SimHarness::client_endpoint(0), std::span<const uint8_t>(real.data(), n));
  h.run_for(20 * kMs);
  EXPECT_EQ(h.server().counters().dropped() - before.dropped(), real.size());
  h.run_for(2 * kS);
  expect_clean_play(h, 1);
}

TEST(Security, AValidDatagramFromAnotherAddressIsDropped) {
  SimHarness h(arena_world(), with_clients(2));
  h.start_all();
  h.run_for(1 * kS);
  // A datagram client 0 really sent, sent again from other addresses (each session has its own
  // keys and window, so freshness does not matter there).
  const auto real = real_datagram(h, true);
  ASSERT_FALSE(real.empty());
  const auto before = h.server().counters();
  // From client 1's address (which has a session of its own) and from nowhere in particular.
  send_as(h, SimHarness::client_endpoint(1), real);
  send_as(h, proto::Endpoint(asio::ip::make_address("10.66.0.1"), 4000), real);
  h.run_for(20 * kMs);
  const auto& after = h.server().counters();
  // At client 1's address it meets client 1's window and key: its sequence may look seen there, or
  // it fails to authenticate. From elsewhere its route leads to client 0's session, whose window
  // has it: a replay. Either way it is dropped, and no address is challenged.
  EXPECT_EQ(after.get(Counter::kDropBadSeal) - before.get(Counter::kDropBadSeal) +
                after.get(Counter::kDropReplayed) - before.get(Counter::kDropReplayed),
            2u);
  EXPECT_EQ(after.get(Counter::kDropNoSession) - before.get(Counter::kDropNoSession), 0u);
  EXPECT_EQ(after.get(Counter::kPathChallenges), 0u);
  EXPECT_EQ(after.dropped() - before.dropped(), 2u);
  h.run_for(2 * kS);
  expect_clean_play(h, 2);
}

TEST(Security, ForgedSnapshotsAndDisconnectsDoNotReachTheClient) {
  SimHarness h(arena_world(), with_clients(1));
  h.start_all();
  h.run_for(1 * kS);
  const auto real = real_datagram(h, false);
  ASSERT_FALSE(real.empty());
  proto::PacketWriter w;
  const auto server = SimHarness::server_endpoint();
  const auto before = h.client(0).stats().unauthenticated;
  // A snapshot that would teleport the character, sealed with a made-up key; a disconnect in clear
  // and sealed; a replay of the server's own datagram; and every bit flip of it.
  proto::SnapshotHeader sh;
  sh.tick = h.client(0).predictor().acknowledged_tick() + 3;
  sh.received_through = sh.tick;
  sh.has_own_state = true;
  sh.own.position = {100000, 100000, 100000};
  proto::SnapshotWriter snapshot;
  proto::PoseView view;
  std::array<uint8_t, 256> message{};
  snapshot.begin(sh, {}, 1);
  send_as(h, server, proto::seal_session(proto::Key{}, 1ull << 30, snapshot.finish(message, view), g_buf, proto::Payload::kCompact), false);
  send_as(h, server, proto::frame_clear(w.disconnect(proto::fb::DisconnectReason::ServerShutdown), g_buf), false);
  send_as(h, server, proto::seal_session(proto::Key{}, 1ull << 31, w.disconnect(proto::fb::DisconnectReason::ServerShutdown), g_buf), false);
  send_as(h, server, real, false);
  for (std::size_t bit = 8; bit < real.size() * 8; ++bit) {
    auto b = real;
    b[bit / 8] ^= uint8_t(1u << (bit % 8));
    send_as(h, server, b, false);
  }
  h.run_for(20 * kMs);
  EXPECT_GE(h.client(0).stats().unauthenticated - before, 3u + real.size() * 8 - 8);
  EXPECT_EQ(h.client(0).phase(), ClientSession::Phase::kConnected);
  h.run_for(2 * kS);
  expect_clean_play(h, 1);
}

TEST(Security, AnExpiredTokenGetsNothing) {
  SimHarness h(arena_world(), with_clients(0));
  RawClient raw(h, 5100, h.mint(1, 5));
  h.run_for(6 * kS);
  EXPECT_FALSE(raw.request());
  EXPECT_TRUE(raw.received.empty()) << "no reply at all: the token is not even opened";
  EXPECT_EQ(h.server().counters().get(Counter::kDropExpiredToken), 1u);
  // A fresh one works, and a session outlives its token (as in netcode.io): it only gates joining.
  RawClient fresh(h, 5101, h.mint(2, 2));
  ASSERT_TRUE(fresh.join());
  h.run_for(3 * kS);
  EXPECT_EQ(h.server().client_count(), 1u);
}

TEST(Security, ATokenForAnotherServerAddressIsRefused) {
  SimHarness h(arena_world(), with_clients(0));
  RawClient raw(h, 5102, h.mint(1, 60, {proto::Endpoint(asio::ip::make_address("10.9.9.9"), 7777),
                                        proto::Endpoint(asio::ip::make_address("10.0.0.1"), 7778)}));
  EXPECT_FALSE(raw.request());
  const proto::fb::Packet* reply = raw.sealed_reply();
  ASSERT_NE(reply, nullptr) << "the token opened, so the refusal is sealed to its holder";
  EXPECT_EQ(reply->body_as_Reject()->reason(), proto::fb::RejectReason::WrongServer);
  EXPECT_LE(raw.received.back().size(), raw.last_sent_size) << "never amplify";
  EXPECT_EQ(h.server().client_count(), 0u);
  // A token naming the server among others is fine.
  RawClient ok(h, 5103, h.mint(2, 60, {proto::Endpoint(asio::ip::make_address("10.9.9.9"), 7777), SimHarness::server_endpoint()}));
  EXPECT_TRUE(ok.join());
}

TEST(Security, ATokenSealedWithAnotherKeyGetsNoReply) {
  SimHarness h(arena_world(), with_clients(0));
  const proto::Key other = proto::development_key();
  RawClient raw(h, 5104, h.mint(1, 60, {}, &other));
  EXPECT_FALSE(raw.request());
  EXPECT_TRUE(raw.received.empty());
  EXPECT_EQ(h.server().counters().get(Counter::kDropBadToken), 1u);
  // Nor does a Connect carrying it, with a cookie made up.
  raw.cookie.assign(proto::kCookieSize, 1);
  EXPECT_FALSE(raw.connect(arena_world().hash(), MoveSettings{}.hash()));
  EXPECT_EQ(h.server().counters().get(Counter::kDropBadToken), 2u);
  EXPECT_EQ(h.server().client_count(), 0u);
}

TEST(Security, CookiesAreBoundToAddressSaltAndTokenAndExpire) {
  SimHarness h(arena_world(), with_clients(0));
  RawClient raw(h, 5105, h.mint(1));
  ASSERT_TRUE(raw.request());
  EXPECT_EQ(h.server().client_count(), 0u) << "a request allocates nothing";
  EXPECT_LE(raw.received.back().size(), raw.last_sent_size) << "never amplify";
  const auto cookie = raw.cookie;
  // Another address with the same token, salt and cookie: refused, sealed (the token opened).
  RawClient thief(h, proto::Endpoint(asio::ip::make_address("10.2.0.9"), 5105), raw.token);
  thief.salt = raw.salt;
  thief.cookie = cookie;
  thief.keys = raw.keys;
  EXPECT_FALSE(thief.connect(arena_world().hash(), MoveSettings{}.hash()));
  ASSERT_NE(thief.sealed_reply(), nullptr);
  EXPECT_EQ(thief.sealed_reply()->body_as_Reject()->reason(), proto::fb::RejectReason::BadCookie);
  // Another salt from the right address: refused too.
  const uint64_t salt = raw.salt;
  raw.salt = salt + 1;
  EXPECT_FALSE(raw.connect(arena_world().hash(), MoveSettings{}.hash()));
  raw.salt = salt;
  // A forged issue time at the far end of the range (found by fuzzing: it overflowed the age check).
  raw.cookie = cookie;
  for (int i = 0; i < 8; ++i) raw.cookie[size_t(i)] = i == 7 ? 0x80 : 0x03;
  EXPECT_FALSE(raw.connect(arena_world().hash(), MoveSettings{}.hash()));
  // And it expires.
  raw.cookie = cookie;
  h.run_for(11 * kS);
  EXPECT_FALSE(raw.connect(arena_world().hash(), MoveSettings{}.hash()));
  EXPECT_EQ(h.server().counters().get(Counter::kRejectedBadCookie), 4u);
  EXPECT_EQ(h.server().client_count(), 0u);
  // A fresh cookie, within its time, joins.
  ASSERT_TRUE(raw.request());
  EXPECT_TRUE(raw.connect(arena_world().hash(), MoveSettings{}.hash()));
}

TEST(Security, ASniffedTokenAndCookieWithoutTheKeysDoNotJoin) {
  // The Connect's proof is sealed with the token's client key, which an eavesdropper never sees.
  SimHarness h(arena_world(), with_clients(0));
  RawClient raw(h, 5106, h.mint(1));
  ASSERT_TRUE(raw.request());
  proto::ConnectToken stolen = raw.token;
  stolen.client_to_server = proto::Key{};
  raw.token = stolen;
  EXPECT_FALSE(raw.connect(arena_world().hash(), MoveSettings{}.hash()));
  EXPECT_EQ(h.server().counters().get(Counter::kDropBadCookie), 1u);
  EXPECT_EQ(h.server().client_count(), 0u);
}

TEST(Security, TheSameClientIdTwice) {
  // From another address: refused while the first plays (a token cannot be shared). From the same
  // address (the player's process restarted, on a new port): the new session replaces the old.
  SimHarness h(arena_world(), with_clients(0));
  RawClient first(h, proto::Endpoint(asio::ip::make_address("10.2.0.1"), 5200), h.mint(77));
  ASSERT_TRUE(first.join());
  RawClient elsewhere(h, proto::Endpoint(asio::ip::make_address("10.2.0.2"), 5200), h.mint(77));
  ASSERT_TRUE(elsewhere.request());
  EXPECT_FALSE(elsewhere.connect(arena_world().hash(), MoveSettings{}.hash()));
  ASSERT_NE(elsewhere.sealed_reply(), nullptr);
  EXPECT_EQ(elsewhere.sealed_reply()->body_as_Reject()->reason(), proto::fb::RejectReason::ClientIdInUse);
  EXPECT_EQ(h.server().client_count(), 1u);
  EXPECT_NE(h.server().character_at(first.self), 0u);

  RawClient restarted(h, proto::Endpoint(asio::ip::make_address("10.2.0.1"), 5201), h.mint(77));
  ASSERT_TRUE(restarted.join());
  EXPECT_EQ(h.server().client_count(), 1u);
  EXPECT_EQ(h.server().character_at(first.self), 0u) << "the old session ended";
  EXPECT_NE(h.server().character_at(restarted.self), 0u);
  EXPECT_EQ(h.server().counters().get(Counter::kReplaced), 1u);
  // The old session was told, in its own session.
  bool told = false;
  const auto received = first.received;
  for (const auto& d : received) {
    first.received.assign(1, d);
    if (const proto::fb::Packet* p = first.session_packet(); p && p->body_type() == proto::fb::Body::Disconnect)
      told = p->body_as_Disconnect()->reason() == proto::fb::DisconnectReason::Replaced;
  }
  EXPECT_TRUE(told);
}

TEST(Security, OneAddressCannotHoldEverySlot) {
  HarnessOptions o = with_clients(0);
  o.core.max_clients_per_address = 3;
  SimHarness h(arena_world(), o);
  std::vector<std::unique_ptr<RawClient>> clients;
  int joined = 0, refused = 0;
  for (int i = 0; i < 5; ++i) {
    clients.push_back(std::make_unique<RawClient>(h, proto::Endpoint(asio::ip::make_address("10.2.0.1"), uint16_t(6000 + i)),
                                                  h.mint(100 + uint64_t(i))));
    ASSERT_TRUE(clients.back()->request());
    if (clients.back()->connect(arena_world().hash(), MoveSettings{}.hash())) {
      ++joined;
    } else if (const proto::fb::Packet* p = clients.back()->sealed_reply(); p && p->body_type() == proto::fb::Body::Reject) {
      EXPECT_EQ(p->body_as_Reject()->reason(), proto::fb::RejectReason::AddressFull);
      ++refused;
    }
  }
  EXPECT_EQ(joined, 3);
  EXPECT_EQ(refused, 2);
  // Another address still gets in.
  RawClient other(h, proto::Endpoint(asio::ip::make_address("10.2.0.2"), 6000), h.mint(200));
  EXPECT_TRUE(other.join());
  EXPECT_EQ(h.server().client_count(), 4u);
}

TEST(Security, OneSourceCannotBuyUnboundedHandshakeWork) {
  SimHarness h(arena_world(), with_clients(0));
  RawClient noisy(h, 5300, h.mint(1));
  proto::PacketWriter w;
  for (int i = 0; i < 100; ++i) noisy.send_clear(w.connect_request(noisy.token.sealed, noisy.salt));
  // 100 requests in a second: the address's bucket (10/s, burst 20) refuses most.
  EXPECT_GE(h.server().counters().get(Counter::kSourceLimited), 60u);
  EXPECT_LE(h.server().counters().get(Counter::kChallengesSent), 40u);
  // A neighbour in another /24 is not affected.
  RawClient neighbour(h, proto::Endpoint(asio::ip::make_address("10.3.0.1"), 5300), h.mint(2));
  EXPECT_TRUE(neighbour.join());
}

TEST(Security, AValidTokenReplayedFromManyAddressesEarnsFewAnswers) {
  // An attacker who sniffed one ConnectRequest sends it from spoofed addresses all over: the token
  // gets no more answers than its owner would ask for, and the global budget stays for others.
  HarnessOptions o = with_clients(0);
  o.core.handshake_rate = 100;
  SimHarness h(arena_world(), o);
  RawClient victim(h, 5500, h.mint(1));
  proto::PacketWriter w;
  proto::DatagramBuffer buf;
  const auto request = proto::frame_clear(w.connect_request(victim.token.sealed, victim.salt), buf);
  const std::vector<uint8_t> sniffed(request.begin(), request.end());
  for (uint32_t i = 0; i < 2000; ++i) {
    send_as(h, proto::Endpoint(asio::ip::make_address_v4(0x0b000000u + i * 256), uint16_t(1000 + i)), sniffed);
    if (i % 100 == 99) h.run_for(50 * kMs);  // 2000 in one second
  }
  const auto& c = h.server().counters();
  EXPECT_LE(c.get(Counter::kChallengesSent), 20u + 10u + 2u);
  EXPECT_GE(c.get(Counter::kTokenRateLimited), 1900u);
  RawClient other(h, 5501, h.mint(2));
  EXPECT_TRUE(other.join()) << "the global budget was not spent on the replays";
}

TEST(Security, RepliesToUnverifiedAddressesAreNeverLargerThanTheRequest) {
  SimHarness h(arena_world(), with_clients(0));
  RawClient raw(h, 5400, h.mint(1, 60, {proto::Endpoint(asio::ip::make_address("10.9.9.9"), 1)}));
  proto::PacketWriter w;
  // Every reply an unverified sender can get: a WrongServer reject (to request, status and connect).
  raw.send_clear(w.connect_request(raw.token.sealed, raw.salt));
  raw.send_clear(w.status_request(raw.token.sealed, raw.salt));
  raw.cookie.assign(proto::kCookieSize, 0);
  raw.send_clear(w.connect(raw.token.sealed, raw.salt, raw.cookie, proto::seal_proof(raw.token.client_to_server, raw.cookie, 1, 2)));
  ASSERT_EQ(raw.received.size(), 3u);
  for (const auto& r : raw.received) EXPECT_LE(r.size(), proto::kMinHandshakeDatagram);
  // And a Challenge and a Status to a good token.
  RawClient good(h, 5401, h.mint(2));
  ASSERT_TRUE(good.request());
  EXPECT_LE(good.received.back().size(), good.last_sent_size);
  good.received.clear();
  good.send_clear(w.status_request(good.token.sealed, good.salt));
  ASSERT_EQ(good.received.size(), 1u);
  EXPECT_LE(good.received.back().size(), good.last_sent_size);
}

TEST(Security, ImpairedSessionsStillPlayWithoutUnexplainedCorrections) {
  // Loss, duplicates and reordering: the replay window drops the duplicates and takes the reordered
  // once; predictions still agree with the server.
  SimHarness h(arena_world(), with_clients(4));
  client::Impairment imp;
  imp.loss = 0.1;
  imp.duplicate = 0.05;
  imp.reorder = 0.1;
  imp.latency = 40 * kMs;
  imp.jitter = 20 * kMs;
  h.network().set_impairment(imp);
  h.start_all();
  h.run_for(10 * kS);
  uint64_t compared = 0;
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(h.client(i).phase(), ClientSession::Phase::kConnected) << h.client(i).reason_text();
    EXPECT_EQ(h.client(i).predictor().counters().unexplained, 0u) << "client " << i;
    compared += h.client(i).stats().compared;
  }
  EXPECT_GT(compared, 1000u);
  EXPECT_GT(h.server().counters().get(Counter::kDropReplayed), 0u) << "the duplicates were dropped by the window";
}

}  // namespace
}  // namespace foothold::test
