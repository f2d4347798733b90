// The client session (client/session.h) on its own: its handshake retries and gives up with a
// reason, ignores whatever an attacker sends it, and, connected to a server on the simulated network,
// leaves and times out as it should.

#include <random>

#include <gtest/gtest.h>

#include "support/scenario_support.h"
#include "support/sim_harness.h"
#include "support/test_seed.h"

namespace foothold::test {
namespace {

using client::ClientSession;

// Counts what the session sends.
struct CountingSink : client::ServerSink {
  void send(std::span<const uint8_t> bytes) override {
    ++count;
    last.assign(bytes.begin(), bytes.end());
  }
  int count = 0;
  std::vector<uint8_t> last;
};

struct Still : client::InputSource {
  InputCmd next(uint32_t tick, const CharacterState&) override { return encode_move(0, 0, 0, tick); }
};

TEST(ClientSession, RetriesItsRequestThenGivesUpSayingWhatToCheck) {
  SimHarness h(arena_world(), HarnessOptions{});
  CountingSink sink;
  client::SessionOptions o;
  o.handshake_retry = 250 * proto::kMillisecond;
  o.connect_timeout = 2 * proto::kSecond;
  ClientSession session(arena_world(), MoveSettings{}, sink, h.mint(1), o);
  Still still;
  session.start(0);
  EXPECT_EQ(session.phase(), ClientSession::Phase::kRequesting);
  const int after_start = sink.count;
  EXPECT_GE(after_start, 1);
  for (proto::Nanos t = 0; t <= 3 * proto::kSecond; t += 10 * proto::kMillisecond) session.update(t, still);
  EXPECT_EQ(session.phase(), ClientSession::Phase::kFailed);
  EXPECT_TRUE(session.finished());
  EXPECT_NE(session.reason_text().find("token"), std::string::npos) << session.reason_text();
  // One request every 250 ms for 2 s: 8 or 9 in all, not one per update.
  EXPECT_GE(sink.count, 8);
  EXPECT_LE(sink.count, 10);
}

TEST(ClientSession, WhateverAStrangerSendsChangesNothing) {
  SimHarness h(arena_world(), HarnessOptions{});
  CountingSink sink;
  ClientSession session(arena_world(), MoveSettings{}, sink, h.mint(1));
  session.start(0);
  std::mt19937 rng(test_seed(5));
  for (int i = 0; i < 2000; ++i) {
    std::vector<uint8_t> junk(size_t(rng() % 300));
    for (auto& b : junk) b = uint8_t(rng());
    if (!junk.empty() && i % 3 == 0) junk[0] = uint8_t(i % 2 ? 0x02 : 0x10 + i % 8);  // look like real layers
    session.on_datagram(proto::kMillisecond, junk);
  }
  EXPECT_EQ(session.phase(), ClientSession::Phase::kRequesting);
  EXPECT_EQ(session.character_id(), 0u);
}

TEST(ClientSession, ConnectedItNoticesASilentServerAndCanLeave) {
  HarnessOptions o;
  o.clients = 2;
  SimHarness h(arena_world(), o);
  h.start_all();
  h.run_for(proto::kSecond);
  ASSERT_EQ(h.client(0).phase(), ClientSession::Phase::kConnected);
  ASSERT_EQ(h.client(1).phase(), ClientSession::Phase::kConnected);
  EXPECT_NE(h.client(0).character_id(), h.client(1).character_id());
  // Client 1 leaves: the server frees its character at once.
  h.client(1).disconnect();
  h.run_for(200 * proto::kMillisecond);
  EXPECT_EQ(h.client(1).phase(), ClientSession::Phase::kDisconnected);
  EXPECT_EQ(h.server().client_count(), 1u);
  // The network to client 0 goes dead: after server_timeout it says so.
  bots::Impairment dead;
  dead.loss = 1.0;
  h.network().set_impairment(dead);
  h.run_for(11 * proto::kSecond);
  EXPECT_EQ(h.client(0).phase(), ClientSession::Phase::kTimedOut);
  EXPECT_FALSE(h.client(0).reason_text().empty());
}

}  // namespace
}  // namespace foothold::test
