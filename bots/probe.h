#pragma once
// A status probe: the health check's question to a server. It carries a connect token like a
// connection attempt (StatusRequest) and the server answers with a Status sealed under the token's
// key, so nobody else can answer for the server. Status replies have their own rate limit, apart
// from connection attempts, so a flood of those does not fail the health check.

#include <cstdint>
#include <string>

#include "proto/token.h"
#include "proto/endpoint.h"

namespace foothold::bots {

/// What a status probe learned.
struct ProbeResult {
  /// True when a Status arrived (a sealed Reject or silence leaves it false).
  bool ok = false;
  std::string error;  ///< what went wrong when !ok
  /// The server's last simulated tick.
  uint32_t tick = 0;
  /// Clients connected.
  uint32_t clients = 0;
  /// The most clients the server takes.
  uint32_t max_clients = 0;
  /// Milliseconds since the server's core started.
  uint64_t uptime_ms = 0;
  /// The server's World::hash(): a client with another world is refused.
  uint64_t world_hash = 0;
  /// The server's MoveSettings::hash(): a client with other settings is refused.
  uint64_t settings_hash = 0;
  double rtt_ms = 0;  ///< request to status
};

/// Asks `server` for its status with `token` (valid for that address); gives up after `timeout`.
/// Blocks the calling thread, on a socket of its own; resends the request every 200 ms. `rtt_ms`
/// counts from the first request, so a lost request adds a resend's wait to it.
ProbeResult probe_server(const proto::Endpoint& server, const proto::ConnectToken& token, proto::Nanos timeout);

}  // namespace foothold::bots
