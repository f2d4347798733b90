// Messages in the session, end to end on the simulated network: echoed exactly once and in order
// through a hostile network, snapshots untouched by them, full queues, a peer that stops
// acknowledging, and every way a dishonest peer can try the message layer (each cut off by name).

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "games/builtin_games.h"
#include "proto/message_endpoint.h"
#include "support/raw_client.h"
#include "support/scenario_support.h"
#include "support/sim_harness.h"
#include "support/test_seed.h"

namespace foothold::test {
namespace {

using server::Counter;
using Phase = client::ClientSession::Phase;
constexpr proto::Nanos kS = proto::kSecond;
constexpr proto::Nanos kMs = proto::kMillisecond;

// A message numbered `n` of `size` bytes (size >= 4), its bytes all derived from n.
std::vector<uint8_t> numbered(uint32_t n, std::size_t size) {
  std::vector<uint8_t> v(size);
  for (std::size_t i = 0; i < size; ++i) v[i] = uint8_t((n * 131 + i * 7) ^ (i >> 8));
  if (size >= 4)
    for (int k = 0; k < 4; ++k) v[std::size_t(k)] = uint8_t(n >> (8 * k));
  return v;
}

// The server's echo game: every message back to its sender on its channel.
void install_echo(SimHarness& h) {
  server::ServerCore& core = h.server();
  core.set_game(server::builtin_games()[0].make());  // echo
}

HarnessOptions options(int clients) {
  HarnessOptions o = with_clients(clients);
  o.pattern = bots::Pattern::kCircle;
  return o;
}

TEST(Messages, EchoedExactlyOnceInOrderThroughLossDuplicatesReorderingAndDelay) {
  const World& world = arena_world();
  SimHarness h(world, options(2));
  install_echo(h);
  h.start_all();
  h.run_for(2 * kS);
  ASSERT_EQ(h.client(0).phase(), Phase::kConnected);
  ASSERT_EQ(h.client(1).phase(), Phase::kConnected);
  h.network().set_impairment({0.3, 0.1, 0.2, 250 * kMs, 100 * kMs});
  // Each client: the sizes the issue names, then random ones; the 64 KiB + 1 one is refused.
  std::mt19937_64 rng(test_seed(351));
  std::vector<std::vector<uint8_t>> sent[2];
  for (int c = 0; c < 2; ++c) {
    for (std::size_t size : {1u, 1199u, 1200u, 65536u}) sent[c].push_back(numbered(uint32_t(sent[c].size()), size));
    for (int i = 0; i < 40; ++i) sent[c].push_back(numbered(uint32_t(sent[c].size()), 4 + rng() % 3000));
    EXPECT_EQ(h.client(c).send_message(proto::Channel::kReliable, numbered(0, 65537)), proto::SendError::kTooLarge);
  }
  std::vector<std::vector<uint8_t>> got[2];
  std::size_t next[2] = {0, 0};
  for (int step = 0; step < 1200 && (got[0].size() < sent[0].size() || got[1].size() < sent[1].size()); ++step) {
    for (int c = 0; c < 2; ++c) {
      while (next[c] < sent[c].size() &&
             h.client(c).send_message(proto::Channel::kReliable, sent[c][next[c]]) == proto::SendError::kNone)
        ++next[c];
      for (proto::ReceivedMessage m; h.client(c).receive_message(m);) {
        EXPECT_EQ(m.channel, proto::Channel::kReliable);
        got[c].push_back(m.bytes);
      }
    }
    h.run_for(50 * kMs);
  }
  for (int c = 0; c < 2; ++c) {
    EXPECT_EQ(h.client(c).phase(), Phase::kConnected) << h.client(c).reason_text();
    ASSERT_EQ(got[c].size(), sent[c].size()) << "client " << c;
    for (std::size_t i = 0; i < got[c].size(); ++i) ASSERT_EQ(got[c][i], sent[c][i]) << "client " << c << " message " << i;
  }
  EXPECT_EQ(h.server().counters().get(Counter::kMessagesReceived), sent[0].size() + sent[1].size());
  EXPECT_GT(h.server().counters().get(Counter::kMessageRetransmissions), 50u) << "the network lost nothing: proves nothing";
  EXPECT_GT(h.client(0).messages().stats().retransmissions, 50u);
  EXPECT_EQ(h.server().counters().get(Counter::kMessageViolations), 0u);
}

TEST(Messages, UnreliableMessagesArriveAtMostOnceAndInOrder) {
  const World& world = arena_world();
  SimHarness h(world, options(1));
  install_echo(h);
  h.start_all();
  h.run_for(2 * kS);
  h.network().set_impairment({0.2, 0.1, 0.2, 40 * kMs, 20 * kMs});
  uint32_t sent = 0;
  std::vector<uint32_t> got;
  for (int step = 0; step < 300; ++step) {
    if (h.client(0).send_message(proto::Channel::kUnreliable, numbered(sent, 64)) == proto::SendError::kNone) ++sent;
    h.run_for(16 * kMs);
    for (proto::ReceivedMessage m; h.client(0).receive_message(m);) {
      ASSERT_EQ(m.channel, proto::Channel::kUnreliable);
      const uint32_t n = uint32_t(m.bytes[0] | (m.bytes[1] << 8) | (m.bytes[2] << 16) | (m.bytes[3] << 24));
      EXPECT_EQ(m.bytes, numbered(n, 64));
      got.push_back(n);
    }
  }
  EXPECT_EQ(sent, 300u);
  ASSERT_GT(got.size(), 100u);
  EXPECT_LT(got.size(), sent) << "40% of round trips lose one copy or the other: some are lost";
  for (std::size_t i = 1; i < got.size(); ++i) ASSERT_LT(got[i - 1], got[i]) << "never twice, never out of order";
}

// Every snapshot's compact message, in order, as client 0 opens them (the tap sees the sealed
// datagrams; the client's keys open them).
struct SnapshotLog {
  std::vector<std::vector<uint8_t>> snapshots;
  std::size_t largest_snapshot_datagram = 0;
  void watch(SimHarness& h) {
    h.network().set_tap([this, &h](const proto::Endpoint& from, const proto::Endpoint& to, std::span<const uint8_t> b) {
      if (from != SimHarness::server_endpoint() || to != SimHarness::client_endpoint(0)) return;
      if (h.client(0).phase() != Phase::kConnected || proto::session_payload(b) != proto::Payload::kCompact) return;
      proto::ReplayWindow fresh;
      proto::DatagramBuffer buffer;
      uint64_t sequence = 0;
      std::span<const uint8_t> opened;
      if (proto::open_session(h.client(0).session_keys().receive, fresh, b, buffer, sequence, opened) != proto::OpenError::kNone) return;
      std::span<const uint8_t> compact = opened;
      if (proto::is_carrier(opened)) {
        proto::CarrierParts parts;
        ASSERT_TRUE(proto::split_carrier(opened, parts));
        compact = parts.compact;
      }
      if (compact.empty()) return;  // messages alone
      largest_snapshot_datagram = std::max(largest_snapshot_datagram, b.size());
      snapshots.emplace_back(compact.begin(), compact.end());
    });
  }
};

TEST(Messages, MessagesNeverChangeASnapshotNorPushOnePastItsBudget) {
  const World& world = arena_world();
  std::vector<std::vector<uint8_t>> runs[2];
  for (int with_messages = 0; with_messages < 2; ++with_messages) {
    HarnessOptions o = options(6);
    o.core.snapshot_budget = 160;
    SimHarness h(world, o);
    install_echo(h);
    SnapshotLog log;
    log.watch(h);
    h.start_all();
    h.run_for(2 * kS);
    for (int step = 0; step < 100; ++step) {
      for (int c = 0; c < 6 && with_messages; ++c)
        h.client(c).send_message(proto::Channel::kReliable, numbered(uint32_t(step), 300 + 50 * c));
      h.run_for(30 * kMs);
      proto::ReceivedMessage m;
      for (int c = 0; c < 6; ++c)
        while (h.client(c).receive_message(m)) EXPECT_EQ(m.bytes.size(), std::size_t(300 + 50 * c));
    }
    EXPECT_LE(log.largest_snapshot_datagram, 160u);
    if (with_messages) {
      EXPECT_GT(h.server().counters().get(Counter::kMessagesReceived), 500u);
    }
    runs[with_messages] = log.snapshots;
  }
  ASSERT_GT(runs[0].size(), 100u);
  EXPECT_EQ(runs[0], runs[1]) << "the same snapshots, byte for byte, with and without messages";
}

TEST(Messages, AFullQueueIsAClearErrorOnBothSides) {
  const World& world = arena_world();
  SimHarness h(world, options(1));
  EXPECT_EQ(h.client(0).send_message(proto::Channel::kReliable, numbered(0, 10)), proto::SendError::kNotConnected);
  h.start_all();
  h.run_for(2 * kS);
  // 256 KiB by default: four 64 KiB messages fit, the fifth waits for room.
  for (uint32_t i = 0; i < 4; ++i)
    EXPECT_EQ(h.client(0).send_message(proto::Channel::kReliable, numbered(i, 65536)), proto::SendError::kNone);
  EXPECT_EQ(h.client(0).send_message(proto::Channel::kReliable, numbered(4, 65536)), proto::SendError::kQueueFull);
  const uint32_t id = h.client(0).character_id();
  for (uint32_t i = 0; i < 4; ++i)
    EXPECT_EQ(h.server().send_message(id, proto::Channel::kReliable, numbered(i, 65536)), proto::SendError::kNone);
  EXPECT_EQ(h.server().send_message(id, proto::Channel::kReliable, numbered(4, 65536)), proto::SendError::kQueueFull);
  EXPECT_EQ(h.server().send_message(id + 100, proto::Channel::kReliable, numbered(4, 10)), proto::SendError::kNotConnected);
  EXPECT_EQ(h.server().counters().get(Counter::kMessagesRefused), 2u);
  // Once delivered and acknowledged, there is room again; nothing was lost meanwhile.
  h.run_for(8 * kS);
  EXPECT_EQ(h.client(0).send_message(proto::Channel::kReliable, numbered(4, 65536)), proto::SendError::kNone);
  int received = 0;
  for (proto::ReceivedMessage m; h.client(0).receive_message(m);) EXPECT_EQ(m.bytes, numbered(uint32_t(received++), 65536));
  EXPECT_EQ(received, 4);
  EXPECT_EQ(h.server().counters().get(Counter::kMessagesUndelivered), 4u) << "no game: counted, dropped";
}

TEST(Messages, APeerThatStopsAcknowledgingIsCutOffAndTheOthersPlayOn) {
  const World& world = arena_world();
  HarnessOptions o = options(2);
  o.core.messages.timeout = 2 * kS;
  SimHarness h(world, o);
  h.start_all();
  h.run_for(2 * kS);
  const uint32_t id0 = h.client(0).character_id(), id1 = h.client(1).character_id();
  // Client 0 hears nothing more (its inputs still reach the server); client 1 is fine.
  h.network().detach(SimHarness::client_endpoint(0));
  ASSERT_EQ(h.server().send_message(id0, proto::Channel::kReliable, numbered(1, 100)), proto::SendError::kNone);
  ASSERT_EQ(h.server().send_message(id1, proto::Channel::kReliable, numbered(1, 100)), proto::SendError::kNone);
  h.run_for(1500 * kMs);
  EXPECT_NE(h.server().character(id0), nullptr) << "not before the time-out";
  h.run_for(1 * kS);
  EXPECT_EQ(h.server().character(id0), nullptr);
  EXPECT_EQ(h.server().counters().get(Counter::kMessageTimeouts), 1u);
  EXPECT_EQ(h.server().counters().get(Counter::kTimeouts), 0u) << "cut off for its messages, not its silence";
  EXPECT_NE(h.server().character(id1), nullptr);
  EXPECT_EQ(h.client(1).phase(), Phase::kConnected);
}

// A raw client in a session, sending message sections by hand.
struct Attacker {
  SimHarness& h;
  RawClient raw;
  explicit Attacker(SimHarness& harness) : h(harness), raw(harness, 9000, harness.mint(777)) { EXPECT_TRUE(raw.join()); }
  uint32_t id() const { return h.server().character_at(raw.self); }
  // A carrier with no compact message and `section`, sealed in the session.
  void send_section(std::span<const uint8_t> section) {
    std::vector<uint8_t> carrier(proto::kCarrierOverhead + section.size());
    ASSERT_EQ(proto::begin_carrier({}, carrier), proto::kCarrierOverhead);
    std::copy(section.begin(), section.end(), carrier.begin() + proto::kCarrierOverhead);
    raw.send_compact(carrier);
  }
  // A section of reliable fragments.
  static std::vector<uint8_t> fragments_section(std::initializer_list<proto::Fragment> fragments) {
    std::vector<uint8_t> block(1100);
    std::size_t used = 0;
    for (const proto::Fragment& f : fragments) EXPECT_TRUE(proto::write_fragment(block, used, f));
    // Sized once and copied into, not a 3-byte vector grown by insert(): GCC 12 warns falsely
    // (-Warray-bounds) of that growth inlined in an optimised build.
    std::vector<uint8_t> section(3 + used);
    section[0] = 2;
    section[1] = uint8_t(used);
    section[2] = uint8_t(used >> 8);
    std::copy(block.begin(), block.begin() + long(used), section.begin() + 3);
    return section;
  }
  void send_fragments(std::initializer_list<proto::Fragment> fragments) { send_section(fragments_section(fragments)); }
  // The same, handed to the server at once, with no time passing (no tick between two of them).
  void inject_fragments(std::initializer_list<proto::Fragment> fragments) {
    const std::vector<uint8_t> section = fragments_section(fragments);
    std::vector<uint8_t> carrier(proto::kCarrierOverhead);
    proto::begin_carrier({}, carrier);
    carrier.insert(carrier.end(), section.begin(), section.end());
    proto::DatagramBuffer tx;
    h.server().on_datagram(h.now(), raw.self, proto::seal_session(raw.keys.send, ++raw.sequence, carrier, tx, proto::Payload::kCompact));
  }
  // The reason of the Disconnect the server sent, if it sent one.
  std::optional<proto::fb::DisconnectReason> disconnect() {
    const proto::fb::Packet* p = raw.session_packet();
    if (!p || p->body_type() != proto::fb::Body::Disconnect) return std::nullopt;
    return p->body_as_Disconnect()->reason();
  }
};

TEST(Messages, EveryDishonestFragmentCutsThePeerOffByName) {
  const World& world = arena_world();
  const std::vector<uint8_t> part(10, 1);
  struct Case {
    const char* name;
    std::function<void(Attacker&)> attack;
  };
  const std::vector<Case> cases = {
      {"overlapping: a first fragment inside a message",
       [&](Attacker& a) { a.send_fragments({{0, true, false, part}, {1, true, true, part}}); }},
      {"outside the window", [&](Attacker& a) { a.send_fragments({{500, true, true, part}}); }},
      {"oversized", [&](Attacker& a) { a.send_fragments({{0, true, true, std::vector<uint8_t>(1025, 1)}}); }},
      {"an acknowledgement of what was never sent",
       [&](Attacker& a) { a.send_section(std::vector<uint8_t>{1, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0}); }},
      {"a section cut short", [&](Attacker& a) { a.send_section(std::vector<uint8_t>{2, 50, 0, 1, 2}); }},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    SimHarness h(world, options(1));
    install_echo(h);
    h.start_all();
    h.run_for(1 * kS);
    Attacker a(h);
    const uint32_t id = a.id();
    ASSERT_NE(id, 0u);
    c.attack(a);
    EXPECT_EQ(h.server().character(id), nullptr);
    EXPECT_EQ(h.server().counters().get(Counter::kMessageViolations), 1u);
    EXPECT_EQ(a.disconnect(), proto::fb::DisconnectReason::MessageViolation);
    h.run_for(1 * kS);
    EXPECT_EQ(h.client(0).phase(), Phase::kConnected) << "the honest client plays on";
    EXPECT_EQ(h.server().counters().get(Counter::kMessagesReceived), 0u) << "nothing reached the game";
  }
}

TEST(Messages, APeerThatFillsTheReceiverOrNeverCompletesIsCutOff) {
  const World& world = arena_world();
  {
    // More than the receiver holds between two ticks (a window of 8 and a queue of 8 KiB: it holds
    // two windows, 16 KiB).
    HarnessOptions o = options(0);
    o.core.messages.limits.window = 8;
    o.core.messages.limits.queue_bytes = 8 * 1024;
    SimHarness h(world, o);
    install_echo(h);
    h.run_for(100 * kMs);
    Attacker a(h);
    const uint32_t id = a.id();
    const std::vector<uint8_t> kib(1000, 7);
    for (uint16_t s = 0; s < 20 && h.server().character(id); ++s) a.inject_fragments({{s, true, true, kib}});
    EXPECT_EQ(h.server().character(id), nullptr);
    EXPECT_EQ(h.server().counters().get(Counter::kMessageViolations), 1u);
  }
  {
    // The second half of a message whose first never comes.
    HarnessOptions o = options(0);
    o.core.messages.timeout = 2 * kS;
    SimHarness h(world, o);
    h.run_for(100 * kMs);
    Attacker a(h);
    const uint32_t id = a.id();
    a.send_fragments({{1, false, true, std::vector<uint8_t>(10, 1)}});
    h.run_for(1500 * kMs);
    EXPECT_NE(h.server().character(id), nullptr);
    h.run_for(1 * kS);
    EXPECT_EQ(h.server().character(id), nullptr);
    EXPECT_EQ(h.server().counters().get(Counter::kMessageTimeouts), 1u);
  }
}

TEST(Messages, AClientOverTheMessageRateIsCutOffAndAnHonestOneAtItIsNot) {
  // Issue #63: a client sent about 240 KB/s, four times message_rate, and every byte was recorded.
  const World& world = arena_world();
  {
    SimHarness h(world, options(0));
    install_echo(h);
    h.run_for(100 * kMs);
    Attacker a(h);
    const uint32_t id = a.id();
    const std::vector<uint8_t> kib(1000, 7);
    uint16_t s = 0;
    int ticks = 0;
    for (; ticks < 600 && h.server().character(id); ++ticks) {  // 4 KB a tick: 240 KB/s at 60 Hz
      for (int k = 0; k < 4; ++k, ++s) a.send_fragments({{s, true, true, kib}});
      h.run_for(16 * kMs);
    }
    EXPECT_EQ(h.server().character(id), nullptr) << "never cut off in " << ticks << " ticks";
    EXPECT_EQ(h.server().counters().get(Counter::kMessageViolations), 1u);
    EXPECT_EQ(a.disconnect(), proto::fb::DisconnectReason::MessageViolation);
    // Cut off once past its burst (0.6 s of the rate) and what the rate refilled meanwhile.
    EXPECT_LT(ticks, 120) << "cut off after " << ticks << " ticks";
  }
  {
    // A client that keeps its queue full sends at its rate, the server's: never cut off.
    SimHarness h(world, options(1));
    install_echo(h);
    h.start_all();
    h.run_for(1 * kS);
    uint32_t n = 0;
    for (int tick = 0; tick < 600; ++tick) {
      while (h.client(0).send_message(proto::Channel::kReliable, numbered(n, 3000)) == proto::SendError::kNone) ++n;
      h.run_for(16 * kMs);
    }
    EXPECT_GT(n, 150u) << "it sent at the rate for ten seconds";
    EXPECT_EQ(h.client(0).phase(), Phase::kConnected);
    EXPECT_EQ(h.server().counters().get(Counter::kMessageViolations), 0u);
  }
}

TEST(Messages, AForgedReplayedOrTruncatedCarrierChangesNothing) {
  const World& world = arena_world();
  SimHarness h(world, options(0));
  install_echo(h);
  h.run_for(100 * kMs);
  Attacker a(h);
  const uint32_t id = a.id();
  // One honest message section, sealed; then the same datagram again (a replay).
  std::vector<uint8_t> block(64);
  std::size_t used = 0;
  ASSERT_TRUE(proto::write_fragment(block, used, {0, true, true, std::vector<uint8_t>(10, 3)}));
  std::vector<uint8_t> carrier{proto::kCarrierKind, 0, 0, 2, uint8_t(used), 0};
  carrier.insert(carrier.end(), block.begin(), block.begin() + long(used));
  a.raw.send_compact(carrier);
  h.run_for(50 * kMs);
  EXPECT_EQ(h.server().counters().get(Counter::kMessagesReceived), 1u);
  // The replay: the datagram the raw client sealed last, sent again as it was.
  proto::DatagramBuffer tx;
  const auto sealed = proto::seal_session(a.raw.keys.send, a.raw.sequence, carrier, tx, proto::Payload::kCompact);
  a.raw.send_raw(sealed);
  // Truncated: a carrier whose length runs past its end (sealed properly: only the sender could).
  const uint64_t malformed_before = h.server().counters().get(Counter::kDropMalformed);
  a.raw.send_compact(std::vector<uint8_t>{proto::kCarrierKind, 200, 0, 1});
  // Forged: the same carrier sealed under another key.
  proto::Key other{};
  other[0] = 1;
  a.raw.send_raw(proto::seal_session(other, a.raw.sequence + 10, carrier, tx, proto::Payload::kCompact));
  h.run_for(50 * kMs);
  EXPECT_EQ(h.server().counters().get(Counter::kMessagesReceived), 1u) << "delivered once";
  EXPECT_EQ(h.server().counters().get(Counter::kDropReplayed), 1u);
  EXPECT_EQ(h.server().counters().get(Counter::kDropMalformed), malformed_before + 1);
  EXPECT_EQ(h.server().counters().get(Counter::kDropBadSeal), 1u);
  EXPECT_NE(h.server().character(id), nullptr) << "none of it ends the session";
  EXPECT_EQ(h.server().counters().get(Counter::kMessageViolations), 0u);
}

}  // namespace
}  // namespace foothold::test
