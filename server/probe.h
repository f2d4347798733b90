#pragma once
// A status probe: the health check's question to a server. It carries a connect token like a
// connection attempt (StatusRequest) and the server answers with a Status sealed under the token's
// key, so nobody else can answer for the server. Status replies have their own rate limit, apart
// from connection attempts, so a flood of those does not fail the health check.

#include <cstdint>
#include <string>

#include "proto/token.h"
#include "server/net_types.h"

namespace foothold::server {

struct ProbeResult {
  bool ok = false;
  std::string error;  ///< what went wrong when !ok
  uint32_t tick = 0;
  uint32_t clients = 0;
  uint32_t max_clients = 0;
  uint64_t uptime_ms = 0;
  uint64_t world_hash = 0;
  uint64_t settings_hash = 0;
  double rtt_ms = 0;  ///< request to status
};

/// Asks `server` for its status with `token` (valid for that address); gives up after `timeout`.
ProbeResult probe_server(const net::Endpoint& server, const proto::ConnectToken& token, net::Nanos timeout);

}  // namespace foothold::server
