#pragma once
// The Agones SDK sidecar's REST API on localhost, with Debian's cpp-httplib as the HTTP client.
// Each call opens a connection of its own, so calls may come from several threads at once (health
// from one, the watch from another); each is bounded by the timeout given at construction.

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "fleet/game_server.h"

namespace httplib {
class Client;
}

namespace foothold::fleet {

/// A call's outcome: ok, or why not (the sidecar's own message when it gave one).
struct SdkResult {
  bool ok = false;
  std::string error;
};

class AgonesSdk {
 public:
  /// The sidecar at `host`:`port`; every call gives up after `timeout`.
  AgonesSdk(std::string host, int port, std::chrono::milliseconds timeout);
  ~AgonesSdk();
  AgonesSdk(const AgonesSdk&) = delete;
  AgonesSdk& operator=(const AgonesSdk&) = delete;

  /// "HOST:PORT", for messages.
  std::string where() const;

  SdkResult ready();
  SdkResult health();
  SdkResult shutdown();
  /// Moves the GameServer to Allocated: what the cluster's allocator does; the local sidecar's way to
  /// stand in for it (tests).
  SdkResult allocate();
  SdkResult game_server(GameServerInfo& out);
  /// Sets Counter `name`'s count, or its capacity (PATCH /v1beta1/counters/NAME).
  SdkResult set_counter_count(const std::string& name, int64_t count);
  SdkResult set_counter_capacity(const std::string& name, int64_t capacity);

  /// Streams GET /watch/gameserver, calling `on_update` for each GameServer the sidecar sends (the
  /// first is the current record), on the calling thread. Returns when the stream ends or fails, or
  /// once stop_watch() is called (from any thread); ok only for the last.
  SdkResult watch(const std::function<void(const GameServerInfo&)>& on_update);
  /// Ends a watch() in progress, or the next one at once.
  void stop_watch();

 private:
  SdkResult post(const char* path, const std::string& body, std::string* response = nullptr);
  SdkResult call(const char* method, const std::string& path, const std::string& body, std::string* response);

  std::string host_;
  int port_;
  std::chrono::milliseconds timeout_;
  std::mutex watch_mutex_;
  httplib::Client* watching_ = nullptr;  // guarded by watch_mutex_
  std::atomic<bool> watch_stopped_{false};
};

/// The sidecar's HTTP port from AGONES_SDK_HTTP_PORT: nothing when it is unset or empty; `error`
/// names the variable when it is set but not a port.
std::optional<int> sdk_port_from_environment(std::string& error);

/// The REST gateway's default port, used with --agones when AGONES_SDK_HTTP_PORT is unset.
inline constexpr int kDefaultSdkHttpPort = 9358;

}  // namespace foothold::fleet
