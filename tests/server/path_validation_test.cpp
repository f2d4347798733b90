// A NAT that rebinds a client mid-session: the session moves to the new address only after a
// challenge round trip to it, the client plays on and its messages keep their order; and nothing an
// attacker can send (a forged datagram, a replay, a raced copy from its own address, a forged or
// misdirected answer) moves a session.

#include <cstdint>
#include <optional>
#include <vector>

#include <gtest/gtest.h>

#include "games/builtin_games.h"
#include "support/scenario_support.h"
#include "support/sim_harness.h"

namespace foothold::test {
namespace {

using server::Counter;
using Phase = client::ClientSession::Phase;
constexpr proto::Nanos kS = proto::kSecond;
constexpr proto::Nanos kMs = proto::kMillisecond;

HarnessOptions options(int clients) {
  HarnessOptions o = with_clients(clients);
  o.pattern = bots::Pattern::kCircle;
  return o;
}

std::vector<uint8_t> numbered(uint32_t n) { return {uint8_t(n), uint8_t(n >> 8), uint8_t(n * 7), 42}; }

TEST(PathValidation, ARebindingMovesTheSessionAfterAChallengeAndTheClientPlaysOn) {
  for (const char* address : {"10.1.0.1", "10.9.9.9"}) {  // a new port; a new address and port
    SCOPED_TRACE(address);
    HarnessOptions o = options(2);
    o.settings = MoveSettings{};
    SimHarness h(arena_world(), o);
    server::ServerCore& core = h.server();
    core.set_game(server::builtin_games()[0].make());  // echo
    h.network().set_impairment({0, 0, 0, 20 * kMs, 0});
    h.start_all();
    h.run_for(2 * kS);
    ASSERT_EQ(h.client(0).phase(), Phase::kConnected);
    const uint32_t id = h.client(0).character_id();
    const proto::Endpoint old_endpoint = SimHarness::client_endpoint(0);
    const proto::Endpoint new_endpoint{asio::ip::make_address(address), 51000};
    // Messages in flight across the rebinding, echoed in order.
    uint32_t sent = 0;
    std::vector<std::vector<uint8_t>> got;
    const auto play = [&](proto::Nanos duration) {
      for (proto::Nanos t = 0; t < duration; t += 50 * kMs) {
        if (h.client(0).send_message(proto::Channel::kReliable, numbered(sent)) == proto::SendError::kNone) ++sent;
        h.run_for(50 * kMs);
        for (proto::ReceivedMessage m; h.client(0).receive_message(m);) got.push_back(m.bytes);
      }
    };
    play(1 * kS);
    const uint64_t compared = h.client(0).stats().compared;
    h.rebind_client(0, new_endpoint);
    play(3 * kS);
    EXPECT_EQ(h.client(0).phase(), Phase::kConnected) << h.client(0).reason_text();
    EXPECT_EQ(core.character_at(new_endpoint), id);
    EXPECT_EQ(core.character_at(old_endpoint), 0u);
    EXPECT_EQ(core.counters().get(Counter::kPathMigrations), 1u);
    EXPECT_GE(core.counters().get(Counter::kPathChallenges), 1u);
    EXPECT_EQ(h.client(0).stats().path_challenges, core.counters().get(Counter::kPathChallenges))
        << "every challenge reached the client at its new address and was answered";
    EXPECT_GT(h.client(0).stats().compared, compared + 100) << "snapshots keep coming, to the new address";
    EXPECT_EQ(h.client(0).predictor().counters().unexplained, 0u);
    ASSERT_GE(got.size(), sent - 2) << "echoes of all but the last few";
    for (uint32_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], numbered(i)) << "exactly once, in order, across the move";
    EXPECT_EQ(h.client(1).phase(), Phase::kConnected);
  }
}

TEST(PathValidation, NothingAnAttackerSendsMovesASession) {
  SimHarness h(arena_world(), options(1));
  h.network().set_impairment({0, 0, 0, 30 * kMs, 0});
  h.start_all();
  h.run_for(2 * kS);
  server::ServerCore& core = h.server();
  const uint32_t id = h.client(0).character_id();
  const proto::Endpoint client = SimHarness::client_endpoint(0), attacker{asio::ip::make_address("10.66.0.1"), 6666};
  proto::DatagramSink& from_attacker = h.network().sink_for(attacker);
  // The attacker sees every datagram the client sends (on the path, or beside it).
  std::vector<std::vector<uint8_t>> seen;
  h.network().set_tap([&](const proto::Endpoint& from, const proto::Endpoint&, std::span<const uint8_t> b) {
    if (from == client) seen.emplace_back(b.begin(), b.end());
  });
  std::vector<std::vector<uint8_t>> to_attacker;
  h.network().attach(attacker, [&](proto::Nanos, const proto::Endpoint&, std::span<const uint8_t> b) { to_attacker.emplace_back(b.begin(), b.end()); });
  h.run_for(200 * kMs);
  ASSERT_FALSE(seen.empty());
  const uint32_t route = proto::session_route(seen.back());
  ASSERT_NE(route, 0u) << "the client's datagrams carry the route";

  // 1. A copy of a datagram already delivered, from the attacker: a replay, refused before anything.
  const uint64_t replayed = core.counters().get(Counter::kDropReplayed);
  from_attacker.send(SimHarness::server_endpoint(), seen.front());
  h.run_for(100 * kMs);
  EXPECT_EQ(core.counters().get(Counter::kDropReplayed), replayed + 1);
  // 2. The route with the next sequence and a forged body (the client paused, so that the sequence
  // is new): does not open.
  h.pause_client(0, true);
  h.run_for(100 * kMs);
  std::vector<uint8_t> forged = seen.back();
  forged[1 + proto::kRouteBytes] = uint8_t(forged[1 + proto::kRouteBytes] + 1);  // the sequence's low byte
  const uint64_t bad_seal = core.counters().get(Counter::kDropBadSeal);
  from_attacker.send(SimHarness::server_endpoint(), forged);
  h.run_for(10 * kMs);
  h.pause_client(0, false);
  h.run_for(90 * kMs);
  EXPECT_EQ(core.counters().get(Counter::kDropBadSeal), bad_seal + 1);
  EXPECT_EQ(core.counters().get(Counter::kPathChallenges), 0u) << "nothing unauthenticated is even challenged";
  // 3. A copy raced ahead of the original (sent the instant it is seen, the original still 30 ms
  // out): authentic and new, so the attacker's address is challenged; the attacker cannot answer.
  h.network().set_tap([&](const proto::Endpoint& from, const proto::Endpoint&, std::span<const uint8_t> b) {
    if (from == client && seen.size() < 10000) {
      seen.emplace_back(b.begin(), b.end());
      if (seen.size() % 20 == 0) from_attacker.send(SimHarness::server_endpoint(), b);
    }
  });
  h.run_for(1 * kS);
  EXPECT_GT(core.counters().get(Counter::kPathChallenges), 0u);
  ASSERT_FALSE(to_attacker.empty()) << "the challenge went to the attacker's address, sealed";
  // 4. The attacker answers with what it has: the challenge itself sent back, and a made-up response.
  for (const auto& c : to_attacker) from_attacker.send(SimHarness::server_endpoint(), c);
  proto::PacketWriter w;
  proto::DatagramBuffer tx;
  proto::Key guess{};
  from_attacker.send(SimHarness::server_endpoint(),
                     proto::seal_session(guess, 1u << 30, w.path_response(12345), tx, proto::Payload::kPacket, route));
  h.network().set_tap(nullptr);
  h.run_for(1 * kS);
  EXPECT_EQ(core.counters().get(Counter::kPathMigrations), 0u);
  EXPECT_EQ(core.character_at(client), id) << "the session stays where its client is";
  EXPECT_EQ(core.character_at(attacker), 0u);
  EXPECT_EQ(h.client(0).phase(), Phase::kConnected);
  EXPECT_EQ(h.client(0).stats().path_challenges, 0u) << "no challenge ever reached the client";
  EXPECT_EQ(h.client(0).predictor().counters().unexplained, 0u);
}

TEST(PathValidation, ASessionCausesAFewChallengesASecondWhateverAddressesItsDatagramsClaim) {
  // Issue #63: the retry limit was per address, so copies of a token holder's datagrams from
  // alternating (spoofed) addresses had an 80-byte challenge sent for each 23-byte datagram.
  SimHarness h(arena_world(), options(1));
  h.network().set_impairment({0, 0, 0, 30 * kMs, 0});
  h.start_all();
  h.run_for(2 * kS);
  server::ServerCore& core = h.server();
  const proto::Endpoint client = SimHarness::client_endpoint(0);
  const proto::Endpoint spoofed[2] = {{asio::ip::make_address("10.66.0.1"), 6666}, {asio::ip::make_address("10.77.0.1"), 7777}};
  proto::DatagramSink* sinks[2] = {&h.network().sink_for(spoofed[0]), &h.network().sink_for(spoofed[1])};
  int copies = 0;
  h.network().set_tap([&](const proto::Endpoint& from, const proto::Endpoint&, std::span<const uint8_t> b) {
    if (from != client) return;
    std::vector<uint8_t> copy(b.begin(), b.end());  // raced ahead of the original, from each address in turn
    sinks[copies % 2]->send(SimHarness::server_endpoint(), copy);
    ++copies;
  });
  h.run_for(3 * kS);
  h.network().set_tap(nullptr);
  ASSERT_GT(copies, 150);
  const uint64_t challenges = core.counters().get(Counter::kPathChallenges);
  EXPECT_LE(challenges, uint64_t(server::kPathChallengeBurst + 3 * server::kPathChallengeRate + 1))
      << "challenges for " << copies << " copies from alternating addresses";
  EXPECT_GT(core.counters().get(Counter::kPathChallengesLimited), 50u) << "the rest were refused, counted";
  EXPECT_EQ(core.counters().get(Counter::kPathMigrations), 0u);
  EXPECT_EQ(h.client(0).phase(), Phase::kConnected);
}

TEST(PathValidation, AMoveHoldsToTheSessionsPerAddressCap) {
  // Issue #63: Roster::move ignored max_clients_per_address.
  HarnessOptions o = options(2);
  o.core.max_clients_per_address = 1;
  SimHarness h(arena_world(), o);
  h.start_all();
  h.run_for(2 * kS);
  server::ServerCore& core = h.server();
  ASSERT_EQ(h.client(1).phase(), Phase::kConnected);
  const uint32_t id1 = h.client(1).character_id();
  // Client 1 rebinds to another port of client 0's address, which holds its one session.
  const proto::Endpoint beside{SimHarness::client_endpoint(0).address(), 51000};
  h.rebind_client(1, beside);
  h.run_for(2 * kS);
  EXPECT_EQ(core.character_at(beside), 0u) << "not moved onto a full address";
  EXPECT_GE(core.counters().get(Counter::kPathMovesAddressFull), 1u);
  EXPECT_EQ(core.counters().get(Counter::kPathMigrations), 0u);
  EXPECT_EQ(core.character_at(SimHarness::client_endpoint(1)), id1);
}

TEST(PathValidation, AReusedNatPortFallsBackToTheRouteAndDisplacesTheStaleSession) {
  // Issue #63: a session found by address whose datagram did not open never fell back to the
  // route, so a NAT that gave a silent client's port to another blocked the new one until the old
  // session timed out.
  HarnessOptions o = options(2);
  o.settings = MoveSettings{};
  SimHarness h(arena_world(), o);
  h.network().set_impairment({0, 0, 0, 20 * kMs, 0});
  h.start_all();
  h.run_for(2 * kS);
  server::ServerCore& core = h.server();
  const uint32_t id0 = h.client(0).character_id(), id1 = h.client(1).character_id();
  const proto::Endpoint reused = SimHarness::client_endpoint(0);
  h.pause_client(0, true);  // client 0 goes quiet; its session waits at its address
  h.run_for(200 * kMs);
  h.rebind_client(1, reused);
  h.run_for(2 * kS);  // far less than the session time-out
  EXPECT_EQ(core.character_at(reused), id1) << "client 1's session moved to the port it was given";
  EXPECT_EQ(core.counters().get(Counter::kPathMigrations), 1u);
  EXPECT_EQ(core.counters().get(Counter::kPathDisplaced), 1u);
  EXPECT_EQ(core.character(id0), nullptr) << "the stale session is gone";
  EXPECT_EQ(h.client(1).phase(), Phase::kConnected) << h.client(1).reason_text();
  EXPECT_EQ(h.client(1).predictor().counters().unexplained, 0u);
}

}  // namespace
}  // namespace foothold::test
