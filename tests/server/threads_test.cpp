// The server's tick on several threads: the characters' steps and the snapshots are split among
// workers, and everything that comes out (every state, every input consumed, every snapshot a client
// gets) is the same as on one thread.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "support/scenario_support.h"
#include "support/sim_harness.h"
#include "support/test_seed.h"

namespace foothold::test {
namespace {

constexpr proto::Nanos kS = proto::kSecond;

struct Recorder final : server::TickObserver {
  std::vector<server::CharacterTick> ticks;
  std::vector<uint32_t> tick_numbers;
  void on_tick(const server::TickRecord& r) override {
    tick_numbers.push_back(r.tick);
    ticks.insert(ticks.end(), r.characters.begin(), r.characters.end());
  }
};

struct Outcome {
  std::vector<server::CharacterTick> ticks;
  std::vector<uint64_t> client_figures;  // per client: snapshots, compared, matched, corrections, remotes seen
  uint64_t snapshots_sent = 0, inputs_consumed = 0, inputs_repeated = 0;
};

Outcome play(int threads, int clients) {
  HarnessOptions o;
  o.clients = clients;
  o.core.threads = threads;
  o.core.max_clients = 256;
  o.seed = test_seed(9);
  SimHarness h(arena_world(), o);
  Recorder rec;
  h.server().set_observer(&rec);
  // Joins spread over the first second, then play: the interest grid, deltas and joins mid-tick.
  for (int i = 0; i < clients; ++i) {
    h.start_client(i);
    h.run_for(kS / clients);
  }
  h.run_for(3 * kS);
  Outcome out;
  out.ticks = rec.ticks;
  for (int i = 0; i < clients; ++i) {
    const auto& c = h.client(i);
    EXPECT_EQ(c.phase(), client::ClientSession::Phase::kConnected) << c.reason_text();
    out.client_figures.insert(out.client_figures.end(),
                              {c.stats().snapshots, c.stats().compared, c.predictor().counters().matched,
                               c.predictor().counters().corrections, c.remotes().size(), c.stats().missing_delta_base});
  }
  out.snapshots_sent = h.server().counters().get(server::Counter::kSnapshotsSent);
  out.inputs_consumed = h.server().counters().get(server::Counter::kInputsConsumed);
  out.inputs_repeated = h.server().counters().get(server::Counter::kInputsRepeated);
  return out;
}

bool same(const server::CharacterTick& a, const server::CharacterTick& b) {
  return a.id == b.id && a.input == b.input && a.repeated == b.repeated && a.state == b.state;
}

TEST(Threads, EveryThreadCountGivesTheSameTicksAndSnapshotsAsOne) {
  // 160 clients: enough for the steps to be split (64 a thread at least) and more than a snapshot
  // holds (48 others), so interest selection runs on the workers too.
  const Outcome one = play(1, 160);
  ASSERT_GT(one.ticks.size(), 160u * 150);
  EXPECT_GT(one.snapshots_sent, 160u * 150);
  for (int threads : {2, 3, 4}) {
    const Outcome many = play(threads, 160);
    ASSERT_EQ(many.ticks.size(), one.ticks.size()) << threads << " threads";
    size_t differing = 0;
    for (size_t i = 0; i < one.ticks.size(); ++i) differing += !same(one.ticks[i], many.ticks[i]);
    EXPECT_EQ(differing, 0u) << threads << " threads";
    EXPECT_EQ(many.client_figures, one.client_figures) << threads << " threads";
    EXPECT_EQ(many.snapshots_sent, one.snapshots_sent) << threads << " threads";
    EXPECT_EQ(many.inputs_consumed, one.inputs_consumed) << threads << " threads";
    EXPECT_EQ(many.inputs_repeated, one.inputs_repeated) << threads << " threads";
  }
}

}  // namespace
}  // namespace foothold::test
