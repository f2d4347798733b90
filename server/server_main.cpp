// foothold-server: the authoritative fixed-tick server.
//
// Configuration: defaults < --config FILE (TOML) < FOOTHOLD_* environment variables < flags.
// Exit codes: 0 after a clean stop (SIGINT/SIGTERM), 1 when it cannot serve (e.g. the port is taken),
// 2 for bad usage, configuration, settings or world.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <sstream>
#include <thread>
#include <optional>

#include <CLI/CLI.hpp>
#include <asio/io_context.hpp>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "proto/token.h"
#include "replay/recording.h"
#include "server/recorder.h"
#include "server/server_config.h"
#include "server/key_permissions.h"
#include "server/server_core.h"
#include "server/udp_server.h"
#include "shared/settings.h"
#include "shared/world.h"
#include "shared/formats/world_file.h"
#include "shared/formats/settings_file.h"

namespace {

using namespace foothold;
using namespace foothold::server;

constexpr int kExitUsage = 2;

int usage_errors(const std::vector<std::string>& errors) {
  for (const auto& e : errors) std::fprintf(stderr, "foothold-server: %s\n", e.c_str());
  return kExitUsage;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"foothold-server: the authoritative fixed-tick Foothold server (UDP)"};
  app.footer("Every option can also come from a TOML file (--config) or an environment variable FOOTHOLD_<KEY>, e.g.\n"
             "FOOTHOLD_PORT=7777. Flags win over the environment, which wins over the file.");
  std::string config_path;
  app.add_option("--config", config_path, "TOML file with any of the keys below (e.g. port = 7777)");

  ServerConfig flags;
  std::vector<std::pair<CLI::Option*, std::function<void(ServerConfig&)>>> given;
  auto opt = [&](const char* name, auto ServerConfig::*field, const char* help) {
    CLI::Option* o = app.add_option(std::string("--") + name, flags.*field, help);
    given.push_back({o, [field, &flags](ServerConfig& c) { c.*field = flags.*field; }});
  };
  opt("bind", &ServerConfig::bind, "address to listen on (default 0.0.0.0 with a key file, else 127.0.0.1; :: for IPv6 and IPv4)");
  opt("key-file", &ServerConfig::key_file, "private key that connect tokens are sealed with (foothold-token keygen); "
                                           "without one the server uses the public development key and serves loopback only");
  opt("public-address", &ServerConfig::public_address,
      "HOST:PORT[,HOST:PORT...] clients reach the server at, as tokens name it (default: the bound address)");
  opt("max-clients-per-address", &ServerConfig::max_clients_per_address, "sessions one IP address may hold (default 8)");
  opt("port", &ServerConfig::port, "UDP port (default 7777)");
  opt("max-clients", &ServerConfig::max_clients, "most clients at once (default 1024)");
  opt("world", &ServerConfig::world, "'arena' (default), a glTF file (.gltf, .glb) or an OBJ file");
  opt("settings", &ServerConfig::settings, "movement settings TOML file (default: built-in defaults)");
  opt("tick-rate", &ServerConfig::tick_rate, "ticks per second (default: the settings' tick_rate, 60)");
  opt("snapshot-interval", &ServerConfig::snapshot_interval, "send snapshots every N ticks (default 1)");
  opt("snapshot-rate", &ServerConfig::snapshot_rate,
      "snapshots per second, a divisor of the tick rate, e.g. 20, 30, 60 (default: every snapshot-interval ticks)");
  opt("snapshot-budget", &ServerConfig::snapshot_budget,
      ("bytes a snapshot datagram never exceeds, encryption included, [" + std::to_string(proto::kMinSnapshotBudget) +
       ", " + std::to_string(proto::kMaxDatagram) + "] (default " + std::to_string(proto::kDefaultSnapshotBudget) + ")")
          .c_str());
  opt("client-timeout", &ServerConfig::client_timeout, "seconds of silence before a client is dropped (default 10)");
  opt("log-level", &ServerConfig::log_level, "trace, debug, info (default), warn, error, critical, off");
  opt("stats-interval", &ServerConfig::stats_interval, "seconds between stats lines (default 5)");
  opt("max-catchup-ticks", &ServerConfig::max_catchup_ticks, "ticks run back to back after an overrun (default 5)");
  opt("client-packet-rate", &ServerConfig::client_packet_rate, "packets/s accepted per client (default 4 x tick rate)");
  opt("handshake-rate", &ServerConfig::handshake_rate, "handshake replies/s, all unverified senders (default 2000)");
  opt("status-rate", &ServerConfig::status_rate, "status replies/s, all senders (default 100)");
  opt("version-hint-rate", &ServerConfig::version_hint_rate, "clear wrong-version hints/s, all senders (default 20)");
  opt("token-max-ahead", &ServerConfig::token_max_ahead,
      "seconds a token's expiry may lie ahead of the server's clock, plus the clock skew (default 86400)");
  opt("clock-skew", &ServerConfig::clock_skew,
      "seconds the token minter's clock may run ahead of the server's (default 30)");
  {
    CLI::Option* o = app.add_flag("--strict-key-permissions", flags.strict_key_permissions,
                                  "refuse to start when the key file is readable by group or others (outside a secrets "
                                  "mount); without it that is a warning");
    given.push_back({o, [&flags](ServerConfig& c) { c.strict_key_permissions = flags.strict_key_permissions; }});
  }
  opt("source-rate", &ServerConfig::source_rate, "handshake datagrams/s one address may send (default 10)");
  opt("prefix-rate", &ServerConfig::prefix_rate, "handshake datagrams/s one /24 or /64 may send (default 50)");
  opt("record", &ServerConfig::record, "record the input stream to this file");
  opt("ready-file", &ServerConfig::ready_file, "once listening, write the bound HOST:PORT to this file (atomically)");
  opt("threads", &ServerConfig::threads, "threads for the characters' steps and snapshots (default: the machine's cores); "
                                         "results are the same for any number");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kExitUsage;
  }

  ServerConfig config;
  if (!config_path.empty()) {
    if (auto errors = load_server_config_file(config_path, config); !errors.empty()) return usage_errors(errors);
  }
  if (auto errors = apply_server_config_env(config); !errors.empty()) return usage_errors(errors);
  for (auto& [option, apply] : given)
    if (option->count() > 0) apply(config);
  if (auto errors = config.validate(); !errors.empty()) return usage_errors(errors);

  MoveSettings settings;
  if (!config.settings.empty()) {
    auto loaded = load_settings_file(config.settings);
    if (!loaded.ok()) return usage_errors(loaded.errors);
    settings = loaded.settings;
  }
  if (config.tick_rate != 0) settings.tick_rate = config.tick_rate;
  if (auto errors = settings.validate(); !errors.empty()) return usage_errors(errors);
  std::string snapshot_error;
  const int snapshot_interval = config.snapshot_ticks(settings.tick_rate, snapshot_error);
  if (snapshot_interval == 0) return usage_errors({snapshot_error});

  auto sink = std::make_shared<spdlog::sinks::stdout_color_sink_mt>();
  auto log = std::make_shared<spdlog::logger>("net", sink);
  auto sim_log = std::make_shared<spdlog::logger>("sim", sink);
  for (auto& l : {log, sim_log}) {
    l->set_level(spdlog::level::from_str(config.log_level));
    l->set_pattern("[%Y-%m-%d %H:%M:%S.%e] [%n] [%l] %v");
    l->flush_on(spdlog::level::info);
  }

  auto world = load_world(config.world);
  if (!world.world) return usage_errors({world.error});
  for (const auto& w : world.warnings) sim_log->warn("{}", w);

  proto::Key key = proto::development_key();
  if (!config.key_file.empty()) {
    std::string error;
    if (!proto::read_key_file(config.key_file, key, error)) return usage_errors({"key_file: " + error});
    // Whoever reads the key can mint tokens for every server that uses it.
    if (const std::string exposed = key_file_exposure(config.key_file); !exposed.empty()) {
      const std::string what = "key_file " + config.key_file + " is exposed (" + exposed +
                               "): anyone who reads it can mint tokens; chmod 600 it, or mount it as a secret";
      if (config.strict_key_permissions) return usage_errors({what + " (strict_key_permissions refuses to start)"});
      log->warn("{}", what);
    }
  }

  const std::string bind_text = config.effective_bind();
  std::string endpoint_error;
  const proto::Endpoint bind = proto::parse_endpoint(
      (bind_text.find(':') != std::string::npos ? "[" + bind_text + "]" : bind_text) + ":" + std::to_string(config.port),
      endpoint_error);
  if (!endpoint_error.empty()) return usage_errors({endpoint_error});

  // The addresses tokens must name. A host name is resolved once, here: tokens hold addresses.
  std::vector<proto::TokenAddress> addresses;
  if (!config.public_address.empty()) {
    std::stringstream list(config.public_address);
    std::string item;
    while (std::getline(list, item, ',')) {
      std::string error;
      const proto::Endpoint e = proto::parse_endpoint(item, error);
      if (!error.empty() || e.port() == 0)
        return usage_errors({"public_address: '" + item + "' is not HOST:PORT with a port other than 0" +
                             (error.empty() ? "" : " (" + error + ")")});
      addresses.push_back(proto::to_token_address(e));
    }
  } else if (bind.address().is_unspecified()) {
    return usage_errors({"bind " + bind_text + " listens on every address, so the server cannot tell which one clients "
                         "reach it at: set public_address (--public-address HOST:PORT), the address its tokens name"});
  } else if (config.port == 0) {
    // Filled in below, once the port is known.
  } else {
    addresses.push_back(proto::to_token_address(bind));
  }

  asio::io_context io;
  std::unique_ptr<UdpServer> udp;
  try {
    udp = std::make_unique<UdpServer>(io, UdpServer::Options{bind, settings.tick_rate, config.stats_interval, config.max_catchup_ticks}, log);
  } catch (const std::exception& e) {
    log->critical("cannot listen on {}: {}", proto::to_string(bind), e.what());
    return 1;
  }

  // Tools on this host (the container's health check) reach the server on loopback: honour tokens
  // naming loopback at our port too. The core honours those only for senders on loopback.
  const uint16_t port = udp->local_endpoint().port();
  if (config.port == 0 && config.public_address.empty()) addresses.push_back(proto::to_token_address(udp->local_endpoint()));
  if (bind.address().is_unspecified() || bind.address().is_loopback()) {
    for (const char* lo : {"127.0.0.1", "::1"}) {
      const auto a = proto::to_token_address({asio::ip::make_address(lo), port});
      if (std::find(addresses.begin(), addresses.end(), a) == addresses.end()) addresses.push_back(a);
    }
  }

  CoreConfig core_config;
  core_config.key = key;
  core_config.addresses = addresses;
  core_config.max_clients_per_address = config.max_clients_per_address;
  core_config.status_rate = config.status_rate;
  core_config.version_hint_rate = config.version_hint_rate;
  core_config.token_max_ahead = uint64_t(config.token_max_ahead);
  core_config.clock_skew = uint64_t(config.clock_skew);
  core_config.source_limits.address_rate = config.source_rate;
  core_config.source_limits.prefix_rate = config.prefix_rate;
  core_config.max_clients = config.max_clients;
  core_config.threads = config.threads != 0 ? config.threads : int(std::clamp(std::thread::hardware_concurrency(), 1u, 64u));
  core_config.snapshot_interval = snapshot_interval;
  core_config.snapshot_budget = config.snapshot_budget;
  core_config.client_timeout = proto::Nanos(config.client_timeout * 1e9);
  core_config.client_packet_rate = config.client_packet_rate > 0 ? config.client_packet_rate : 4 * settings.tick_rate;
  core_config.handshake_rate = config.handshake_rate;
  ServerCore core(core_config, *world.world, settings, udp->sink(), steady_now());

  // Recording: the input stream, with keyframes every 10 s of ticks.
  replay::RecordingWriter writer;
  std::unique_ptr<ServerRecorder> recorder;
  if (!config.record.empty()) {
    const replay::RecordingHeader header =
        server_recording_header(config.world, *world.world, settings, core.current_tick() + 1, uint32_t(settings.tick_rate) * 10);
    if (!writer.open(config.record, header)) {
      log->critical("{}", writer.error());
      return 1;
    }
    recorder = std::make_unique<ServerRecorder>(writer, header.keyframe_interval);
    core.set_observer(recorder.get());
    log->info("recording to {}", config.record);
  }

  if (config.key_file.empty()) {
    log->warn("no key file: connect tokens are sealed with the public development key, so this server serves loopback "
              "only; give --key-file KEY (foothold-token keygen) to serve other hosts");
  }
  std::string names;
  for (const auto& a : addresses) names += (names.empty() ? "" : ", ") + proto::to_string(proto::from_token_address(a));
  log->info("tokens must name one of: {}", names);
  log->info("foothold-server listening on {} (udp): world '{}' ({} triangles, hash {:016x}), {} Hz, settings hash {:016x}, "
            "max {} clients, snapshots every {} tick(s) within {} bytes, {} thread(s)",
            proto::to_string(udp->local_endpoint()), config.world, world.world->triangle_count(), world.world->hash(),
            settings.tick_rate, settings.hash(), config.max_clients, snapshot_interval, config.snapshot_budget,
            core_config.threads);
  if (!config.ready_file.empty()) {
    // Written to a temporary name and renamed: a reader never sees half an address.
    const std::string tmp = config.ready_file + ".tmp";
    std::FILE* f = std::fopen(tmp.c_str(), "w");
    const std::string line = proto::to_string(udp->local_endpoint()) + "\n";
    bool written = f != nullptr && std::fputs(line.c_str(), f) >= 0;
    if (f) written = std::fclose(f) == 0 && written;
    if (!written || std::rename(tmp.c_str(), config.ready_file.c_str()) != 0) {
      log->critical("cannot write the ready file {}", config.ready_file);
      return 1;
    }
  }
  udp->run(core, [&] {
    if (recorder) {
      writer.close(recorder->last_tick());
      if (writer.ok()) {
        log->info("recording {} closed: {} ticks, {} bytes", config.record, writer.ticks_written(), writer.bytes_written());
      } else {
        log->error("{}", writer.error());
      }
    }
    log->info("stopped at tick {}", core.current_tick());
  });
  return (recorder && !writer.ok()) ? 1 : 0;
}
