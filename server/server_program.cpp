// The server program (server/server_program.h): foothold-server, and any game's own server.
//
// Configuration: defaults < --config FILE (TOML) < FOOTHOLD_* environment variables < flags.
// Exit codes: 0 after a clean stop (SIGINT/SIGTERM), 1 when it cannot serve (e.g. the port is taken),
// 2 for bad usage, configuration, settings or world.

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <sstream>
#include <thread>
#include <optional>

#include <CLI/CLI.hpp>
#include <asio/io_context.hpp>
#include <asio/post.hpp>
#include <sodium.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "proto/token.h"
#include "replay/recording.h"
#include "server/game_replay.h"
#include "server/recorder.h"
#include "server/server_config.h"
#include "server/key_permissions.h"
#include "server/navigation.h"
#include "server/server_core.h"
#include "server/server_program.h"
#include "server/server_reference.h"
#include "server/agones_agent.h"
#include "fleet/agones_sdk.h"
#include "proto/endpoint.h"
#include "server/udp_server.h"
#include "shared/settings.h"
#include "shared/world.h"
#include "shared/formats/world_file.h"
#include "shared/formats/settings_file.h"
#include "shared/workers/worker_pool.h"
#include "version/version.h"

namespace {

using namespace foothold;
using namespace foothold::server;

constexpr int kExitUsage = 2;
/// main() goes on: no exit code yet.
constexpr int kContinue = -1;

// The program's name in its messages (run_server's `program`): set once, before anything is printed.
const char* program_name = "foothold-server";

int usage_errors(const std::vector<std::string>& errors) {
  for (const auto& e : errors) std::fprintf(stderr, "%s: %s\n", program_name, e.c_str());
  return kExitUsage;
}

// " (default V)" with V as the config's default (ServerConfig{}): the help never restates a number.
template <typename T>
std::string by_default(const std::string& help, T ServerConfig::*field) {
  std::ostringstream v;
  v << ServerConfig{}.*field;
  return help + " (default " + v.str() + ")";
}

// The command line over the file and the environment: `config` gets the result, validated.
// "none, echo, tag": the names --game takes.
std::string game_list(std::span<const GameEntry> games) {
  std::string list = "none";
  for (const GameEntry& g : games) list += ", " + g.name;
  return list;
}

std::string game_help(std::span<const GameEntry> games, const std::string& default_game) {
  std::string help = "the game to run: " + game_list(games) + " (default " + default_game + "; none: no game";
  for (const GameEntry& g : games) help += "; " + g.name + ": " + g.summary;
  return help + ")";
}

const GameEntry* find_game(std::span<const GameEntry> games, const std::string& name) {
  for (const GameEntry& g : games)
    if (g.name == name) return &g;
  return nullptr;
}

// A flag given on the command line, and how it sets a configuration.
using GivenFlags = std::vector<std::pair<CLI::Option*, std::function<void(ServerConfig&)>>>;

// Every --KEY of ServerConfig, into `flags`; `given` says which were given and how each applies.
void declare_options(CLI::App& app, ServerConfig& flags, GivenFlags& given, std::span<const GameEntry> games,
                     const ServerConfig& config) {
  auto opt = [&](const char* name, auto ServerConfig::*field, const std::string& help) {
    CLI::Option* o = app.add_option(std::string("--") + name, flags.*field, help);
    given.push_back({o, [field, &flags](ServerConfig& c) { c.*field = flags.*field; }});
  };
  auto flag = [&](const char* name, bool ServerConfig::*field, const std::string& help) {
    CLI::Option* o = app.add_flag(std::string("--") + name, flags.*field, help);
    given.push_back({o, [field, &flags](ServerConfig& c) { c.*field = flags.*field; }});
  };
  opt("bind", &ServerConfig::bind, "address to listen on (default 0.0.0.0 with a key file, else 127.0.0.1; :: for IPv6 and IPv4)");
  opt("key-file", &ServerConfig::key_file, "private key that connect tokens are sealed with (foothold-token keygen); "
                                           "without one the server uses the public development key and serves loopback only");
  opt("public-address", &ServerConfig::public_address,
      "HOST:PORT[,HOST:PORT...] clients reach the server at, as tokens name it (default: the bound address)");
  opt("metrics-address", &ServerConfig::metrics_address, "HOST:PORT to serve /metrics, /healthz and /readyz on (HTTP; default off)");
  opt("max-clients-per-address", &ServerConfig::max_clients_per_address,
      by_default("sessions one IP address may hold", &ServerConfig::max_clients_per_address));
  opt("port", &ServerConfig::port, by_default("UDP port", &ServerConfig::port));
  opt("max-clients", &ServerConfig::max_clients, by_default("most clients at once", &ServerConfig::max_clients));
  opt("world", &ServerConfig::world, "'arena' (default), a glTF file (.gltf, .glb) or an OBJ file");
  opt("settings", &ServerConfig::settings, "movement settings TOML file (default: built-in defaults)");
  opt("navmesh", &ServerConfig::navmesh,
      "the world's navigation mesh for the game's paths, baked ahead of time (foothold-nav bake) for this world and "
      "settings; refused when either differs (default: baked at load for a game that asks for paths)");
  opt("tick-rate", &ServerConfig::tick_rate,
      "ticks per second (default: the settings' tick_rate, " + std::to_string(MoveSettings{}.tick_rate) + ")");
  opt("snapshot-interval", &ServerConfig::snapshot_interval,
      by_default("send snapshots every N ticks", &ServerConfig::snapshot_interval));
  opt("snapshot-rate", &ServerConfig::snapshot_rate,
      "snapshots per second, a divisor of the tick rate, e.g. 20, 30, 60 (default: every snapshot-interval ticks)");
  opt("snapshot-budget", &ServerConfig::snapshot_budget,
      by_default("bytes a snapshot datagram never exceeds, encryption included, [" + std::to_string(proto::kMinSnapshotBudget) +
                     ", " + std::to_string(proto::kMaxDatagram) + "]",
                 &ServerConfig::snapshot_budget));
  opt("neighbours", &ServerConfig::neighbours,
      by_default("nearest characters (within 2 m) each snapshot gives in full for the client's prediction, [0, " +
                     std::to_string(proto::kMaxSnapshotNeighbours) + "]; 0: none",
                 &ServerConfig::neighbours));
  opt("neighbour-inputs-ahead", &ServerConfig::neighbour_inputs_ahead,
      by_default("inputs each of them already sent for the next ticks, given with it, [0, " + std::to_string(kMaxInputsAhead) +
                     "]; 0 where telling a client a nearby player's next move a tick early is a leak",
                 &ServerConfig::neighbour_inputs_ahead));
  opt("client-timeout", &ServerConfig::client_timeout,
      by_default("seconds of silence before a client is dropped", &ServerConfig::client_timeout));
  opt("log-level", &ServerConfig::log_level, "trace, debug, info (default), warn, error, critical, off");
  opt("stats-interval", &ServerConfig::stats_interval, by_default("seconds between stats lines", &ServerConfig::stats_interval));
  opt("max-catchup-ticks", &ServerConfig::max_catchup_ticks,
      by_default("ticks run back to back after an overrun", &ServerConfig::max_catchup_ticks));
  opt("client-packet-rate", &ServerConfig::client_packet_rate, "packets/s accepted per client (default 4 x tick rate)");
  opt("handshake-rate", &ServerConfig::handshake_rate,
      by_default("handshake replies/s, all unverified senders", &ServerConfig::handshake_rate));
  opt("status-rate", &ServerConfig::status_rate, by_default("status replies/s, all senders", &ServerConfig::status_rate));
  opt("version-hint-rate", &ServerConfig::version_hint_rate,
      by_default("clear wrong-version hints/s, all senders", &ServerConfig::version_hint_rate));
  opt("token-max-ahead", &ServerConfig::token_max_ahead,
      by_default("seconds a token's expiry may lie ahead of the server's clock, plus the clock skew",
                 &ServerConfig::token_max_ahead));
  opt("clock-skew", &ServerConfig::clock_skew,
      by_default("seconds the token minter's clock may run ahead of the server's", &ServerConfig::clock_skew));
  flag("strict-key-permissions", &ServerConfig::strict_key_permissions,
       "refuse to start when the key file is readable by group or others (outside a secrets mount); without it that is a "
       "warning");
  opt("source-rate", &ServerConfig::source_rate, by_default("handshake datagrams/s one address may send", &ServerConfig::source_rate));
  opt("prefix-rate", &ServerConfig::prefix_rate, by_default("handshake datagrams/s one /24 or /64 may send", &ServerConfig::prefix_rate));
  opt("record", &ServerConfig::record, "record the input stream to this file");
  opt("ready-file", &ServerConfig::ready_file, "once listening, write the bound HOST:PORT to this file (atomically)");
  opt("game", &ServerConfig::game, game_help(games, config.game));
  opt("game-seed", &ServerConfig::game_seed,
      "seed of the game's random source, 0 to 2^64-1 (the same seed draws the same numbers; default: fresh at every start)");
  opt("npcs", &ServerConfig::npcs,
      by_default("characters the game is asked to fill its match with [0, 1024] (tag: NPC players; patrol: its walkers)",
                 &ServerConfig::npcs));
  opt("message-queue", &ServerConfig::message_queue,
      by_default("bytes of reliable messages one session may have unacknowledged, each way", &ServerConfig::message_queue));
  opt("message-rate", &ServerConfig::message_rate, by_default("message bytes per second to one client", &ServerConfig::message_rate));
  opt("rewind-window", &ServerConfig::rewind_window,
      by_default("milliseconds of the past the game's lag-compensated queries may look back to [0, 1000]",
                 &ServerConfig::rewind_window));
  opt("message-timeout", &ServerConfig::message_timeout,
      by_default("seconds a session's messages may stand still before it is cut off", &ServerConfig::message_timeout));
  opt("threads", &ServerConfig::threads, "threads for the characters' steps and snapshots (default: the machine's cores); "
                                         "results are the same for any number");
  flag("agones", &ServerConfig::agones,
       "run as an Agones game server through the SDK sidecar (on whenever AGONES_SDK_HTTP_PORT is set; docs/fleet.md)");
  opt("agones-health-interval", &ServerConfig::agones_health_interval,
      by_default("seconds between Agones health pings, withheld while the tick loop stalls", &ServerConfig::agones_health_interval));
  opt("idle-shutdown", &ServerConfig::idle_shutdown,
      by_default("seconds an allocated server waits without a client before it ends the match (0: never)",
                 &ServerConfig::idle_shutdown));
  opt("drain-seconds", &ServerConfig::drain_seconds,
      by_default("seconds the drain after SIGTERM or the match's end may take", &ServerConfig::drain_seconds));
}

// What --verify-game is given: the recording, and whether the game's log lines are printed.
struct VerifyFlags {
  std::string path;
  bool game_log = false;
};

// The program's whole command line: --config, a flag for every key of ServerConfig (into `flags`;
// `given` says which were given and how each applies), --verify-game, --game-log, --version. One
// declaration for parsing, --help and the reference (server_reference_markdown()).
struct CommandLine {
  std::string config_path;
  ServerConfig flags;
  GivenFlags given;
  VerifyFlags verify;
};

void declare_command_line(CLI::App& app, CommandLine& line, std::span<const GameEntry> games, const ServerConfig& config) {
  app.footer("Every option can also come from a TOML file (--config) or an environment variable FOOTHOLD_<KEY>, e.g.\n"
             "FOOTHOLD_PORT=7777. Flags win over the environment, which wins over the file.");
  app.add_option("--config", line.config_path, "TOML file with any of the keys below (e.g. port = 7777)");
  declare_options(app, line.flags, line.given, games, config);
  app.add_option("--verify-game", line.verify.path,
                 "replay the game of a recording made with --record (its game, world and settings are the recording's) and "
                 "check every command it gave and message it sent; print the outcome and exit (0 identical, 1 differs, 2 "
                 "cannot be replayed)");
  app.add_flag("--game-log", line.verify.game_log, "with --verify-game: print the game's log lines as it replays (silent without)");
  app.set_version_flag("--version", version_line(program_name), "print the version and exit");
}

std::string program_description() { return std::string(program_name) + ": the authoritative fixed-tick Foothold server (UDP)"; }

int read_configuration(int argc, char** argv, std::span<const GameEntry> games, ServerConfig& config, VerifyFlags& verify) {
  CLI::App app{program_description()};
  CommandLine line;
  declare_command_line(app, line, games, config);
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {  // --help, --version
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kExitUsage;
  }
  verify = line.verify;
  if (!line.config_path.empty()) {
    if (auto errors = load_server_config_file(line.config_path, config); !errors.empty()) return usage_errors(errors);
  }
  if (auto errors = apply_server_config_env(config); !errors.empty()) return usage_errors(errors);
  for (auto& [option, apply] : line.given)
    if (option->count() > 0) apply(config);
  auto errors = config.validate();
  if (config.game != "none" && !find_game(games, config.game))
    errors.push_back("game = '" + config.game + "' is not a known game: " + game_list(games));
  if (!errors.empty()) return usage_errors(errors);
  return kContinue;
}

// The movement settings (file, then --tick-rate) and the ticks between snapshots.
int read_movement(const ServerConfig& config, MoveSettings& settings, int& snapshot_interval) {
  if (!config.settings.empty()) {
    auto loaded = load_settings_file(config.settings);
    if (!loaded.ok()) return usage_errors(loaded.errors);
    settings = loaded.settings;
  }
  if (config.tick_rate != 0) settings.tick_rate = config.tick_rate;
  if (auto errors = settings.validate(); !errors.empty()) return usage_errors(errors);
  std::string snapshot_error;
  snapshot_interval = config.snapshot_ticks(settings.tick_rate, snapshot_error);
  if (snapshot_interval == 0) return usage_errors({snapshot_error});
  return kContinue;
}

// The key tokens are sealed with: the key file's, or the public development key.
int read_key(const ServerConfig& config, spdlog::logger& log, proto::Key& key) {
  key = proto::development_key();
  if (config.key_file.empty()) return kContinue;
  std::string error;
  if (!proto::read_key_file(config.key_file, key, error)) return usage_errors({"key_file: " + error});
  // Whoever reads the key can mint tokens for every server that uses it.
  if (const std::string exposed = key_file_exposure(config.key_file); !exposed.empty()) {
    const std::string what = "key_file " + config.key_file + " is exposed (" + exposed +
                             "): anyone who reads it can mint tokens; chmod 600 it, or mount it as a secret";
    if (config.strict_key_permissions) return usage_errors({what + " (strict_key_permissions refuses to start)"});
    log.warn("{}", what);
  }
  return kContinue;
}

// The addresses tokens must name, as far as they are known before binding. A host name is resolved
// once, here: tokens hold addresses.
int token_addresses(const ServerConfig& config, const proto::Endpoint& bind, bool agones,
                    std::vector<proto::TokenAddress>& addresses) {
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
  } else if (bind.address().is_unspecified() && !agones) {  // under Agones the GameServer's status names it
    return usage_errors({"bind " + config.effective_bind() + " listens on every address, so the server cannot tell which one "
                         "clients reach it at: set public_address (--public-address HOST:PORT), the address its tokens name"});
  } else if (config.port != 0) {
    addresses.push_back(proto::to_token_address(bind));
  }  // port 0: filled in once the port is known (local_addresses)
  return kContinue;
}

// A tick that has not ended for a second (60 periods at 60 Hz), or ten periods if longer, is hung:
// /healthz fails and Agones health is withheld.
proto::Nanos stall_after(int tick_rate) { return std::max<proto::Nanos>(proto::kSecond, 10 * proto::kSecond / tick_rate); }

// --metrics-address: the endpoints, fed by `udp` after every tick (`out` stays null when it is not
// given). They answer once the world is loaded and the socket bound: ready from the first tick.
int start_metrics(const ServerConfig& config, int tick_rate, UdpServer& udp, spdlog::logger& log,
                  std::unique_ptr<MetricsServer>& out) {
  if (config.metrics_address.empty()) return kContinue;
  std::string error;
  const proto::Endpoint at = proto::parse_endpoint(config.metrics_address, error);  // validated: resolves
  if (!error.empty()) return usage_errors({"metrics_address: " + error});
  out = MetricsServer::start(at.address().to_string(), at.port(), stall_after(tick_rate), error);
  if (!out) {
    log.critical("{}", error);
    return 1;
  }
  udp.set_metrics(out.get(), std::size_t(config.max_clients));
  log.info("metrics: http://{}/metrics, /healthz, /readyz", proto::to_string(proto::Endpoint(at.address(), uint16_t(out->port()))));
  return kContinue;
}

// The Agones SDK sidecar's port when the server runs under Agones (AGONES_SDK_HTTP_PORT, or --agones
// with the default port), else 0.
int agones_port(const ServerConfig& config, int& port) {
  std::string error;
  const std::optional<int> from_env = fleet::sdk_port_from_environment(error);
  if (!error.empty()) return usage_errors({error});
  port = from_env ? *from_env : config.agones ? fleet::kDefaultSdkHttpPort : 0;
  return kContinue;
}

// Under Agones: the agent (server/agones_agent.h), started now that the world is loaded and the
// socket bound. What it learns reaches the core on the io thread.
std::unique_ptr<AgonesAgent> start_agones(const ServerConfig& config, int sdk_port, int tick_rate, asio::io_context& io,
                                          UdpServer& udp, ServerCore& core, std::shared_ptr<spdlog::logger> log) {
  if (sdk_port == 0) return nullptr;
  AgonesOptions options;
  options.port = sdk_port;
  options.health_interval = proto::Nanos(config.agones_health_interval * double(proto::kSecond));
  options.idle_shutdown = proto::Nanos(config.idle_shutdown * double(proto::kSecond));
  options.stall_after = stall_after(tick_rate);
  options.capacity = config.max_clients;
  AgonesHooks hooks;
  hooks.address = [&io, &core, log](const std::string& host, int port) {
    // The status may name the node by a DNS name: tokens hold addresses, so resolve it (here, on
    // the agent's thread, never the tick's).
    std::string error;
    const bool v6 = host.find(':') != std::string::npos;
    const proto::Endpoint e = proto::parse_endpoint((v6 ? "[" + host + "]" : host) + ":" + std::to_string(port), error);
    if (!error.empty()) {
      log->error("agones: the GameServer's address {}:{} cannot be used: {}", host, port, error);
      return;
    }
    log->info("agones: tokens may name {} (the GameServer's address)", proto::to_string(e));
    asio::post(io, [&core, a = proto::to_token_address(e)] { core.add_token_address(a); });
  };
  hooks.allocated = [&io, &core, log](const fleet::GameServerInfo& gs) {
    std::string dropped;
    Allocation a = game_allocation(gs, dropped);
    if (!dropped.empty()) log->warn("agones: the allocation's {} left out: beyond what a recording keeps", dropped);
    asio::post(io, [&core, a = std::move(a)]() mutable { core.allocated(std::move(a)); });
  };
  hooks.stop = [&udp](const std::string&) { udp.request_stop(); };
  auto agent = std::make_unique<AgonesAgent>(options, std::move(log), std::move(hooks));
  udp.set_agones(agent.get());
  agent->start();
  return agent;
}

// Once bound: the port taken when it was 0, and loopback at our port, for tools on this host (the
// container's health check). The core honours loopback addresses only for senders on loopback.
void local_addresses(const ServerConfig& config, const proto::Endpoint& bind, const proto::Endpoint& bound,
                     std::vector<proto::TokenAddress>& addresses) {
  if (config.port == 0 && config.public_address.empty()) addresses.push_back(proto::to_token_address(bound));
  if (!bind.address().is_unspecified() && !bind.address().is_loopback()) return;
  for (const char* lo : {"127.0.0.1", "::1"}) {
    const auto a = proto::to_token_address({asio::ip::make_address(lo), bound.port()});
    if (std::find(addresses.begin(), addresses.end(), a) == addresses.end()) addresses.push_back(a);
  }
}

// The bound address, written to a temporary name and renamed: a reader never sees half an address.
bool write_ready_file(const std::string& path, const proto::Endpoint& bound) {
  const std::string tmp = path + ".tmp";
  std::FILE* f = std::fopen(tmp.c_str(), "w");
  const std::string line = proto::to_string(bound) + "\n";
  bool written = f != nullptr && std::fputs(line.c_str(), f) >= 0;
  if (f) written = std::fclose(f) == 0 && written;
  return written && std::rename(tmp.c_str(), path.c_str()) == 0;
}

std::shared_ptr<spdlog::logger> make_logger(const char* name, const std::string& level) {
  static const auto sink = std::make_shared<spdlog::sinks::stdout_color_sink_mt>();
  auto l = std::make_shared<spdlog::logger>(name, sink);
  l->set_level(spdlog::level::from_str(level));
  l->set_pattern("[%Y-%m-%d %H:%M:%S.%e] [%n] [%l] %v");
  l->flush_on(spdlog::level::info);
  return l;
}

// A game's log lines through `log` at their levels.
GameLog game_logger(std::shared_ptr<spdlog::logger> log) {
  return [log = std::move(log)](GameLogLevel level, const std::string& line) {
    static constexpr spdlog::level::level_enum kLevels[] = {spdlog::level::debug, spdlog::level::info, spdlog::level::warn,
                                                            spdlog::level::err};
    log->log(kLevels[std::min<std::size_t>(std::size_t(level), 3)], "{}", line);
  };
}

// A seed for the game's random source from the system's randomness (libsodium's), for a server
// started without --game-seed: no two matches draw the same numbers.
uint64_t fresh_seed() {
  if (sodium_init() < 0) throw std::runtime_error("libsodium failed to initialise");
  uint64_t seed = 0;
  randombytes_buf(&seed, sizeof seed);
  return seed;
}

// --record: the input stream, with keyframes every 10 s of ticks, observed from the core's next tick.
int start_recording(const ServerConfig& config, const World& world, const MoveSettings& settings, int snapshot_interval,
                    ServerCore& core, replay::RecordingWriter& writer, std::unique_ptr<ServerRecorder>& recorder,
                    spdlog::logger& log) {
  if (config.record.empty()) return kContinue;
  replay::RecordingHeader header =
      server_recording_header(config.world, world, settings, core.current_tick() + 1, uint32_t(settings.tick_rate) * 10);
  // What replaying the game's decisions needs (--verify-game).
  header.game = config.game;
  header.snapshot_interval = uint32_t(snapshot_interval);
  header.rewind_window = core.rewind_window_ticks();
  header.recorded_by = version_line("foothold-server");
  header.game_seed = core.game_seed();  // what --verify-game seeds the game's random source with
  header.npcs = uint32_t(config.npcs);  // and the NPCs it asks the game for
  if (!writer.open(config.record, header)) {
    log.critical("{}", writer.error());
    return 1;
  }
  recorder = std::make_unique<ServerRecorder>(writer, header.keyframe_interval, config.game != "none");
  core.set_observer(recorder.get());
  log.info("recording to {}", config.record);
  return kContinue;
}

// The world's navigation mesh for GameControl::path(): --navmesh's file, refused (exit 2) when it was
// baked for another world or other settings; else, for a game that asks for paths or is asked for
// NPCs (--npcs), baked now on
// `threads` threads, with a line if it takes over a second.
int prepare_navigation(const ServerConfig& config, const GameEntry* game, const World& world, const MoveSettings& settings,
                       int threads, ServerCore& core, spdlog::logger& log) {
  Navigation& navigation = core.navigation();
  if (!config.navmesh.empty()) {
    if (const std::string error = navigation.load(config.navmesh, world, settings); !error.empty())
      return usage_errors({error});
    log.info("navmesh {}: {} tiles, {} polygons", config.navmesh, navigation.tiles(), navigation.polygons());
    return kContinue;
  }
  if (!game || (!game->paths && config.npcs == 0)) return kContinue;  // NPCs asked for walk by paths
  if (!Navigation::available()) {
    log.warn("game '{}' asks for paths, but this build of the server has no navigation meshes: it finds none",
             config.game);
    return kContinue;
  }
  const auto start = std::chrono::steady_clock::now();
  bool told = false;
  WorkerPool pool(std::clamp(threads, 1, 64));
  const std::string error = navigation.bake(world, settings, &pool, [&](std::size_t done, std::size_t total) {
    if (told || done == total || std::chrono::steady_clock::now() - start < std::chrono::seconds(1)) return;
    told = true;
    log.info("baking the navigation mesh of world '{}' for game '{}': {}/{} tiles (foothold-nav bake and --navmesh "
             "load one baked ahead of time)",
             config.world, config.game, done, total);
  });
  if (!error.empty()) return usage_errors({"navmesh: " + error});
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  log.info("navmesh baked at load: {} tiles, {} polygons in {:.0f} ms", navigation.tiles(), navigation.polygons(), ms);
  return kContinue;
}

// The game, seeded, with its navigation mesh ready (on_start may draw, and ask for paths), installed.
int start_game(const ServerConfig& config, std::span<const GameEntry> games, const World& world,
               const MoveSettings& settings, int threads, ServerCore& core, const std::shared_ptr<spdlog::logger>& sim_log,
               spdlog::logger& log) {
  core.set_game_seed(config.game_seed_value().value_or(fresh_seed()));
  const GameEntry* g = find_game(games, config.game);
  if (const int exit = prepare_navigation(config, g, world, settings, threads, core, *sim_log); exit != kContinue)
    return exit;
  if (!g) return kContinue;
  core.set_game_log(config.game, game_logger(sim_log));
  core.set_npcs_wanted(uint32_t(config.npcs));
  try {
    core.set_game(g->make());
  } catch (const std::invalid_argument& e) {
    log.critical("game '{}': {}", config.game, e.what());
    return 1;
  }
  return kContinue;
}

// --verify-game FILE: the recording's game replayed (server/game_replay.h).
int verify_game(const std::string& path, bool game_log, std::span<const GameEntry> games, const std::string& log_level) {
  replay::RecordingReader reader;
  if (!reader.open(path)) return usage_errors({reader.error()});
  const replay::RecordingHeader& h = reader.header();
  if (h.format_version < 6 || h.game.empty() || h.game == "none")
    return usage_errors({path + ": " + (h.format_version < 6 ? "recording format " + std::to_string(h.format_version) +
                                                                   " does not say which game ran (format 6 does)"
                                                             : std::string("no game ran in this recording"))});
  const GameEntry* g = find_game(games, h.game);
  if (!g) return usage_errors({path + ": its game '" + h.game + "' is not one this server knows: " + game_list(games)});
  auto world = load_world(h.world);
  if (!world.world) return usage_errors({path + ": its world: " + world.error});
  const GameReplayResult r =
      replay_game(path, *world.world, g->make(), game_log ? game_logger(make_logger("sim", log_level)) : GameLog{});
  if (!r.error.empty() && r.difference.empty()) return usage_errors({r.error});
  if (!r.difference.empty()) {
    std::printf("game differs: %s\n", r.difference.c_str());
    return 1;
  }
  std::printf("game verified: %s, %u ticks, %llu commands, %llu messages sent, %llu handed over: identical%s\n", h.game.c_str(),
              r.ticks, (unsigned long long)r.commands, (unsigned long long)r.sends, (unsigned long long)r.messages,
              r.truncated ? " (the recording is cut short: what it holds)" : "");
  if (r.npc_inputs > 0) std::printf("npc inputs: %llu, each as the game set it\n", (unsigned long long)r.npc_inputs);
  return 0;
}

}  // namespace

namespace foothold::server {

int run_server(int argc, char** argv, std::span<const GameEntry> games, const char* program, const char* default_game) {
  program_name = program;
  ServerConfig config;
  config.game = default_game;
  VerifyFlags verify;
  if (const int exit = read_configuration(argc, argv, games, config, verify); exit != kContinue) return exit;
  if (!verify.path.empty()) return verify_game(verify.path, verify.game_log, games, config.log_level);
  if (verify.game_log) return usage_errors({"--game-log is for --verify-game (a server logs its game's lines by --log-level)"});
  MoveSettings settings;
  int snapshot_interval = 0;
  if (const int exit = read_movement(config, settings, snapshot_interval); exit != kContinue) return exit;
  const auto log = make_logger("net", config.log_level);
  const auto sim_log = make_logger("sim", config.log_level);

  auto world = load_world(config.world);
  if (!world.world) return usage_errors({world.error});
  for (const auto& w : world.warnings) sim_log->warn("{}", w);
  proto::Key key;
  if (const int exit = read_key(config, *log, key); exit != kContinue) return exit;

  const std::string bind_text = config.effective_bind();
  std::string endpoint_error;
  const proto::Endpoint bind = proto::parse_endpoint(
      (bind_text.find(':') != std::string::npos ? "[" + bind_text + "]" : bind_text) + ":" + std::to_string(config.port),
      endpoint_error);
  if (!endpoint_error.empty()) return usage_errors({endpoint_error});
  std::vector<proto::TokenAddress> addresses;
  int sdk_port = 0;
  if (const int exit = agones_port(config, sdk_port); exit != kContinue) return exit;
  if (const int exit = token_addresses(config, bind, sdk_port != 0, addresses); exit != kContinue) return exit;

  asio::io_context io;
  std::unique_ptr<UdpServer> udp;
  try {
    udp = std::make_unique<UdpServer>(io, UdpServer::Options{bind, settings.tick_rate, config.stats_interval, config.max_catchup_ticks}, log);
  } catch (const std::exception& e) {
    log->critical("cannot listen on {}: {}", proto::to_string(bind), e.what());
    return 1;
  }
  local_addresses(config, bind, udp->local_endpoint(), addresses);
  const CoreConfig core_config =
      server::core_config(config, settings, snapshot_interval, key, addresses, std::thread::hardware_concurrency());
  ServerCore core(core_config, *world.world, settings, udp->sink(), steady_now());
  if (const int exit = start_game(config, games, *world.world, settings, core_config.threads, core, sim_log, *log);
      exit != kContinue)
    return exit;

  replay::RecordingWriter writer;
  std::unique_ptr<ServerRecorder> recorder;
  if (const int exit = start_recording(config, *world.world, settings, snapshot_interval, core, writer, recorder, *log);
      exit != kContinue)
    return exit;

  if (config.key_file.empty()) {
    log->warn("no key file: connect tokens are sealed with the public development key, so this server serves loopback "
              "only; give --key-file KEY (foothold-token keygen) to serve other hosts");
  }
  std::string names;
  for (const auto& a : addresses) names += (names.empty() ? "" : ", ") + proto::to_string(proto::from_token_address(a));
  log->info("tokens must name one of: {}", names);
  log->info("{} listening on {} (udp): world '{}' ({} triangles, hash {:016x}), {} Hz, settings hash {:016x}, "
            "max {} clients, snapshots every {} tick(s) within {} bytes, {} thread(s), game '{}'",
            program_name, proto::to_string(udp->local_endpoint()), config.world, world.world->triangle_count(), world.world->hash(),
            settings.tick_rate, settings.hash(), config.max_clients, snapshot_interval, config.snapshot_budget,
            core_config.threads, config.game);
  std::unique_ptr<MetricsServer> metrics;
  if (const int exit = start_metrics(config, settings.tick_rate, *udp, *log, metrics); exit != kContinue) return exit;
  const std::unique_ptr<AgonesAgent> agones = start_agones(config, sdk_port, settings.tick_rate, io, *udp, core, log);
  if (!config.ready_file.empty() && !write_ready_file(config.ready_file, udp->local_endpoint())) {
    log->critical("cannot write the ready file {}", config.ready_file);
    return 1;
  }
  proto::Nanos drain_started = 0;
  udp->run(core, [&] {
    drain_started = steady_now();
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
  if (agones) agones->shutdown(drain_started + proto::Nanos(config.drain_seconds * double(proto::kSecond)));
  log->info("drained in {:.0f} ms", double(steady_now() - drain_started) / 1e6);
  return (recorder && !writer.ok()) ? 1 : 0;
}

namespace {

// A table cell: '|' would end it.
std::string cell(std::string text) {
  for (std::size_t at = text.find('|'); at != std::string::npos; at = text.find('|', at + 2)) text.replace(at, 1, "\\|");
  return text;
}

// What an option takes, in words: CLI11's type name, as --help shows it; a flag takes no value on
// the command line (true or false in the file and the environment).
std::string value_kind(const CLI::Option& option) {
  const std::string type = option.get_type_name();
  if (option.get_expected_max() == 0) return "flag";
  if (type == "INT" || type == "UINT") return "whole number";
  if (type == "FLOAT") return "number";
  return "text";
}

}  // namespace

std::string server_reference_markdown(std::span<const GameEntry> games, const char* program, const char* default_game) {
  const char* const previous_name = program_name;  // the page names `program`, as its --help would
  program_name = program;
  ServerConfig config;
  config.game = default_game;
  CLI::App app{program_description()};
  CommandLine line;
  declare_command_line(app, line, games, config);
  const auto is_setting = [&](const CLI::Option* option) {
    return std::any_of(line.given.begin(), line.given.end(), [&](const auto& g) { return g.first == option; });
  };
  std::ostringstream settings, others;
  for (const CLI::Option* option : app.get_options()) {
    const std::string flag = option->get_name();  // "--port"
    if (is_setting(option)) {
      std::string key = flag.substr(2);
      std::replace(key.begin(), key.end(), '-', '_');
      settings << "| `" << flag << "`<br>`" << key << "`<br>`" << env_name(key) << "` | " << value_kind(*option) << " | "
               << cell(option->get_description()) << " |\n";
    } else {
      others << "| `" << flag << "` | " << value_kind(*option) << " | " << cell(option->get_description()) << " |\n";
    }
  }
  std::ostringstream page;
  page << "# Flag and setting reference\n\n"
       << "<!-- Generated from the server's option table (server/server_program.cpp) by server_reference_markdown();\n"
       << "     the test ServerReference.TheCommittedPageIsWhatTheProgramDeclares keeps it so. Do not edit: see that test. -->\n\n"
       << "Every flag of `" << program << " --help`, as the program declares it. Each setting is a flag, a key of the TOML\n"
       << "file given with `--config`, and an environment variable; flags win over the environment, which wins over the\n"
       << "file. A game's own server built on `run_server()` takes the same flags (its `--game` lists its own games).\n"
       << "What the settings are for, with more detail: [Running the server](server.md#configuration).\n\n"
       << "## Settings\n\n"
       << "| flag, TOML key, environment | value | meaning |\n|---|---|---|\n"
       << settings.str() << "\n## Command line only\n\n"
       << "| flag | value | meaning |\n|---|---|---|\n" << others.str();
  program_name = previous_name;
  return page.str();
}

}  // namespace foothold::server
