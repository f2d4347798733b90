// The worker pool (shared/workers/): every index of a range once, in contiguous chunks that any
// free thread takes, whatever the timing.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

#include "shared/workers/worker_pool.h"

namespace foothold::test {
namespace {

TEST(WorkerPool, CoversTheRangeOnceInContiguousChunks) {
  WorkerPool pool(3);
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
  WorkerPool pool(2);
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
  WorkerPool pool(2);
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
