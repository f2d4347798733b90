#pragma once
// The metrics and probe endpoints (#38), on their own thread:
//   GET /metrics  the last published snapshot in Prometheus's text format (server/metrics.h)
//   GET /healthz  200 while the tick loop is alive (a snapshot published within `stall_after`), else 503
//   GET /readyz   200 while ready for players (alive, ready and not draining), else 503
// The tick thread publishes; the HTTP thread only reads a copy under a lock, so a slow scrape never
// holds a tick, and a hung tick stops the snapshots, which fails /healthz.
//
// The port faces whatever can reach the pod, and the kubelet restarts a server whose /healthz does
// not answer (issue #63): a body was buffered whole and two slow clients held both of cpp-httplib's
// worker threads. So it is served by one Asio thread that never blocks on a peer, with the little
// HTTP of server/http_request.h: GET and HEAD only (anything else 405, its body never read), a
// request head of at most kMaxRequestHead bytes that must arrive whole within kHeadDeadline, an
// answer that must be taken within kWriteDeadline, one request per connection, and at most
// kMaxConnections open: a new connection over that closes the oldest, so a probe, which asks as it
// connects, is always answered. docker/agones/networkpolicy.yaml admits only the monitoring
// namespace and the kubelet to the port (docs/fleet.md, "Probes and metrics").

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "proto/clock.h"
#include "server/http_request.h"
#include "server/metrics.h"

namespace foothold::server {

class MetricsServer {
 public:
  /// Connections open at most; a new one over this closes the oldest.
  static constexpr std::size_t kMaxConnections = 16;
  /// From accept to the request head's last byte at most: a probe sends it at once.
  static constexpr proto::Nanos kHeadDeadline = proto::kSecond;
  /// From the request head to the answer's last byte taken by the peer at most.
  static constexpr proto::Nanos kWriteDeadline = 2 * proto::kSecond;

  /// Listens on `host`:`port` (port 0: a free one) and serves on a thread of its own; null, with
  /// `error` naming the address and why, when it cannot bind. /healthz fails once no snapshot has
  /// been published for `stall_after`.
  static std::unique_ptr<MetricsServer> start(const std::string& host, int port, proto::Nanos stall_after,
                                              std::string& error);
  /// Stops listening, closes every connection and joins the thread.
  ~MetricsServer();
  MetricsServer(const MetricsServer&) = delete;
  MetricsServer& operator=(const MetricsServer&) = delete;

  /// The port bound.
  int port() const { return port_; }
  /// The tick thread's word: the state after a tick, at steady time `now`.
  void publish(const MetricsSnapshot& snapshot, proto::Nanos now);
  /// Requests answered by an endpoint so far (a test's and a figure's measure).
  uint64_t requests() const { return requests_.load(); }
  /// Requests refused before an endpoint saw them (400, 405, 413, 431).
  uint64_t refused() const { return refused_.load(); }
  /// Connections closed for missing a deadline, or to make room under kMaxConnections.
  uint64_t cut_off() const { return cut_off_.load(); }
  /// Connections open now.
  std::size_t connections() const { return connections_.load(); }

  /// The answer to a request for `path` at steady time `now` (the routing, without a socket).
  Reply answer(const std::string& path, proto::Nanos now);

 private:
  struct Io;
  MetricsServer() = default;
  Reply health(proto::Nanos now) const;
  Reply readiness(proto::Nanos now) const;

  std::unique_ptr<Io> io_;
  std::thread thread_;
  int port_ = 0;
  proto::Nanos stall_after_ = 0;
  mutable std::mutex mutex_;
  MetricsSnapshot snapshot_;        // guarded by mutex_
  proto::Nanos published_at_ = -1;  // guarded by mutex_; -1 before the first
  std::atomic<uint64_t> requests_{0}, refused_{0}, cut_off_{0};
  std::atomic<std::size_t> connections_{0};
};

}  // namespace foothold::server
