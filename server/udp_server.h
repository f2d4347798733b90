#pragma once
// Runs a ServerCore on a real UDP socket and the steady clock, with Asio.
//
// Ticks are scheduled at absolute times (start + k / tick_rate), so the tick clock does not drift.
// A tick that starts late is caught up: up to max_catchup ticks run back to back; beyond that the
// schedule slips (logged). SIGINT and SIGTERM stop the server at a tick boundary, as does the game's
// end_match(): the drain. New connects are refused, every client is told, the recorder is flushed,
// and run() returns.

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include <asio/io_context.hpp>
#include <asio/ip/udp.hpp>
#include <asio/signal_set.hpp>
#include <asio/steady_timer.hpp>
#include <spdlog/logger.h>

#include "server/agones_agent.h"
#include "server/metrics_server.h"
#include "server/server_core.h"
#include "server/udp_sink.h"
#include "shared/percentile.h"

namespace foothold::server {

using proto::steady_now;


/// Drains every datagram waiting on a non-blocking socket into `handler`, at most `limit` at a time
/// (with recvmmsg, many per system call). Receive buffers are 8-byte aligned, as the FlatBuffers
/// verifier wants. The bytes live in thread-local buffers, valid only during the call (so `handler`
/// must not call drain_socket); a datagram over 2048 bytes is cut short. Returns when nothing is
/// waiting or `limit` datagrams (receive errors included) have been handled.
void drain_socket(asio::ip::udp::socket& socket, std::size_t limit,
                  const std::function<void(const proto::Endpoint&, std::span<const uint8_t>)>& handler);

/// The server's socket, tick timer, stats line and signals, on one io_context. Keeps a reference to
/// `io` (it must outlive the server) and, while run() runs, a pointer to its core.
class UdpServer {
 public:
  /// Where to listen and how to tick.
  struct Options {
    /// Address and port to bind; an IPv6 address binds dual-stack (IPv4 peers too).
    proto::Endpoint bind;
    /// Ticks per second.
    int tick_rate = 60;
    double stats_interval = 5;  ///< seconds
    /// Late ticks run back to back before the schedule slips.
    int max_catchup_ticks = 5;
  };

  /// Binds the socket (throws asio::system_error when it cannot), non-blocking with 8 MiB buffers,
  /// and takes over SIGINT and SIGTERM for this io_context.
  UdpServer(asio::io_context& io, const Options& options, std::shared_ptr<spdlog::logger> log);

  /// The sink the core must send through (owned by the server; batched and flushed after each tick
  /// and each burst of received datagrams).
  proto::DatagramSink& sink() { return sink_; }
  /// The address actually bound (port 0 picks a free one).
  proto::Endpoint local_endpoint() const { return socket_.local_endpoint(); }

  /// Serves until a signal (or request_stop()); then shuts the core down and calls `on_stopped`.
  /// Runs the io_context on the calling thread, which does every receive and tick; `core` must
  /// outlive the call. `on_stopped` is the place to close a recording.
  void run(ServerCore& core, const std::function<void()>& on_stopped = {});
  /// Stops at the next tick boundary (thread-safe: posts to the io_context).
  void request_stop();
  /// Publishes the state to `metrics` after every tick (null: none), with `max_clients` for the
  /// gauge. Call before run(); `metrics` must outlive it.
  void set_metrics(MetricsServer* metrics, std::size_t max_clients) {
    metrics_ = metrics;
    max_clients_ = max_clients;
  }

  /// Tells `agent` of every tick (alive, and the clients) and puts its state in the metrics (null:
  /// none). Call before run(); `agent` must outlive it.
  void set_agones(AgonesAgent* agent) { agones_ = agent; }

  /// The stats line's figures since the previous line.
  struct Window {
    /// Unused: the stats line measures the window's length itself.
    double seconds = 0;
    std::vector<double> tick_us;  ///< durations of the ticks run (wall clock)
    std::vector<double> cpu_us;   ///< CPU time the server thread used for each of those ticks
    uint64_t overruns = 0;        ///< ticks that started more than a tick late
    uint64_t slipped = 0;         ///< ticks the schedule gave up on
  };

 private:
  void schedule_tick();
  void on_tick_timer();
  void start_receive();
  void log_stats();
  void publish_metrics(bool draining);

  asio::io_context& io_;
  Options options_;
  std::shared_ptr<spdlog::logger> log_;
  asio::ip::udp::socket socket_;
  UdpSink sink_{socket_, /*batch=*/true};
  asio::steady_timer tick_timer_;
  asio::steady_timer stats_timer_;
  asio::signal_set signals_;
  ServerCore* core_ = nullptr;
  std::function<void()> on_stopped_;
  proto::Nanos period_ = 0;
  proto::Nanos next_tick_ = 0;
  bool stop_requested_ = false;
  bool stopped_ = false;
  Window window_;
  proto::Nanos window_start_ = 0;
  Counters last_counters_;
  proto::Nanos sender_cpu_mark_ = 0;
  uint64_t gso_sends_mark_ = 0;      // the sink's segmented sends and their datagrams at the last stats line
  uint64_t gso_datagrams_mark_ = 0;
  MetricsServer* metrics_ = nullptr;
  std::size_t max_clients_ = 0;
  AgonesAgent* agones_ = nullptr;
  TickHistogram tick_histogram_;  // every tick since the start, for /metrics
};

}  // namespace foothold::server
