#pragma once
// The server's side of the Agones lifecycle (#38, docs/fleet.md), over the SDK sidecar's REST API
// (fleet/agones_sdk.h), on threads of its own so that a slow or missing sidecar never holds a tick:
//   - Ready once started (the program starts the agent once its world is loaded and its socket
//     bound), retried with back-off while the sidecar cannot be reached;
//   - Health every health_interval from a thread that withholds it while the tick loop stalls (no
//     publish() for stall_after): a hung tick fails Agones' health check;
//   - the GameServer watched: its address and port handed to the server for tokens to name, and the
//     allocation (labels, annotations) handed to the game, once;
//   - the `players` Counter kept at the number of clients, its capacity at max_clients;
//   - once allocated, no client for idle_shutdown: the match is over (the stop hook);
//   - at the end of the drain, Shutdown.
// The tick thread only calls publish(), which takes a lock for a few stores.

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include <spdlog/logger.h>

#include "fleet/agones_sdk.h"
#include "proto/clock.h"
#include "server/game.h"

namespace foothold::server {

struct AgonesOptions {
  std::string host = "127.0.0.1";  ///< the sidecar, on the pod's localhost
  int port = fleet::kDefaultSdkHttpPort;
  proto::Nanos health_interval = 2 * proto::kSecond;
  /// Once allocated, this long without a client ends the match; 0: never.
  proto::Nanos idle_shutdown = 60 * proto::kSecond;
  /// The tick loop counts as stalled once no tick has been published for this long.
  proto::Nanos stall_after = proto::kSecond;
  /// The players Counter's capacity: the server's max_clients.
  int capacity = 64;
};

/// What the agent asks of the server. Called on the agent's threads: each must be thread-safe (post
/// to the io thread).
struct AgonesHooks {
  /// The GameServer's status names where clients reach it: HOST:PORT (HOST may be a DNS name).
  std::function<void(const std::string& host, int port)> address;
  /// The GameServer became Allocated (called once): its record then.
  std::function<void(const fleet::GameServerInfo&)> allocated;
  /// The match is over by the agent's judgement (`why`, for the log): drain and stop.
  std::function<void(const std::string& why)> stop;
};

/// The allocation as the game is handed it: the GameServer's labels and annotations, within what a
/// recording keeps (replay::kMaxAllocationEntries of each, keys and values of at most
/// replay::kMaxAllocationText bytes; what is beyond is left out and said in `dropped`), so that a
/// replay hands the game exactly the same.
Allocation game_allocation(const fleet::GameServerInfo& gs, std::string& dropped);

class AgonesAgent {
 public:
  AgonesAgent(AgonesOptions options, std::shared_ptr<spdlog::logger> log, AgonesHooks hooks);
  /// Stops every thread (without Shutdown: that is shutdown()'s).
  ~AgonesAgent();
  AgonesAgent(const AgonesAgent&) = delete;
  AgonesAgent& operator=(const AgonesAgent&) = delete;

  /// Starts the threads: Ready first (retried until it lands), then the rest.
  void start();
  /// The tick thread's word after every tick: alive at steady time `now`, with `clients` connected.
  void publish(proto::Nanos now, std::size_t clients);
  /// The end of a drain: stops health and the watch, calls Shutdown (retried until steady time
  /// `deadline`) and joins every thread. True when the sidecar took it.
  bool shutdown(proto::Nanos deadline);
  /// The GameServer's state as last seen ("" before any: the sidecar not reached yet).
  std::string state() const;
  /// Health pings the sidecar took (a test's and a figure's measure).
  uint64_t health_sent() const { return health_sent_.load(); }

 private:
  // Stops and joins every thread (idempotent).
  void stop_threads();
  void lifecycle_loop();
  void health_loop();
  void watch_loop();
  void on_game_server(const fleet::GameServerInfo& gs);
  void sync_players();
  // Waits up to `d` or until stopping; true when stopping.
  bool sleep_for(proto::Nanos d);

  AgonesOptions options_;
  std::shared_ptr<spdlog::logger> log_;
  AgonesHooks hooks_;
  fleet::AgonesSdk sdk_;

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;               // guarded by mutex_
  bool ready_ = false;                  // guarded by mutex_: Ready landed
  std::string state_;                   // guarded by mutex_
  std::string address_;                 // guarded by mutex_: the last address handed over
  bool allocated_ = false;              // guarded by mutex_
  proto::Nanos last_tick_ = 0;          // guarded by mutex_
  proto::Nanos last_occupied_ = 0;      // guarded by mutex_: a client was there (or the allocation came)
  std::size_t clients_ = 0;             // guarded by mutex_
  bool idle_stopped_ = false;           // the lifecycle thread's
  bool has_counter_ = true;             // the lifecycle thread's: the GameServer declares `players`
  int64_t counted_ = -1;                // the lifecycle thread's: the count the sidecar has
  std::atomic<uint64_t> health_sent_{0};
  std::thread lifecycle_, health_, watch_;
};

}  // namespace foothold::server
