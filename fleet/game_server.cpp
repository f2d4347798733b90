#include "fleet/game_server.h"

#include <algorithm>
#include <charconv>

#include <nlohmann/json.hpp>

namespace foothold::fleet {

namespace {

using nlohmann::json;

std::string string_at(const json& object, const char* key) {
  const auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// The gateway writes 64-bit integers as strings ("count": "3") and smaller ones as numbers.
int64_t integer_at(const json& object, const char* key, int64_t missing) {
  const auto it = object.find(key);
  if (it == object.end()) return missing;
  if (it->is_number_integer()) return it->get<int64_t>();
  if (!it->is_string()) return missing;
  const std::string& s = it->get_ref<const std::string&>();
  int64_t value = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  return ec == std::errc() && end == s.data() + s.size() ? value : missing;
}

Metadata metadata_at(const json& object, const char* key) {
  Metadata out;
  const auto it = object.find(key);
  if (it == object.end() || !it->is_object()) return out;
  for (const auto& [k, v] : it->items())
    if (v.is_string()) out.emplace_back(k, v.get<std::string>());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

bool parse_game_server(std::string_view text, GameServerInfo& out, std::string& error) {
  json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) {
    error = "not a JSON object";
    return false;
  }
  if (const auto result = doc.find("result"); result != doc.end()) {
    if (!result->is_object()) {
      error = "its result is not an object";
      return false;
    }
    doc = json(*result);
  }
  const auto meta = doc.find("object_meta");
  const auto status = doc.find("status");
  if (meta == doc.end() || !meta->is_object() || status == doc.end() || !status->is_object()) {
    error = "not a GameServer (no object_meta and status)";
    return false;
  }
  GameServerInfo gs;
  gs.name = string_at(*meta, "name");
  gs.labels = metadata_at(*meta, "labels");
  gs.annotations = metadata_at(*meta, "annotations");
  gs.state = string_at(*status, "state");
  gs.address = string_at(*status, "address");
  if (const auto ports = status->find("ports"); ports != status->end() && ports->is_array()) {
    for (const auto& p : *ports) {
      if (!p.is_object()) continue;
      const int64_t port = integer_at(p, "port", -1);
      if (port > 0 && port <= 65535) gs.ports.push_back({string_at(p, "name"), int(port)});
    }
  }
  if (const auto counters = status->find("counters"); counters != status->end() && counters->is_object()) {
    if (const auto players = counters->find("players"); players != counters->end() && players->is_object()) {
      gs.players = integer_at(*players, "count", 0);
      gs.player_capacity = integer_at(*players, "capacity", 0);
    }
  }
  out = std::move(gs);
  return true;
}

}  // namespace foothold::fleet
