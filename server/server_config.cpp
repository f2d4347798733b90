#include "server/server_config.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <variant>

#include <asio/ip/address.hpp>
#include <toml++/toml.h>

#include "proto/endpoint.h"
#include "shared/server_limits.h"


namespace foothold::server {

namespace {

// One table of keys drives the file, the environment and the messages.
struct Key {
  const char* name;
  std::variant<int ServerConfig::*, double ServerConfig::*, std::string ServerConfig::*, bool ServerConfig::*> field;
};
const Key kKeys[] = {
    {"bind", &ServerConfig::bind},
    {"key_file", &ServerConfig::key_file},
    {"strict_key_permissions", &ServerConfig::strict_key_permissions},
    {"public_address", &ServerConfig::public_address},
    {"metrics_address", &ServerConfig::metrics_address},
    {"agones", &ServerConfig::agones},
    {"agones_health_interval", &ServerConfig::agones_health_interval},
    {"idle_shutdown", &ServerConfig::idle_shutdown},
    {"drain_seconds", &ServerConfig::drain_seconds},
    {"max_clients_per_address", &ServerConfig::max_clients_per_address},
    {"port", &ServerConfig::port},
    {"max_clients", &ServerConfig::max_clients},
    {"world", &ServerConfig::world},
    {"settings", &ServerConfig::settings},
    {"navmesh", &ServerConfig::navmesh},
    {"tick_rate", &ServerConfig::tick_rate},
    {"snapshot_interval", &ServerConfig::snapshot_interval},
    {"snapshot_rate", &ServerConfig::snapshot_rate},
    {"snapshot_budget", &ServerConfig::snapshot_budget},
    {"neighbours", &ServerConfig::neighbours},
    {"neighbour_inputs_ahead", &ServerConfig::neighbour_inputs_ahead},
    {"client_timeout", &ServerConfig::client_timeout},
    {"log_level", &ServerConfig::log_level},
    {"stats_interval", &ServerConfig::stats_interval},
    {"max_catchup_ticks", &ServerConfig::max_catchup_ticks},
    {"client_packet_rate", &ServerConfig::client_packet_rate},
    {"handshake_rate", &ServerConfig::handshake_rate},
    {"status_rate", &ServerConfig::status_rate},
    {"version_hint_rate", &ServerConfig::version_hint_rate},
    {"token_max_ahead", &ServerConfig::token_max_ahead},
    {"clock_skew", &ServerConfig::clock_skew},
    {"source_rate", &ServerConfig::source_rate},
    {"prefix_rate", &ServerConfig::prefix_rate},
    {"record", &ServerConfig::record},
    {"threads", &ServerConfig::threads},
    {"ready_file", &ServerConfig::ready_file},
    {"game", &ServerConfig::game},
    {"message_queue", &ServerConfig::message_queue},
    {"message_rate", &ServerConfig::message_rate},
    {"message_timeout", &ServerConfig::message_timeout},
    {"rewind_window", &ServerConfig::rewind_window},
    {"game_seed", &ServerConfig::game_seed},
    {"npcs", &ServerConfig::npcs},
};

}  // namespace

CoreConfig core_config(const ServerConfig& config, const MoveSettings& settings, int snapshot_interval,
                       const proto::Key& key, std::vector<proto::TokenAddress> addresses, unsigned cores) {
  CoreConfig c;
  c.key = key;
  c.addresses = std::move(addresses);
  c.max_clients = config.max_clients;
  c.max_clients_per_address = config.max_clients_per_address;
  c.snapshot_interval = snapshot_interval;
  c.snapshot_budget = config.snapshot_budget;
  c.neighbours = config.neighbours;
  c.neighbour_inputs_ahead = config.neighbour_inputs_ahead;
  c.client_timeout = proto::Nanos(config.client_timeout * double(proto::kSecond));
  c.client_packet_rate = config.client_packet_rate > 0 ? config.client_packet_rate : 4 * settings.tick_rate;
  c.handshake_rate = config.handshake_rate;
  c.status_rate = config.status_rate;
  c.version_hint_rate = config.version_hint_rate;
  c.source_limits.address_rate = config.source_rate;
  c.source_limits.prefix_rate = config.prefix_rate;
  c.token_max_ahead = uint64_t(config.token_max_ahead);
  c.clock_skew = uint64_t(config.clock_skew);
  c.threads = config.threads != 0 ? config.threads : int(std::clamp(cores, 1u, 64u));
  c.messages.limits.queue_bytes = std::size_t(config.message_queue);
  c.messages.rate = uint32_t(config.message_rate);
  c.messages.receive_rate = uint32_t(config.message_rate);  // and at most that from each client
  c.messages.timeout = proto::Nanos(config.message_timeout * double(proto::kSecond));
  c.rewind_window_ms = config.rewind_window;
  return c;
}

namespace {

void range(std::vector<std::string>& e, const char* key, double v, double lo, double hi) {
  if (!(v >= lo && v <= hi)) {
    std::ostringstream m;
    m << key << " = " << v << " is out of range [" << lo << ", " << hi << "]";
    e.push_back(m.str());
  }
}

// Parses text for one key into the config; returns an error message or "".
std::string set_from_text(ServerConfig& c, const Key& k, const std::string& text) {
  return std::visit(
      [&](auto member) -> std::string {
        using T = std::remove_reference_t<decltype(c.*member)>;
        if constexpr (std::is_same_v<T, std::string>) {
          c.*member = text;
          return "";
        } else if constexpr (std::is_same_v<T, bool>) {
          if (text == "true" || text == "1") {
            c.*member = true;
          } else if (text == "false" || text == "0") {
            c.*member = false;
          } else {
            return std::string(k.name) + " must be true or false, not '" + text + "'";
          }
          return "";
        } else if constexpr (std::is_same_v<T, int>) {
          int v = 0;
          const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
          if (ec != std::errc() || p != text.data() + text.size()) return std::string(k.name) + " must be a whole number, not '" + text + "'";
          c.*member = v;
          return "";
        } else {
          char* end = nullptr;
          const double v = std::strtod(text.c_str(), &end);
          if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(v))
            return std::string(k.name) + " must be a number, not '" + text + "'";
          c.*member = v;
          return "";
        }
      },
      k.field);
}

}  // namespace

std::string env_name(const std::string& key) {
  std::string n = "FOOTHOLD_";
  for (char ch : key) n += char(std::toupper(static_cast<unsigned char>(ch)));
  return n;
}

std::vector<std::string> ServerConfig::validate() const {
  std::vector<std::string> e;
  asio::error_code ec;
  const auto address = asio::ip::make_address(effective_bind(), ec);
  if (ec) {
    e.push_back("bind = '" + bind + "' is not an IP address");
  } else if (key_file.empty() && !address.is_loopback()) {
    // The development key is public: anyone could mint tokens for it.
    e.push_back("bind = '" + bind + "' is not loopback: without key_file (--key-file) the server uses the public "
                "development key and serves 127.0.0.1 or ::1 only");
  }
  if (!metrics_address.empty()) {
    std::string error;
    proto::parse_endpoint(metrics_address, error);
    if (!error.empty())
      e.push_back("metrics_address: '" + metrics_address + "' is not HOST:PORT (" + error + "; an IPv6 host in brackets)");
  }
  range(e, "agones_health_interval", agones_health_interval, 0.1, 60);
  range(e, "idle_shutdown", idle_shutdown, 0, 86400);
  range(e, "drain_seconds", drain_seconds, 1, 600);
  range(e, "max_clients_per_address", max_clients_per_address, 1, kMaxServerClients);
  range(e, "port", port, 0, 65535);
  range(e, "max_clients", max_clients, 1, kMaxServerClients);
  range(e, "npcs", npcs, 0, kMaxNpcs);
  if (world.empty()) e.push_back("world must name 'arena', a glTF file or an OBJ file");
  if (tick_rate != 0) range(e, "tick_rate", tick_rate, 10, 240);
  range(e, "snapshot_interval", snapshot_interval, 1, kMaxSnapshotInterval);
  if (snapshot_rate != 0) range(e, "snapshot_rate", snapshot_rate, 1, 240);
  range(e, "snapshot_budget", snapshot_budget, proto::kMinSnapshotBudget, double(proto::kMaxDatagram));
  range(e, "neighbours", neighbours, 0, double(proto::kMaxSnapshotNeighbours));
  range(e, "neighbour_inputs_ahead", neighbour_inputs_ahead, 0, double(kMaxInputsAhead));
  range(e, "client_timeout", client_timeout, 0.5, 600);
  static const char* kLevels[] = {"trace", "debug", "info", "warn", "error", "critical", "off"};
  bool level_ok = false;
  for (const char* l : kLevels) level_ok |= log_level == l;
  if (!level_ok) e.push_back("log_level = '" + log_level + "' is not one of trace, debug, info, warn, error, critical, off");
  range(e, "stats_interval", stats_interval, 0.5, 3600);
  range(e, "max_catchup_ticks", max_catchup_ticks, 1, 120);
  range(e, "client_packet_rate", client_packet_rate, 0, 100000);
  range(e, "handshake_rate", handshake_rate, 1, 1000000);
  if (threads != 0) range(e, "threads", threads, 1, 64);  // 0: the machine's cores
  range(e, "status_rate", status_rate, 1, 1000000);
  range(e, "version_hint_rate", version_hint_rate, 1, 1000000);
  range(e, "token_max_ahead", token_max_ahead, 60, 2592000);
  range(e, "clock_skew", clock_skew, 0, 3600);
  range(e, "source_rate", source_rate, 0.1, 1000000);
  range(e, "prefix_rate", prefix_rate, 0.1, 1000000);
  range(e, "message_queue", message_queue, kMinMessageQueue, kMaxMessageQueue);
  range(e, "message_rate", message_rate, 1024, 10000000);
  range(e, "message_timeout", message_timeout, 1, 600);
  range(e, "rewind_window", rewind_window, 0, kMaxRewindWindowMs);
  if (!game_seed.empty() && !game_seed_value())
    e.push_back("game_seed = '" + game_seed.substr(0, 40) + "' is not a whole number from 0 to 18446744073709551615");
  return e;
}

std::optional<uint64_t> ServerConfig::game_seed_value() const {
  uint64_t v = 0;
  const char* end = game_seed.data() + game_seed.size();
  const auto [p, ec] = std::from_chars(game_seed.data(), end, v);
  if (game_seed.empty() || ec != std::errc() || p != end) return std::nullopt;
  return v;
}

int ServerConfig::snapshot_ticks(int ticks_per_second, std::string& error) const {
  if (snapshot_rate == 0) return snapshot_interval;
  if (snapshot_interval != 1) {
    error = "snapshot_rate and snapshot_interval are both set: give one";
    return 0;
  }
  if (snapshot_rate > ticks_per_second || ticks_per_second % snapshot_rate != 0) {
    error = "snapshot_rate = " + std::to_string(snapshot_rate) + " does not divide the tick rate (" +
            std::to_string(ticks_per_second) + " Hz): snapshots go out on whole ticks";
    return 0;
  }
  return ticks_per_second / snapshot_rate;
}

std::vector<std::string> load_server_config_file(const std::string& path, ServerConfig& config) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {path + ": cannot open config file"};
  std::ostringstream text;
  text << in.rdbuf();
  return parse_server_config(text.str(), path, config);
}

std::vector<std::string> parse_server_config(std::string_view text, const std::string& path, ServerConfig& config) {
  std::vector<std::string> errors;
  toml::table table;
  try {
    table = toml::parse(text, path);
  } catch (const toml::parse_error& err) {
    std::ostringstream m;
    m << path << ":" << err.source().begin.line << ":" << err.source().begin.column << ": " << err.description();
    return {m.str()};
  }
  for (auto&& [key, node] : table) {
    const std::string name(key.str());
    const std::string at = path + ":" + std::to_string(node.source().begin.line) + ": ";
    const Key* k = nullptr;
    for (const auto& candidate : kKeys)
      if (name == candidate.name) k = &candidate;
    if (!k) {
      errors.push_back(at + "unknown key '" + name + "'");
      continue;
    }
    std::string value;
    if (auto s = node.value<std::string>(); s && node.is_string()) {
      value = *s;
      if (!std::holds_alternative<std::string ServerConfig::*>(k->field)) {
        errors.push_back(at + name + (std::holds_alternative<bool ServerConfig::*>(k->field) ? " must be true or false"
                                                                                           : " must be a number"));
        continue;
      }
    } else if (node.is_boolean()) {
      if (!std::holds_alternative<bool ServerConfig::*>(k->field)) {
        errors.push_back(at + name + " must be a number or a string, not true or false");
        continue;
      }
      value = node.as_boolean()->get() ? "true" : "false";
    } else if (std::holds_alternative<bool ServerConfig::*>(k->field)) {
      errors.push_back(at + name + " must be true or false");
      continue;
    } else if (node.is_integer()) {
      value = std::to_string(node.as_integer()->get());
    } else if (node.is_floating_point()) {
      std::ostringstream v;
      v.precision(17);
      v << node.as_floating_point()->get();
      value = v.str();
    } else {
      errors.push_back(at + name + " has an unsupported type");
      continue;
    }
    if (std::holds_alternative<std::string ServerConfig::*>(k->field) && !node.is_string()) {
      errors.push_back(at + name + " must be a string");
      continue;
    }
    if (auto err = set_from_text(config, *k, value); !err.empty()) errors.push_back(at + err);
  }
  return errors;
}

std::vector<std::string> apply_server_config_env(ServerConfig& config) {
  std::vector<std::string> errors;
  for (const auto& k : kKeys) {
    const std::string var = env_name(k.name);
    if (const char* v = std::getenv(var.c_str()); v && *v) {
      if (auto err = set_from_text(config, k, v); !err.empty()) errors.push_back(var + ": " + err);
    }
  }
  return errors;
}

}  // namespace foothold::server
