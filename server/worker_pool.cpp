#include "server/worker_pool.h"

#include <algorithm>

namespace foothold::server {

namespace {
// Chunk w of `used` over [0, count): as equal as integers allow.
std::pair<std::size_t, std::size_t> chunk(std::size_t count, int used, int w) {
  return {count * std::size_t(w) / std::size_t(used), count * std::size_t(w + 1) / std::size_t(used)};
}
}  // namespace

WorkerPool::WorkerPool(int threads) : threads_(std::max(1, threads)) {
  for (int i = 1; i < threads_; ++i) workers_.emplace_back([this, i] { worker_loop(i); });
}

WorkerPool::~WorkerPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
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
    pending_ = used - 1;
    ++generation_;
  }
  start_.notify_all();
  const auto [b, e] = chunk(count, used, 0);
  thunk(fn, b, e, 0);
  std::unique_lock<std::mutex> lock(mutex_);
  done_.wait(lock, [this] { return pending_ == 0; });
}

void WorkerPool::worker_loop(int index) {
  uint64_t seen = 0;
  while (true) {
    Thunk thunk;
    void* fn;
    std::size_t count;
    int used;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      start_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
      if (index >= used_) continue;  // not needed for this job
      thunk = thunk_;
      fn = fn_;
      count = count_;
      used = used_;
    }
    const auto [b, e] = chunk(count, used, index);
    thunk(fn, b, e, index);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      --pending_;
    }
    done_.notify_one();
  }
}

}  // namespace foothold::server
