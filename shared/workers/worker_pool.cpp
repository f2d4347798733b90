#include "shared/workers/worker_pool.h"

#include <algorithm>
#include <chrono>

namespace foothold {

namespace {

// How long a thread that waits for the others (for a job, or for a job's end) keeps checking before
// it sleeps. A tick runs two jobs a few hundred microseconds apart, and waking a sleeping thread
// costs tens of microseconds on a busy machine, more than the wait itself. Between ticks the wait is
// long and the thread sleeps after this, so spinning costs one core this long per job at most.
constexpr auto kSpin = std::chrono::microseconds(200);

// Calls done() until it is true or kSpin has passed; returns its last answer.
template <typename Done>
bool spin_until(Done&& done) {
  const auto give_up = std::chrono::steady_clock::now() + kSpin;
  for (int i = 0;; ++i) {
    if (done()) return true;
    if ((i & 63) == 63 && std::chrono::steady_clock::now() >= give_up) return false;
  }
}

}  // namespace

WorkerPool::WorkerPool(int threads) : threads_(std::max(1, threads)) {
  for (int i = 1; i < threads_; ++i) workers_.emplace_back([this, i] { worker_loop(i); });
}

WorkerPool::~WorkerPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
    generation_.fetch_add(1, std::memory_order_release);
  }
  start_.notify_all();
  for (auto& t : workers_) t.join();
}

void WorkerPool::dispatch(std::size_t count, int used, Thunk thunk, void* fn) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    thunk_ = thunk;
    fn_ = fn;
    count_ = count;
    used_ = used;
    pending_.store(used - 1, std::memory_order_relaxed);
    // Small chunks, taken in turn by whoever is free: a crowded stretch of the range does not hold
    // one thread up while the others wait (a fixed split left a third of the second core idle).
    grain_ = std::clamp<std::size_t>(count / (std::size_t(used) * 8), 1, 64);
    next_.store(0, std::memory_order_relaxed);
    generation_.fetch_add(1, std::memory_order_release);
  }
  start_.notify_all();
  work(thunk, fn, count, used, 0);
  if (spin_until([this] { return pending_.load(std::memory_order_acquire) == 0; })) return;
  std::unique_lock<std::mutex> lock(mutex_);
  done_.wait(lock, [this] { return pending_.load(std::memory_order_acquire) == 0; });
}

void WorkerPool::work(Thunk thunk, void* fn, std::size_t count, int used, int index) {
  std::size_t b = next_.load(std::memory_order_relaxed);
  while (b < count) {
    // Guided: a chunk is a share of what is left (at most grain_), so the last ones are small and a
    // thread the system pauses while it holds one keeps the others waiting only briefly.
    const std::size_t size = std::clamp<std::size_t>((count - b) / (std::size_t(used) * 2), 1, grain_);
    if (!next_.compare_exchange_weak(b, b + size, std::memory_order_relaxed)) continue;
    thunk(fn, b, b + size, index);
    b = next_.load(std::memory_order_relaxed);
  }
}

void WorkerPool::worker_loop(int index) {
  uint64_t seen = 0;
  while (true) {
    Thunk thunk;
    void* fn;
    std::size_t count;
    int used;
    spin_until([&] { return generation_.load(std::memory_order_acquire) != seen; });
    {
      std::unique_lock<std::mutex> lock(mutex_);
      start_.wait(lock, [&] { return generation_.load(std::memory_order_relaxed) != seen; });
      if (stop_) return;
      seen = generation_.load(std::memory_order_relaxed);
      if (index >= used_) continue;  // not needed for this job
      thunk = thunk_;
      fn = fn_;
      count = count_;
      used = used_;
    }
    work(thunk, fn, count, used, index);
    {
      // Under the lock, so that the caller cannot miss the wake-up between its check and its wait.
      std::lock_guard<std::mutex> lock(mutex_);
      pending_.fetch_sub(1, std::memory_order_acq_rel);
    }
    done_.notify_one();
  }
}

}  // namespace foothold
