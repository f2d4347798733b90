// Issue 42's attacks, each as an on-path attacker who sees and sends any datagram would try it: a
// Connect replayed after the player left or during its session, a reconnect with the same token, a
// Reject earned by the attacker's own Connect and injected into the victim's handshake, a flood of
// version hints, and a flood spoofing the victim's own address. Each fails on the protocol before
// issue 42 (version 5).

#include <chrono>
#include <cstdio>

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

void send_as(SimHarness& h, const proto::Endpoint& from, std::span<const uint8_t> bytes, const proto::Endpoint& to) {
  h.network().sink_for(from).send(to, bytes);
}

// Plays `seconds` of neutral input through the raw client's session.
void play(RawClient& c, double seconds) {
  for (int i = 0; i < int(seconds * 20); ++i) {
    const uint32_t tick = c.h.server().current_tick() + 1;
    const InputCmd in[] = {encode_move(0, 0, 0, tick), encode_move(0, 0, 0, tick + 1), encode_move(0, 0, 0, tick + 2)};
    c.send_inputs(in);
    c.h.run_for(40 * kMs);
  }
}

TEST(SessionHardening, AConnectReplayedAfterThePlayerLeftOpensNothing) {
  SimHarness h(arena_world(), with_clients(0));
  RawClient player(h, 5600, h.mint(42));
  ASSERT_TRUE(player.join());
  const auto captured_connect = player.last_connect;
  // Every session datagram the player sends, as the attacker captures them.
  std::vector<std::vector<uint8_t>> captured_inputs;
  h.network().set_tap([&](const proto::Endpoint& from, const proto::Endpoint&, std::span<const uint8_t> b) {
    if (from == player.self && proto::layer_of(b) == proto::Layer::kSession) captured_inputs.emplace_back(b.begin(), b.end());
  });
  play(player, 3);
  h.network().set_tap({});
  ASSERT_GT(captured_inputs.size(), 20u);
  player.send_session(player.writer.disconnect(proto::fb::DisconnectReason::ClientQuit));
  ASSERT_EQ(h.server().client_count(), 0u);

  // The replay, from the player's spoofed address and port, well within the cookie's 10 s.
  uint64_t to_player = 0;
  h.network().set_tap([&](const proto::Endpoint&, const proto::Endpoint& to, std::span<const uint8_t> b) {
    if (to == player.self) to_player += b.size();
  });
  for (int i = 0; i < 5; ++i) send_as(h, player.self, captured_connect, SimHarness::server_endpoint());
  for (const auto& d : captured_inputs) send_as(h, player.self, d, SimHarness::server_endpoint());
  h.run_for(2 * kS);
  h.network().set_tap({});
  EXPECT_EQ(h.server().client_count(), 0u) << "no ghost session";
  EXPECT_EQ(h.server().counters().get(Counter::kDropCookieSpent), 5u);
  EXPECT_EQ(h.server().counters().get(Counter::kAccepted), 1u);
  EXPECT_EQ(to_player, 0u) << "nothing at all is sent to the player's address";

  // The real player joins again with the same token, from the same address.
  player.salt = proto::random_u64();
  EXPECT_TRUE(player.join());
  EXPECT_EQ(h.server().client_count(), 1u);
}

TEST(SessionHardening, AConnectReplayedDuringTheSessionChangesNothing) {
  SimHarness h(arena_world(), with_clients(0));
  RawClient player(h, 5610, h.mint(43));
  ASSERT_TRUE(player.join());
  const auto accept = player.received.front();
  const auto keys = player.keys;
  const uint32_t id = h.server().character_at(player.self);
  play(player, 1);
  // The replay: the very same Accept comes back, byte for byte (no new seal, no new keys), and the
  // session goes on under its keys.
  player.received.clear();
  player.send_raw(player.last_connect);
  ASSERT_FALSE(player.received.empty());
  EXPECT_EQ(player.received.front(), accept);
  EXPECT_EQ(h.server().counters().get(Counter::kAcceptsResent), 1u);
  EXPECT_EQ(h.server().counters().get(Counter::kAccepted), 1u);
  EXPECT_EQ(h.server().client_count(), 1u);
  EXPECT_EQ(h.server().character_at(player.self), id);
  play(player, 0.5);
  EXPECT_EQ(player.keys.send, keys.send);
  ASSERT_TRUE(player.last_snapshot().has_value()) << "snapshots still open under the first keys";
  // From another address (the attacker's own), the replayed Connect's cookie does not hold.
  send_as(h, proto::Endpoint(asio::ip::make_address("10.66.0.1"), 5610), player.last_connect, SimHarness::server_endpoint());
  h.run_for(10 * kMs);
  EXPECT_EQ(h.server().client_count(), 1u);
  EXPECT_EQ(h.server().counters().get(Counter::kAccepted), 1u);
}

TEST(SessionHardening, EveryJoinWithTheSameTokenGetsNewKeys) {
  SimHarness h(arena_world(), with_clients(0));
  const proto::ConnectToken token = h.mint(44);
  std::vector<proto::SessionKeys> seen;
  for (int i = 0; i < 3; ++i) {
    RawClient c(h, 5620, token);
    c.salt = 77;  // even the same client salt every time
    ASSERT_TRUE(c.join());
    seen.push_back(c.keys);
    c.send_session(c.writer.disconnect(proto::fb::DisconnectReason::ClientQuit));
  }
  for (std::size_t a = 0; a < seen.size(); ++a)
    for (std::size_t b = a + 1; b < seen.size(); ++b) {
      EXPECT_NE(seen[a].send, seen[b].send);
      EXPECT_NE(seen[a].receive, seen[b].receive);
    }
}

TEST(SessionHardening, ARestartedServerGivesAReplayedConnectOtherKeys) {
  // The worst case for a restart: the same cookie key (tests fix it; a real server draws a new one,
  // which refuses the old cookie outright) and no memory of spent cookies. The server's random
  // still makes the keys new.
  proto::SessionKeys first_keys, second_keys;
  std::vector<uint8_t> connect;
  proto::ConnectToken token;
  {
    SimHarness h(arena_world(), with_clients(0));
    RawClient c(h, 5630, h.mint(45));
    ASSERT_TRUE(c.join());
    first_keys = c.keys;
    connect = c.last_connect;
    token = c.token;
  }
  SimHarness restarted(arena_world(), with_clients(0));
  RawClient c(restarted, 5630, token);
  proto::DatagramBuffer rx;
  ASSERT_EQ(restarted.server().client_count(), 0u);
  c.received.clear();
  c.send_raw(connect);
  ASSERT_EQ(restarted.server().client_count(), 1u) << "this server never saw the cookie";
  ASSERT_FALSE(c.received.empty());
  // The player's own token keys open the Accept (the attacker cannot), and its keys are new. The
  // replayed datagram is the first session's: its salt and proof are in it.
  proto::DatagramBuffer out;
  const auto d = proto::decode(proto::unframe_clear(connect, out), proto::Direction::kToServer, proto::Layer::kClear);
  ASSERT_TRUE(d.ok());
  const auto* req = d.message.packet->body_as_Connect();
  const auto attempt =
      proto::connect_attempt(req->client_salt(), proto::bytes_of(req->cookie()), proto::bytes_of(req->proof()));
  ASSERT_NE(proto::open_accept(c.token, attempt, c.received.front(), rx, second_keys), nullptr);
  EXPECT_NE(first_keys.send, second_keys.send);
  EXPECT_NE(first_keys.receive, second_keys.receive);
}

TEST(SessionHardening, ARejectEarnedByAnAttackersConnectDoesNotEndTheVictimsHandshake) {
  // The attacker sees the victim's ConnectRequest, sends a Connect of its own with the victim's token
  // and salt (and a junk cookie and proof) from its own address, and injects the sealed
  // Reject(BadCookie) it gets back into the victim's handshake, as if from the server.
  HarnessOptions o = with_clients(0);
  o.clients = 1;
  SimHarness h(arena_world(), o);
  client::Impairment slow;
  slow.latency = 20 * kMs;
  h.network().set_impairment(slow);
  const proto::Endpoint victim = SimHarness::client_endpoint(0), attacker(asio::ip::make_address("10.66.0.2"), 4000);
  std::vector<uint8_t> request;
  h.network().set_tap([&](const proto::Endpoint& from, const proto::Endpoint&, std::span<const uint8_t> b) {
    if (from == victim && request.empty()) request.assign(b.begin(), b.end());
  });
  std::vector<std::vector<uint8_t>> earned;
  h.network().attach(attacker, [&](proto::Nanos, const proto::Endpoint&, std::span<const uint8_t> b) {
    earned.emplace_back(b.begin(), b.end());
  });
  h.start_client(0);
  h.run_for(1 * kMs);
  h.network().set_tap({});
  ASSERT_FALSE(request.empty());
  proto::DatagramBuffer rx, tx;
  const auto d = proto::decode(proto::unframe_clear(request, rx), proto::Direction::kToServer, proto::Layer::kClear);
  ASSERT_TRUE(d.ok());
  const auto* req = d.message.packet->body_as_ConnectRequest();
  proto::PacketWriter w;
  const std::vector<uint8_t> junk_cookie(proto::kCookieSize, 0), junk_proof(proto::kProofBytes, 0);
  const auto forged = proto::frame_clear(w.connect(proto::bytes_of(req->token()), req->client_salt(), junk_cookie, junk_proof), tx);
  send_as(h, attacker, forged, SimHarness::server_endpoint());
  // Its Reject comes back after one round trip, about when the victim has sent its own Connect.
  bool injected = false;
  for (int i = 0; i < 200 && h.client(0).phase() != ClientSession::Phase::kConnected; ++i) {
    if (!injected && !earned.empty() && h.client(0).phase() == ClientSession::Phase::kConnecting) {
      for (const auto& r : earned) send_as(h, SimHarness::server_endpoint(), r, victim);
      injected = true;
    }
    h.run_for(1 * kMs);
  }
  ASSERT_TRUE(injected) << "the attack ran while the victim was connecting";
  EXPECT_EQ(h.server().counters().get(Counter::kRejectedBadCookie), 1u) << "the server did answer the attacker";
  EXPECT_EQ(h.client(0).phase(), ClientSession::Phase::kConnected) << h.client(0).reason_text();
}

TEST(SessionHardening, AFloodOfVersionHintsDoesNotSlowJoins) {
  // 10,000 tokenless datagrams of another version a second, from addresses spread over many /24s
  // (each within its source budget), while 20 clients join.
  HarnessOptions o = with_clients(0);
  o.clients = 20;
  SimHarness h(arena_world(), o);
  client::Impairment path;
  path.latency = 10 * kMs;  // a 20 ms round trip: a join takes two, about 40 ms
  h.network().set_impairment(path);
  proto::PacketWriter w;
  auto& b = w.builder();
  b.Clear();
  const auto padding = b.CreateVector(std::vector<uint8_t>(320, 0));
  const auto body = proto::fb::CreateConnectRequest(b, 0, 1, padding);
  const auto packet = w.finish(proto::fb::Body::ConnectRequest, body.Union(), proto::kProtocolId, proto::kProtocolVersion - 1);
  proto::DatagramBuffer tx;
  const auto framed = proto::frame_clear(packet, tx);
  const std::vector<uint8_t> hint_request(framed.begin(), framed.end());
  uint32_t n = 0;
  auto flood = [&](proto::Nanos duration) {
    // Spread evenly, ten every millisecond, so that no budget it could drain ever refills.
    for (proto::Nanos t = 0; t < duration; t += kMs) {
      for (int i = 0; i < 10; ++i, ++n)
        send_as(h, proto::Endpoint(asio::ip::make_address_v4(0x0b000000u + (n % 50000) * 256), 1000), hint_request,
                SimHarness::server_endpoint());
      h.run_for(kMs);
    }
  };
  flood(300 * kMs);
  h.start_all();
  flood(700 * kMs);
  EXPECT_GT(h.server().counters().get(Counter::kVersionHintRateLimited), 9000u) << "the hints have their own budget";
  double slowest = 0;
  for (int i = 0; i < o.clients; ++i) {
    ASSERT_EQ(h.client(i).phase(), ClientSession::Phase::kConnected) << i;
    slowest = std::max(slowest, h.client(i).stats().connect_ms);
  }
  // A join takes two round trips (40 ms); a Challenge refused for want of budget would cost a 250 ms
  // retry.
  EXPECT_LT(slowest, 100.0);
  std::printf("slowest of %d joins under 10,000 version hints a second: %.1f ms\n", o.clients, slowest);
}

TEST(SessionHardening, AFloodSpoofingTheVictimsAddressCannotStopItsConnect) {
  // The per-source budgets are charged before anything is opened, so spoofed datagrams from the
  // victim's own address drain them; a Connect with a valid cookie is checked first and needs none.
  SimHarness h(arena_world(), with_clients(0));
  RawClient victim(h, 5640, h.mint(46));
  ASSERT_TRUE(victim.request());
  proto::PacketWriter w;
  proto::DatagramBuffer tx;
  const proto::ConnectToken junk = h.mint(47, 60, {}, &SimHarness::key());
  const auto spoofed = proto::frame_clear(w.connect_request(junk.sealed, 1), tx);
  const std::vector<uint8_t> bytes(spoofed.begin(), spoofed.end());
  for (int i = 0; i < 200; ++i) send_as(h, victim.self, bytes, SimHarness::server_endpoint());
  h.run_for(1 * kMs);
  ASSERT_GT(h.server().counters().get(Counter::kSourceLimited), 150u) << "the victim's source budget is spent";
  EXPECT_TRUE(victim.connect(arena_world().hash(), MoveSettings{}.hash()));
  EXPECT_EQ(h.server().client_count(), 1u);
}

TEST(SessionHardening, TheServerFollowsTheWallClock) {
  // The host's clock is corrected while the server runs: token times are judged by the new time at
  // once (the server used to read the wall clock once, at start, and count from there).
  SimHarness h(arena_world(), with_clients(0));
  RawClient raw(h, 5650, h.mint(48, 60));
  h.set_clock_offset(120);
  EXPECT_FALSE(raw.request());
  EXPECT_EQ(h.server().counters().get(Counter::kDropExpiredToken), 1u);
  h.set_clock_offset(0);
  EXPECT_TRUE(raw.request());
}

TEST(SessionHardening, WithoutAClockGivenTheServerReadsTheSystemsWallClock) {
  struct Capture : proto::DatagramSink {
    void send(const proto::Endpoint&, std::span<const uint8_t> bytes) override { sent.emplace_back(bytes.begin(), bytes.end()); }
    std::vector<std::vector<uint8_t>> sent;
  } sink;
  server::CoreConfig cfg;
  cfg.key = SimHarness::key();
  const proto::Endpoint server_ep = SimHarness::server_endpoint(), from(asio::ip::make_address("10.2.0.1"), 5660);
  cfg.addresses.push_back(proto::to_token_address(server_ep));
  server::ServerCore core(cfg, arena_world(), MoveSettings{}, sink, proto::kSecond);
  const uint64_t now = uint64_t(
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count());
  const auto address = proto::to_token_address(server_ep);
  proto::PacketWriter w;
  proto::DatagramBuffer buf;
  for (const uint64_t minted : {now, now - 3600}) {
    proto::ConnectToken token;
    std::string error;
    ASSERT_TRUE(proto::mint_token(cfg.key, 1, std::span(&address, 1), minted, 60, token, error)) << error;
    sink.sent.clear();
    core.on_datagram(proto::kSecond, from, proto::frame_clear(w.connect_request(token.sealed, 9), buf));
    EXPECT_EQ(sink.sent.size(), minted == now ? 1u : 0u) << "minted " << now - minted << " s ago";
  }
  EXPECT_EQ(core.counters().get(Counter::kDropExpiredToken), 1u);
}

TEST(SessionHardening, TokensAreJudgedByTheirNotBeforeAndHowFarAheadTheyExpire) {
  HarnessOptions o = with_clients(0);
  o.core.token_max_ahead = 3600;
  o.core.clock_skew = 30;
  SimHarness h(arena_world(), o);
  const auto address = proto::to_token_address(SimHarness::server_endpoint());
  const auto mint = [&](uint64_t lifetime, uint64_t delay) {
    proto::ConnectToken t;
    std::string error;
    EXPECT_TRUE(proto::mint_token(SimHarness::key(), 50 + delay, std::span(&address, 1), h.unix_now(), lifetime, t, error,
                                  delay))
        << error;
    return t;
  };
  RawClient early(h, 5670, mint(60, 120));
  EXPECT_FALSE(early.request());
  EXPECT_TRUE(early.received.empty()) << "no reply to a token not yet valid";
  EXPECT_EQ(h.server().counters().get(Counter::kDropEarlyToken), 1u);
  RawClient far(h, 5671, mint(7200, 0));
  EXPECT_FALSE(far.request());
  EXPECT_TRUE(far.received.empty());
  EXPECT_EQ(h.server().counters().get(Counter::kDropFarToken), 1u);
  // Within the skew, and within the maximum: both join.
  RawClient skewed(h, 5672, mint(60, 25));
  EXPECT_TRUE(skewed.join());
  RawClient hour(h, 5673, mint(3600, 0));
  EXPECT_TRUE(hour.join());
  // And the early one, once its time has come.
  h.run_for(91 * kS);
  early.salt = proto::random_u64();
  EXPECT_TRUE(early.join());
}

}  // namespace
}  // namespace foothold::test
