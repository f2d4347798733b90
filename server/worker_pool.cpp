#include "server/worker_pool.h"

#include <algorithm>

namespace foothold::server {

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
    // Small chunks, taken in turn by whoever is free: a crowded stretch of the range does not hold
    // one thread up while the others wait (a fixed split left a third of the second core idle).
    grain_ = std::clamp<std::size_t>(count / (std::size_t(used) * 8), 1, 64);
    next_.store(0, std::memory_order_relaxed);
    ++generation_;
  }
  start_.notify_all();
  work(thunk, fn, count, 0);
  std::unique_lock<std::mutex> lock(mutex_);
  done_.wait(lock, [this] { return pending_ == 0; });
}

void WorkerPool::work(Thunk thunk, void* fn, std::size_t count, int index) {
  while (true) {
    const std::size_t b = next_.fetch_add(grain_, std::memory_order_relaxed);
    if (b >= count) return;
    thunk(fn, b, std::min(count, b + grain_), index);
  }
}

void WorkerPool::worker_loop(int index) {
  uint64_t seen = 0;
  while (true) {
    Thunk thunk;
    void* fn;
    std::size_t count;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      start_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
      if (index >= used_) continue;  // not needed for this job
      thunk = thunk_;
      fn = fn_;
      count = count_;
    }
    work(thunk, fn, count, index);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      --pending_;
    }
    done_.notify_one();
  }
}

}  // namespace foothold::server
