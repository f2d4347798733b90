// The client session (client/session.h) on its own: its handshake retries and gives up with a
// reason, ignores whatever an attacker sends it, and, connected to a server on the simulated network,
// leaves and times out as it should.

#include <map>
#include <random>
#include <string>
#include <vector>

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
  client::Impairment dead;
  dead.loss = 1.0;
  h.network().set_impairment(dead);
  h.run_for(11 * proto::kSecond);
  EXPECT_EQ(h.client(0).phase(), ClientSession::Phase::kTimedOut);
  EXPECT_FALSE(h.client(0).reason_text().empty());
}

// The client keeps one record of its inputs, its predictor's history, and resends from it: while no
// snapshot says the server has them, every message carries the newest unacknowledged inputs (all it
// can, once they are overdue), exactly as it predicted with them; once snapshots arrive again, the
// inputs the server had are not sent again.
TEST(ClientSession, ResendsTheInputsItPredictedWithUntilTheServerHasThem) {
  // Walking round a circle, the input changes from one tick to the next: an input sent for the wrong
  // tick would show.
  HarnessOptions o = with_clients(1);
  o.pattern = bots::Pattern::kCircle;
  SimHarness h(arena_world(), o);
  ClientSession& session = h.client(0);
  std::map<uint32_t, InputCmd> made;  // every input the game gave, by tick
  session.on_input = [&](const InputCmd& in) { made[in.tick] = in; };
  // Every inputs message the client sends, as the server reads it.
  struct Message {
    proto::InputsHeader header;
    std::vector<InputCmd> inputs;
  };
  std::vector<Message> messages;
  h.network().set_tap([&](const proto::Endpoint& from, const proto::Endpoint&, std::span<const uint8_t> bytes) {
    if (from != SimHarness::client_endpoint(0) || proto::layer_of(bytes) != proto::Layer::kSession) return;
    proto::ReplayWindow any;
    proto::DatagramBuffer buffer;
    uint64_t sequence = 0;
    std::span<const uint8_t> message;
    ASSERT_EQ(proto::open_session(session.session_keys().send, any, bytes, buffer, sequence, message), proto::OpenError::kNone);
    if (proto::session_payload(bytes) != proto::Payload::kCompact) return;
    Message m;
    ASSERT_TRUE(proto::read_inputs(message, session.predictor().latest_tick(), m.header, m.inputs));
    messages.push_back(std::move(m));
  });
  // The way back can go deaf: the server hears the client, the client hears nothing.
  bool deaf = false;
  h.network().attach(SimHarness::client_endpoint(0), [&](proto::Nanos t, const proto::Endpoint& from, std::span<const uint8_t> b) {
    if (from == SimHarness::server_endpoint() && !deaf) session.on_datagram(t, b);
  });
  const auto expect_as_made = [&](const Message& m, const std::string& when) {
    ASSERT_FALSE(m.inputs.empty()) << when;
    EXPECT_EQ(m.inputs.back().tick, m.header.newest_tick) << when;
    for (const InputCmd& in : m.inputs) {
      ASSERT_TRUE(made.count(in.tick)) << when << ": tick " << in.tick;
      EXPECT_EQ(in, made.at(in.tick)) << when << ": tick " << in.tick;
    }
  };

  h.start_all();
  h.run_for(proto::kSecond);
  ASSERT_EQ(session.phase(), ClientSession::Phase::kConnected);
  ASSERT_FALSE(messages.empty());
  // Heard, on a clean network: the newest input and one copy of the one before.
  expect_as_made(messages.back(), "heard");
  EXPECT_EQ(messages.back().inputs.size(), 2u);

  // Deaf for a second, 60 ticks: the unacknowledged inputs pile up and, overdue, all go, the newest
  // kMaxCompactInputs of them in every message.
  deaf = true;
  messages.clear();
  h.run_for(proto::kSecond);
  ASSERT_GE(messages.size(), 50u);
  for (const Message& m : messages) expect_as_made(m, "deaf");
  const std::vector<InputCmd>& all = messages.back().inputs;
  EXPECT_EQ(all.size(), proto::kMaxCompactInputs);
  int changes = 0;
  for (std::size_t i = 1; i < all.size(); ++i) changes += !all[i].same_command(all[i - 1]);
  EXPECT_GE(changes, int(all.size()) / 2) << "inputs that change tick by tick";

  // Hearing again: the inputs the server had are done with. (The loss seen asks for a few more
  // copies for a while; after two seconds it is back to two.)
  deaf = false;
  h.run_for(2 * proto::kSecond);
  expect_as_made(messages.back(), "heard again");
  EXPECT_EQ(messages.back().inputs.size(), 2u);
  EXPECT_EQ(session.stats().unauthenticated, 0u);
}

}  // namespace
}  // namespace foothold::test
