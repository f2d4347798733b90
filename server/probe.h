#pragma once
// A status probe: the health check's question to a server, through the same cookie handshake as
// any client (Hello, Challenge, StatusRequest, Status).

#include <cstdint>
#include <string>

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
  double rtt_ms = 0;  ///< hello to status
};

/// Asks `server` for its status; gives up after `timeout`.
ProbeResult probe_server(const net::Endpoint& server, net::Nanos timeout);

}  // namespace foothold::server
