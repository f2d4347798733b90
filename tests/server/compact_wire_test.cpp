// The compact wire end to end, on the simulated network: snapshots within their byte budget with 48
// characters in view and every one of them kept fresh, the own state as a digest unless a
// correction is owed (or asked for), an expired baseline, and slower snapshot rates.

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include <gtest/gtest.h>

#include "proto/compact.h"
#include "support/raw_client.h"
#include "support/scenario_support.h"
#include "support/sim_harness.h"

namespace foothold::test {
namespace {

using server::Counter;
constexpr proto::Nanos kS = proto::kSecond;
constexpr proto::Nanos kMs = proto::kMillisecond;

// The largest snapshot datagram the server sends (the tap sees every datagram).
struct SnapshotSizes {
  std::size_t largest = 0, count = 0, total = 0;
  void watch(SimHarness& h) {
    h.network().set_tap([this](const proto::Endpoint& from, const proto::Endpoint&, std::span<const uint8_t> b) {
      if (from != SimHarness::server_endpoint() || proto::session_payload(b) != proto::Payload::kCompact) return;
      largest = std::max(largest, b.size());
      total += b.size();
      ++count;
    });
  }
};

// How far, horizontally, the newest view client `i` holds of each other character is from where the
// server has it: the largest such distance, in metres.
double worst_view_error(SimHarness& h, int i) {
  double worst = 0;
  for (const OtherCharacter& o : h.client(i).others()) {
    const CharacterState* s = h.server().character(o.id);
    if (!s) continue;
    const Vec3 a = to_position(o.position), b = to_position(s->position);
    worst = std::max(worst, std::hypot(a.x - b.x, a.z - b.z));
  }
  return worst;
}

void budget_run(int budget) {
  SCOPED_TRACE("budget " + std::to_string(budget));
  HarnessOptions o;
  o.clients = 49;
  o.core.snapshot_budget = budget;
  SimHarness h(arena_world(), o);
  SnapshotSizes sizes;
  sizes.watch(h);
  h.start_all();
  h.run_for(2 * kS);
  double worst = 0;
  for (int k = 0; k < 20; ++k) {  // sampled every 100 ms for 2 s
    h.run_for(100 * kMs);
    for (int i = 0; i < 49; i += 4) worst = std::max(worst, worst_view_error(h, i));
  }
  EXPECT_GT(sizes.count, 49u * 200u);
  EXPECT_LE(sizes.largest, size_t(budget)) << "no snapshot exceeds the budget";
  for (int i = 0; i < 49; i += 8) EXPECT_EQ(h.client(i).others().size(), 48u) << "client " << i << " sees all 48 others";
  // Wandering bots walk at most about 5 m/s: a character at most 500 ms (plus the round trip) out of
  // date is within 3 m of where it is.
  EXPECT_LT(worst, 3.0) << "every character in view is refreshed at least every 500 ms";
  for (int i = 0; i < 49; ++i) EXPECT_EQ(h.client(i).predictor().counters().unexplained, 0u) << "client " << i;
}

TEST(CompactWire, FortyEightInViewNeverExceedTheBudgetAndAllStayFresh) {
  budget_run(proto::kMinSnapshotBudget);
  budget_run(200);
}

TEST(CompactWire, OwnStateIsADigestUnlessACorrectionIsOwed) {
  HarnessOptions o;
  o.clients = 1;
  SimHarness h(arena_world(), o);
  h.start_all();
  h.run_for(3 * kS);
  const auto& c = h.server().counters();
  const uint64_t sent = c.get(Counter::kSnapshotsSent), full = c.get(Counter::kSnapshotsWithState);
  EXPECT_GT(sent, 150u);
  EXPECT_LE(full, 2u) << "alone and on time, the client's own state never needs sending";
  EXPECT_GT(h.client(0).stats().compared, 150u) << "digests confirm the predictions";
  EXPECT_EQ(h.client(0).predictor().counters().corrections, 0u);
  // Silence makes the server repeat inputs: a correction is owed, and the state goes in full until
  // the client acknowledges a snapshot that carried it.
  h.pause_client(0, true);
  h.run_for(300 * kMs);
  h.pause_client(0, false);
  h.run_for(1 * kS);
  EXPECT_GT(c.get(Counter::kSnapshotsWithState), full);
  EXPECT_GT(h.client(0).stats().snapshots_with_state, 0u);
  const auto& p = h.client(0).predictor().counters();
  EXPECT_GT(p.corrections, 0u);
  EXPECT_EQ(p.unexplained, 0u);
  const uint64_t after = c.get(Counter::kSnapshotsWithState);
  h.run_for(1 * kS);
  EXPECT_LE(c.get(Counter::kSnapshotsWithState), after + 2) << "and digests again once it is acknowledged";
}

TEST(CompactWire, AClientThatAsksGetsItsStateAndAnExpiredBaselineMeansNone) {
  SimHarness h(arena_world(), HarnessOptions{});
  RawClient raw(h, 6100, h.mint(777));
  ASSERT_TRUE(raw.join());
  // Inputs for the next 32 ticks at once: no input is repeated while they last.
  std::vector<InputCmd> ahead;
  for (uint32_t t = 1; t <= 32; ++t) {
    InputCmd in;
    in.tick = h.server().current_tick() + t;
    ahead.push_back(in);
  }
  raw.send_inputs(ahead);
  h.run_for(100 * kMs);
  const auto first = raw.last_snapshot();
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->base_tick, 0u) << "nothing acknowledged: no baseline";
  EXPECT_TRUE(first->has_own_state) << "inputs were repeated before ours came: a correction is owed";
  // Acknowledge it: the snapshots build on it, and the state is a digest again.
  raw.send_inputs({}, first->tick);
  h.run_for(20 * kMs);
  const auto second = raw.last_snapshot();
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ(second->base_tick, first->tick);
  EXPECT_FALSE(second->has_own_state);
  // Ask for the state.
  raw.send_inputs({}, second->tick, true);
  h.run_for(20 * kMs);
  const auto third = raw.last_snapshot();
  ASSERT_TRUE(third.has_value());
  EXPECT_TRUE(third->has_own_state);
  EXPECT_EQ(third->own.digest(), third->own_digest);
  EXPECT_EQ(*h.server().character(h.server().character_at(raw.self)), third->own) << "the server's exact state";
  // No acknowledgement for 70 snapshots: the one acknowledged has left the server's history.
  h.run_for(1200 * kMs);
  const auto later = raw.last_snapshot();
  ASSERT_TRUE(later.has_value());
  EXPECT_GT(later->tick - second->tick, uint32_t(proto::kBaseHistory));
  EXPECT_EQ(later->base_tick, 0u) << "the acknowledged snapshot has left the history";
}

TEST(CompactWire, ALongRoundTripStillFindsItsBase) {
  // 800 ms round trip: the acknowledged snapshot is 48 snapshots old when the server builds on it.
  // Were it out of the history, every snapshot would start from an empty view and, with 16 others and
  // the smallest budget, carry only the nearest that fit: the rest would blink out of view.
  HarnessOptions o;
  o.clients = 17;
  o.core.snapshot_budget = proto::kMinSnapshotBudget;
  o.core.client_timeout = 30 * kS;
  SimHarness h(arena_world(), o);
  client::Impairment slow;
  slow.latency = 400 * kMs;
  h.network().set_impairment(slow);
  h.start_all();
  // Seventeen joining at once fill their views over a few seconds: at this budget a snapshot has room
  // for a few additions (each names its player), sent again until a round trip later they are in
  // the base.
  h.run_for(6 * kS);
  std::size_t smallest = 16;
  for (int k = 0; k < 20; ++k) {
    h.run_for(50 * kMs);
    for (int i = 0; i < 17; ++i) smallest = std::min(smallest, h.client(i).others().size());
  }
  EXPECT_EQ(smallest, 16u) << "every client keeps all 16 others in view";
  for (int i = 0; i < 17; ++i) {
    EXPECT_EQ(h.client(i).stats().missing_delta_base, 0u) << "client " << i;
    EXPECT_EQ(h.client(i).predictor().counters().unexplained, 0u) << "client " << i;
    EXPECT_GT(h.client(i).stats().rtt_ms, 700.0) << "client " << i << ": its inputs reach the server in time";
  }
}

TEST(CompactWire, SlowerSnapshotRatesPlayCleanly) {
  for (int interval : {2, 3}) {
    SCOPED_TRACE("every " + std::to_string(interval) + " ticks");
    HarnessOptions o;
    o.clients = 4;
    o.core.snapshot_interval = interval;
    SimHarness h(arena_world(), o);
    h.start_all();
    h.run_for(3 * kS);
    expect_clean_play(h, 4);
    EXPECT_EQ(h.client(0).snapshot_interval(), uint32_t(interval));
    // The interpolation buffer follows the rate: one snapshot gap, and on this clean network
    // (no jitter, no loss) no more than the quarter tick of margin.
    EXPECT_EQ(h.client(0).interpolation_delay_ticks(), interval + 0.25) << "the interpolation buffer follows the rate";
    EXPECT_EQ(h.client(0).others().size(), 3u);
  }
}

TEST(CompactWire, AnImpairedNetworkStaysExplainedWithFewerBytes) {
  HarnessOptions o;
  o.clients = 8;
  SimHarness h(arena_world(), o);
  client::Impairment bad;
  bad.loss = 0.1;
  bad.duplicate = 0.02;
  bad.reorder = 0.05;
  bad.latency = 60 * kMs;
  bad.jitter = 20 * kMs;
  h.network().set_impairment(bad);
  SnapshotSizes sizes;
  sizes.watch(h);
  h.start_all();
  h.run_for(6 * kS);
  for (int i = 0; i < 8; ++i) {
    SCOPED_TRACE("client " + std::to_string(i));
    const auto& c = h.client(i);
    EXPECT_EQ(c.phase(), client::ClientSession::Phase::kConnected);
    EXPECT_EQ(c.predictor().counters().unexplained, 0u);
    EXPECT_GT(c.stats().compared, 100u);
    EXPECT_GT(c.stats().loss, 0.03) << "the client measures the loss";
    EXPECT_GT(c.stats().inputs_sent, 3 * c.stats().input_messages) << "and sends its inputs with more redundancy";
  }
  EXPECT_LE(sizes.largest, 200u);
}

}  // namespace
}  // namespace foothold::test
