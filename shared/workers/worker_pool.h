#pragma once
// A fixed set of worker threads that split a range of indices among themselves: the server's tick
// runs the characters' steps and builds the snapshots on every core, and re-simulation steps a
// recording's characters on a pool of its own. The threads are started once, never per tick. Work is split into small
// contiguous chunks of the range (a share of what is left, so they shrink toward its end), each
// taken by whichever thread is free, so which thread does an
// index depends on scheduling: what each index computes must depend only on that index and on data
// no other index writes, and whatever a thread gathers must be put back in index order (or be a
// sum), so results are the same for any number of threads (the server's tests compare 1 thread with
// several, tick by tick).

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <thread>
#include <type_traits>
#include <vector>

#include "shared/parallel_for.h"

namespace foothold {

/// The server's worker threads (see the top of this file). Not copyable.
class WorkerPool final : public ParallelFor {
 public:
  /// `threads` in total, the calling thread included (1: no workers; everything runs in run()).
  /// Fewer than 1 counts as 1. The destructor stops and joins the workers.
  explicit WorkerPool(int threads);
  ~WorkerPool() override;
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  /// Threads in total, the calling one included (at least 1).
  int threads() const override { return threads_; }

  /// ParallelFor: run() through a RangeFn.
  void run(std::size_t count, std::size_t min_per_thread, RangeFn fn) override { run<RangeFn&>(count, min_per_thread, fn); }

  /// Calls fn(begin, end, worker) for contiguous chunks covering [0, count), each once, worker in
  /// [0, threads()) being the thread that runs it, and returns when all are done. Chunks go to
  /// whichever thread is free, in ascending order of begin. A thread that waits (for a job, or for
  /// the others to finish one) spins briefly before it sleeps. Ranges smaller
  /// than `min_per_thread` per thread use fewer threads (waking a thread costs microseconds).
  /// One run() at a time, from one thread; `fn` must not throw.
  template <typename Fn>
  void run(std::size_t count, std::size_t min_per_thread, Fn&& fn) {
    if (count == 0) return;
    const std::size_t wanted = min_per_thread == 0 ? std::size_t(threads_) : count / min_per_thread;
    const int used = int(std::max<std::size_t>(1, std::min<std::size_t>(std::size_t(threads_), wanted)));
    if (used == 1) {
      fn(std::size_t(0), count, 0);
      return;
    }
    dispatch(count, used, [](void* f, std::size_t b, std::size_t e, int w) { (*static_cast<std::remove_reference_t<Fn>*>(f))(b, e, w); }, &fn);
  }

 private:
  using Thunk = void (*)(void*, std::size_t, std::size_t, int);
  void dispatch(std::size_t count, int used, Thunk thunk, void* fn);
  void worker_loop(int index);
  void work(Thunk thunk, void* fn, std::size_t count, int used, int index);  // takes chunks until none is left

  int threads_;
  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable start_, done_;
  // The job being run (valid while pending_ > 0).
  Thunk thunk_ = nullptr;
  void* fn_ = nullptr;
  std::size_t count_ = 0;
  int used_ = 0;
  std::size_t grain_ = 1;                // the most indices a chunk holds
  std::atomic<std::size_t> next_{0};     // the first index no thread has taken yet
  // Bumped (under the mutex) for each job and for stopping; read without it by waiting threads.
  std::atomic<uint64_t> generation_{0};
  std::atomic<int> pending_{0};          // workers still on the job (changed under the mutex)
  bool stop_ = false;
};

}  // namespace foothold
