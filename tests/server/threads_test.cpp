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

#include "server/worker_pool.h"
#include "support/scenario_support.h"
#include "support/sim_harness.h"
#include "support/test_seed.h"

namespace foothold::test {
namespace {

constexpr net::Nanos kS = net::kSecond;

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

TEST(WorkerPool, CoversTheRangeOnceInContiguousChunks) {
  server::WorkerPool pool(3);
  for (std::size_t count : {0u, 1u, 2u, 5u, 1000u}) {
    std::vector<int> hits(count, 0);
    std::mutex m;
    std::vector<std::pair<std::size_t, std::size_t>> chunks;
    pool.run(count, 1, [&](std::size_t b, std::size_t e, int w) {
      EXPECT_LT(b, e);
      EXPECT_TRUE(w >= 0 && w < 3) << w;
      for (std::size_t i = b; i < e; ++i) ++hits[i];
      std::lock_guard<std::mutex> lock(m);
      chunks.push_back({b, e});
    });
    for (std::size_t i = 0; i < count; ++i) EXPECT_EQ(hits[i], 1) << "index " << i << " of " << count;
    std::sort(chunks.begin(), chunks.end());
    for (std::size_t k = 1; k < chunks.size(); ++k) EXPECT_EQ(chunks[k - 1].second, chunks[k].first);
    if (count >= 1000) {
      EXPECT_GE(chunks.size(), 3u * 8u) << "small chunks, so that the threads share the work";
      EXPECT_LE(chunks.back().second - chunks.back().first, 2u)
          << "the chunks shrink toward the end, so a paused thread holds the others up only briefly";
    }
  }
  // Few items per thread: fewer threads.
  std::vector<int> owner(10, -1);
  pool.run(10, 8, [&](std::size_t b, std::size_t e, int w) {
    for (std::size_t i = b; i < e; ++i) owner[i] = w;
  });
  for (int o : owner) EXPECT_EQ(o, 0);
}

TEST(WorkerPool, JobsInQuickSuccessionAndAfterPausesEachRunWhole) {
  // Waiting threads first spin, then sleep: jobs back to back (caught while spinning) and jobs after
  // a pause longer than the spin (a sleeping worker woken) must each cover their range exactly once.
  server::WorkerPool pool(2);
  for (int job = 0; job < 400; ++job) {
    if (job % 50 == 49) std::this_thread::sleep_for(std::chrono::milliseconds(2));
    const std::size_t count = 64 + std::size_t(job % 7) * 100;
    std::atomic<std::size_t> sum{0};
    std::atomic<std::size_t> covered{0};
    pool.run(count, 1, [&](std::size_t b, std::size_t e, int) {
      for (std::size_t i = b; i < e; ++i) sum += i;
      covered += e - b;
    });
    ASSERT_EQ(covered.load(), count) << "job " << job;
    ASSERT_EQ(sum.load(), count * (count - 1) / 2) << "job " << job;
  }
}

TEST(WorkerPool, ASlowChunkDoesNotHoldUpTheRest) {
  // The chunk holding index 0 waits until every other index is done: the other threads must take
  // all of them (with one fixed share per thread, the caller's share would never finish and the
  // wait would time out).
  server::WorkerPool pool(2);
  constexpr std::size_t kCount = 400;
  std::atomic<std::size_t> done{0};
  std::atomic<bool> timed_out{false};
  std::atomic<std::size_t> first_end{0};
  pool.run(kCount, 1, [&](std::size_t b, std::size_t e, int) {
    if (b == 0) {
      first_end = e;
      const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
      while (done.load() < kCount - e && std::chrono::steady_clock::now() < give_up) std::this_thread::yield();
      timed_out = done.load() < kCount - e;
    }
    done += e - b;
  });
  EXPECT_LE(first_end.load(), kCount / 4) << "the caller's first chunk is a small part of the range";
  EXPECT_FALSE(timed_out) << "the other thread did not take the rest of the range";
  EXPECT_EQ(done.load(), kCount);
}

}  // namespace
}  // namespace foothold::test
