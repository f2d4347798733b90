#pragma once
// The hook through which a tick spreads its steps over threads. The simulation starts no thread of
// its own (a game's client links it); whoever runs a tick and owns threads (the server's worker
// pool, re-simulation's) hands them in through this interface, and without one the tick runs on the
// calling thread. Results never depend on which: see tick.h.

#include <cstddef>
#include <type_traits>

namespace foothold {

/// A callable fn(begin, end, worker) without ownership or allocation (a function_ref): the caller
/// keeps the callable alive for the call.
class RangeFn {
 public:
  template <typename Fn>
    requires(!std::is_same_v<std::remove_cvref_t<Fn>, RangeFn>)
  RangeFn(Fn& fn)  // NOLINT: implicit, so that run(n, m, lambda) reads naturally
      : object_(&fn), call_([](void* f, std::size_t b, std::size_t e, int w) { (*static_cast<Fn*>(f))(b, e, w); }) {}
  void operator()(std::size_t begin, std::size_t end, int worker) const { call_(object_, begin, end, worker); }

 private:
  void* object_;
  void (*call_)(void*, std::size_t, std::size_t, int);
};

/// Runs fn over a range of indices on some threads.
class ParallelFor {
 public:
  virtual ~ParallelFor() = default;
  /// Threads run() may use, the calling one included (at least 1): a worker index is below it.
  virtual int threads() const = 0;
  /// Calls fn(begin, end, worker) for contiguous chunks covering [0, count), each index once, and
  /// returns when all are done. `worker` in [0, threads()) names the thread that runs the chunk (two
  /// chunks with the same worker never run at once); which thread gets which chunk may vary from run
  /// to run. Fewer threads are used when there are fewer than `min_per_thread` indices per thread.
  virtual void run(std::size_t count, std::size_t min_per_thread, RangeFn fn) = 0;
};

}  // namespace foothold
