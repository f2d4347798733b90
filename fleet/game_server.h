#pragma once
// What a game server knows of itself in Agones: its GameServer record as the SDK sidecar reports it
// (GET /gameserver, and each line of GET /watch/gameserver), reduced to what Foothold uses.

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace foothold::fleet {

/// Key-value pairs sorted by key (labels, annotations): one order for every run, whatever order the
/// JSON had.
using Metadata = std::vector<std::pair<std::string, std::string>>;

/// One port of the GameServer's status: the port players reach (a node's port with portPolicy Dynamic).
struct GameServerPort {
  std::string name;
  int port = 0;
};

/// The GameServer record.
struct GameServerInfo {
  std::string name;
  /// "Scheduled", "RequestReady", "Ready", "Reserved", "Allocated", "Shutdown", "Unhealthy", ...
  std::string state;
  /// The address players reach the server at (the node's): an IP address, or a DNS name on some
  /// clusters; empty before the pod is scheduled.
  std::string address;
  std::vector<GameServerPort> ports;
  Metadata labels;
  Metadata annotations;
  /// The `players` Counter's count and capacity; -1 when the GameServer declares no such Counter.
  int64_t players = -1;
  int64_t player_capacity = -1;
};

/// Parses a GameServer as the sidecar's REST gateway writes it (`text`; a watch line's {"result": ...}
/// wrapper is taken off). False, with `error` saying why, when it is not JSON or not a GameServer.
bool parse_game_server(std::string_view text, GameServerInfo& out, std::string& error);

}  // namespace foothold::fleet
