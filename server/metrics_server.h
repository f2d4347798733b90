#pragma once
// The metrics and probe endpoints (#38), on their own thread with Debian's cpp-httplib:
//   GET /metrics  the last published snapshot in Prometheus's text format (server/metrics.h)
//   GET /healthz  200 while the tick loop is alive (a snapshot published within `stall_after`), else 503
//   GET /readyz   200 while ready for players (alive, ready and not draining), else 503
// The tick thread publishes; the HTTP thread only reads a copy under a lock, so a slow scrape never
// holds a tick, and a hung tick stops the snapshots, which fails /healthz.

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "proto/clock.h"
#include "server/metrics.h"

namespace httplib {
class Server;
}

namespace foothold::server {

class MetricsServer {
 public:
  /// Listens on `host`:`port` (port 0: a free one) and serves on a thread of its own; null, with
  /// `error` naming the address and why, when it cannot bind. /healthz fails once no snapshot has
  /// been published for `stall_after`.
  static std::unique_ptr<MetricsServer> start(const std::string& host, int port, proto::Nanos stall_after,
                                              std::string& error);
  /// Stops listening and joins the thread.
  ~MetricsServer();
  MetricsServer(const MetricsServer&) = delete;
  MetricsServer& operator=(const MetricsServer&) = delete;

  /// The port bound.
  int port() const { return port_; }
  /// The tick thread's word: the state after a tick, at steady time `now`.
  void publish(const MetricsSnapshot& snapshot, proto::Nanos now);
  /// Requests served so far (a test's and a figure's measure).
  uint64_t requests() const { return requests_.load(); }

 private:
  MetricsServer() = default;
  struct Probe {
    int status;
    std::string body;
  };
  Probe health(proto::Nanos now) const;
  Probe readiness(proto::Nanos now) const;

  std::unique_ptr<httplib::Server> http_;
  std::thread thread_;
  int port_ = 0;
  proto::Nanos stall_after_ = 0;
  mutable std::mutex mutex_;
  MetricsSnapshot snapshot_;        // guarded by mutex_
  proto::Nanos published_at_ = -1;  // guarded by mutex_; -1 before the first
  std::atomic<uint64_t> requests_{0};
};

}  // namespace foothold::server
