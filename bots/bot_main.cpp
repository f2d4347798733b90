// foothold-bot: simulated players for load and correctness testing, and a status probe.
//
//   foothold-bot --server HOST:PORT --bots N --duration SECONDS --pattern wander|circle|jump|ride|script:FILE
//                --seed S [--trace-dir DIR] [--record DIR] [--world arena|FILE.obj] [--settings FILE.toml]
//                [--loss P --duplicate P --reorder P --latency MS --jitter MS] [--key-file KEY]
//   foothold-bot --probe HOST:PORT [--key-file KEY]
//
// With --key-file the bots play the game backend's part and mint their own connect tokens with the
// server's private key; without it they use the public development key (loopback servers only).
//
// The summary's last line is key=value pairs. Exit codes: 0 all well; 1 a bot could not connect, or
// an unexplained correction happened (a determinism bug), or the probe got no answer; 2 bad usage.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <numeric>

#include <CLI/CLI.hpp>

#include "proto/secure.h"
#include "bots/bot_fleet.h"
#include "bots/probe.h"
#include "proto/endpoint.h"
#include "shared/percentile.h"
#include "shared/settings.h"
#include "shared/world.h"
#include "shared/formats/world_file.h"
#include "shared/formats/settings_file.h"

namespace {

using namespace foothold;
using namespace foothold::bots;

constexpr int kExitUsage = 2;
BotFleet* g_fleet = nullptr;

int usage_error(const std::string& message) {
  std::fprintf(stderr, "foothold-bot: %s\n", message.c_str());
  return kExitUsage;
}

extern "C" void on_signal(int) {
  if (g_fleet) g_fleet->stop();
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"foothold-bot: simulated Foothold players (UDP clients with prediction), and a status probe"};
  std::string server_text, probe_text, pattern_text = "wander", trace_dir, record_dir, world_name = "arena", settings_path,
      key_file;
  int bots = 1;
  double duration = 10;
  double connect_timeout = 5;
  double loss = 0, duplicate = 0, reorder = 0, latency_ms = 0, jitter_ms = 0;
  uint64_t seed = 1;
  app.add_option("--server", server_text, "server address HOST:PORT");
  app.add_option("--probe", probe_text, "ask the server at HOST:PORT for its status, print it and exit");
  app.add_option("--bots", bots, "number of bots (default 1)");
  app.add_option("--duration", duration, "seconds to play before disconnecting (default 10)");
  app.add_option("--pattern", pattern_text, "wander (default), circle, jump, ride (onto the movers) or script:FILE");
  app.add_option("--connect-timeout", connect_timeout, "seconds to keep trying to connect (default 5)");
  app.add_option("--seed", seed, "seed of the bots' choices (default 1)");
  app.add_option("--trace-dir", trace_dir, "write each bot's predicted trajectory to DIR/bot-<id>.csv");
  app.add_option("--record", record_dir, "write each bot's own input stream to DIR/bot-<id>.rec");
  app.add_option("--loss", loss, "probability each datagram is lost, both directions (default 0)");
  app.add_option("--duplicate", duplicate, "probability each datagram arrives twice (default 0)");
  app.add_option("--reorder", reorder, "probability each datagram is held back behind later ones (default 0)");
  app.add_option("--latency", latency_ms, "one-way delay added to every datagram, milliseconds (default 0)");
  app.add_option("--jitter", jitter_ms, "the delay varies by +- this many milliseconds (default 0)");
  app.add_option("--world", world_name, "the world the server runs: 'arena' (default), a glTF file (.gltf, .glb) or an OBJ file");
  app.add_option("--settings", settings_path, "movement settings TOML (must match the server's)");
  app.add_option("--key-file", key_file, "the server's private key: mint connect tokens with it (default: the public "
                                         "development key, which loopback servers without a key file use)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kExitUsage;
  }

  std::string err;
  proto::Key key = proto::development_key();
  if (!key_file.empty() && !proto::read_key_file(key_file, key, err)) return usage_error("--key-file: " + err);
  if (!probe_text.empty()) {
    const proto::Endpoint target = proto::parse_endpoint(probe_text, err);
    if (err.empty() && target.port() == 0) err = "port 0 is no server's port";
    if (!err.empty()) return usage_error("--probe: " + err);
    const uint64_t unix_now = uint64_t(
        std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count());
    const proto::TokenAddress address = proto::to_token_address(target);
    proto::ConnectToken token;
    if (!proto::mint_token(key, proto::random_u64(), std::span(&address, 1), unix_now, 60, token, err))
      return usage_error("--probe: cannot mint a token: " + err);
    const ProbeResult r = probe_server(target, token, proto::kSecond);
    if (!r.ok) {
      std::fprintf(stderr, "foothold-bot: probe %s: %s\n", probe_text.c_str(), r.error.c_str());
      return 1;
    }
    std::printf("server=%s tick=%u clients=%u max_clients=%u uptime_s=%.1f world_hash=%016llx settings_hash=%016llx rtt_ms=%.2f\n",
                probe_text.c_str(), r.tick, r.clients, r.max_clients, r.uptime_ms / 1000.0,
                static_cast<unsigned long long>(r.world_hash), static_cast<unsigned long long>(r.settings_hash), r.rtt_ms);
    return 0;
  }

  if (server_text.empty()) return usage_error("--server HOST:PORT is required (or --probe HOST:PORT)");
  FleetOptions options;
  options.server = proto::parse_endpoint(server_text, err);
  if (err.empty() && options.server.port() == 0) err = "port 0 is no server's port";
  if (!err.empty()) return usage_error("--server: " + err);
  if (bots < 1 || bots > 5000) return usage_error("--bots " + std::to_string(bots) + " is out of range [1, 5000]");
  if (!(duration > 0 && duration <= 86400)) return usage_error("--duration must be in (0, 86400] seconds");
  if (!parse_pattern(pattern_text, options.pattern, err)) return usage_error(err);
  if (!(connect_timeout > 0 && connect_timeout <= 600)) return usage_error("--connect-timeout must be in (0, 600] seconds");
  options.session.connect_timeout = proto::Nanos(connect_timeout * 1e9);
  options.bots = bots;
  options.duration = duration;
  options.seed = seed;
  if (!std::isfinite(latency_ms) || !std::isfinite(jitter_ms)) return usage_error("--latency and --jitter must be numbers of milliseconds");
  options.impairment = {loss, duplicate, reorder, proto::Nanos(latency_ms * 1e6), proto::Nanos(jitter_ms * 1e6)};
  if (auto e = options.impairment.validate(); !e.empty()) return usage_error(e);
  options.trace_dir = trace_dir;
  options.record_dir = record_dir;
  options.world_name = world_name;
  options.key = key;

  MoveSettings settings;
  if (!settings_path.empty()) {
    auto loaded = load_settings_file(settings_path);
    if (!loaded.ok()) {
      for (const auto& e : loaded.errors) std::fprintf(stderr, "foothold-bot: %s\n", e.c_str());
      return kExitUsage;
    }
    settings = loaded.settings;
  }
  auto world = load_world(world_name);
  if (!world.world) return usage_error(world.error);

  BotFleet fleet(*world.world, settings, options);
  g_fleet = &fleet;
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  const FleetResult result = fleet.run();
  g_fleet = nullptr;
  if (!result.error.empty()) {
    std::fprintf(stderr, "foothold-bot: %s\n", result.error.c_str());
    return 1;
  }

  int connected = 0, failed = 0;
  uint64_t corrections = 0, unexplained = 0, interactions = 0, compared = 0, predicted = 0, bytes_in = 0, bytes_out = 0, snapshots = 0,
           packets_in = 0, packets_out = 0;
  double max_error = 0;
  std::vector<double> rtts, connects;
  for (const auto& b : result.bots) {
    connected += b.connected;
    if (!b.connected) {
      ++failed;
      std::fprintf(stderr, "foothold-bot: bot %u could not connect: %s (%s)\n", b.index, b.reason.c_str(),
                   std::string(to_string(b.phase)).c_str());
    }
    corrections += b.prediction.corrections;
    unexplained += b.prediction.unexplained;
    interactions += b.prediction.interactions;
    compared += b.stats.compared;
    predicted += b.prediction.predicted;
    bytes_in += b.stats.bytes_in;
    bytes_out += b.stats.bytes_out;
    packets_in += b.stats.packets_in;
    packets_out += b.stats.packets_out;
    snapshots += b.stats.snapshots;
    max_error = std::max(max_error, b.prediction.max_error);
    rtts.insert(rtts.end(), b.rtt_ms.begin(), b.rtt_ms.end());
    if (b.stats.connect_ms >= 0) connects.push_back(b.stats.connect_ms);
  }
  const double secs = std::max(1e-9, result.seconds);
  std::printf("foothold-bot: %d bot(s) against %s for %.1f s, pattern %s\n", bots, server_text.c_str(), secs, pattern_text.c_str());
  std::printf("  predicted %llu ticks; %llu snapshots; %llu compared with the server: %llu corrected (%llu by other "
              "characters, %llu unexplained), largest correction %.4f m\n",
              (unsigned long long)predicted, (unsigned long long)snapshots, (unsigned long long)compared,
              (unsigned long long)corrections, (unsigned long long)interactions, (unsigned long long)unexplained, max_error);
  std::vector<double> r1 = rtts, r2 = rtts;
  std::printf("bots=%d connected=%d failed=%d corrections=%llu unexplained=%llu interactions=%llu compared=%llu rtt_ms_p50=%.2f "
              "rtt_ms_p99=%.2f bytes_in_per_s=%.0f bytes_out_per_s=%.0f bytes_in_per_bot_per_s=%.0f bytes_out_per_bot_per_s=%.0f "
              "connect_ms_p50=%.1f connect_ms_max=%.1f bytes_per_packet_in=%.1f bytes_per_packet_out=%.1f\n",
              bots, connected, failed, (unsigned long long)corrections, (unsigned long long)unexplained,
              (unsigned long long)interactions, (unsigned long long)compared, percentile(r1, 0.5), percentile(r2, 0.99), double(bytes_in) / secs,
              double(bytes_out) / secs, double(bytes_in) / secs / bots, double(bytes_out) / secs / bots,
              connects.empty() ? 0.0 : percentile(connects, 0.5),
              connects.empty() ? 0.0 : *std::max_element(connects.begin(), connects.end()),
              packets_in ? double(bytes_in) / double(packets_in) : 0.0, packets_out ? double(bytes_out) / double(packets_out) : 0.0);
  return (failed > 0 || unexplained > 0) ? 1 : 0;
}
