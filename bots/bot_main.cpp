// foothold-bot: simulated players for load and correctness testing, and a status probe.
//
//   foothold-bot --server HOST:PORT --bots N --duration SECONDS --pattern wander|circle|jump|ride|tag|shoot|script:FILE
//                --seed S [--trace-dir DIR] [--record DIR] [--world arena|FILE.obj] [--settings FILE.toml]
//                [--loss P --duplicate P --reorder P --latency MS --jitter MS] [--key-file KEY]
//                [--messages-per-second R [--message-bytes MIN:MAX]] [--aim-offset M] [--one-socket]
//   foothold-bot --probe HOST:PORT [--key-file KEY]
//
// With --key-file the bots play the game backend's part and mint their own connect tokens with the
// server's private key; without it they use the public development key (loopback servers only).
// With --messages-per-second each bot sends numbered reliable messages and checks their echoes (a
// server running --game echo returns them): bots/message_checker.h.
//
// --pattern tag plays the tag game of a server running --game tag (bots/tag_brain.h): "it" chases,
// the others run.
//
// The summary's last line is key=value pairs, always the same keys in the same order (new ones are
// appended), among them:
//   corrections=N interactions=N unexplained=N  predictions corrected, of them by other characters,
//                                               and by nothing known (a determinism bug)
//   tags_seen=N            "tag FROM TO" announcements with FROM != 0 that bots received, summed over
//                          the bots: each pass of "it" counts once per bot that heard it
//   server_corrections=N   corrections caused by a game command (teleport, freeze, ...)
//   shots=N hits=H hit_rate=R other_hits=K
//                          --pattern shoot (a server running --game hitscan): shots fired, hits on
//                          the character aimed at, H / N, hits on another character
//   misses=M refused=R unanswered=U hidden=W
//                          the other verdicts; shots with no verdict by the end; shots not fired
//                          because the nearest other was behind something, as the bot's client drew it
//   pop_max_m=X pops_over_2cm=N remote_stalls=S remote_pop_max_m=Y frames=F
//                          --frame-rate (default 60): the largest jump of the drawn own character
//                          between two frames that its prediction does not explain, how many passed
//                          2 cm; frames where another moving character was drawn standing still; the
//                          others' largest such jump; the frames drawn, all bots together
//   pop_max_at=TICK:CHARACTER:CAUSE remote_pop_max_at=TICK:CHARACTER:CAUSE
//                          where pop_max_m and remote_pop_max_m were drawn ("none" without a pop):
//                          the tick drawn (the own character's predicted tick; the others' view tick),
//                          whole; the character drawn; what the drawing did to it that frame, beyond
//                          following its snapshots or prediction, as tokens joined by '+'
//                          (client::DrawCause): correction (new word moved what was drawn the frame
//                          before: a snapshot showing a guess wrong, a late sample slotted in, the own
//                          prediction corrected by a repeated input; taken in smoothed), snap (such a
//                          correction over DrawOptions::snap_m, drawn at once), neighbour_restep (the
//                          own prediction corrected by another character), re_added (not drawn the
//                          frame before), kept_unsaid (left out of the newest snapshot: held where an
//                          older one had it), mover_carry (carried by a mover: the others past their
//                          newest snapshot, the own while standing on one), extrapolating (carried on
//                          by its motion past its newest snapshot), extrapolation_end (carried on the
//                          frame before, not this one), view_delay (the view clock, for the own the
//                          tick clock, jumped or went back); interpolated when none
//   ended=REASON:BOTS,...  why the sessions ended (client/end_reason.h's codes); always the last
//
// --trace-dir DIR writes, per bot, DIR/bot-<id>.csv (its predicted ticks, shared/formats/trace.h)
// and DIR/drawn-<id>.csv: the other characters as it drew them, a row per character per frame, with
// the header time_ns,view_tick,id,x,y,z,vx,vy,vz,error_m,pop_m,causes (the frame's steady-clock
// time; the view tick; the character; its drawn capsule centre and velocity, metres and m/s; the
// guess still being taken in, metres; its pop that frame, metres, 0 on the first; the causes as in
// remote_pop_max_at).
// With --pattern tag two more lines come just before it (so that it stays the last), each the key,
// '=', then the rest of the line:
//   last_scores=ROUND ID:SECONDS ...   the newest "scores" announcement any bot received (the highest
//                                      round), as the game wrote it after "scores "; "none" before the
//                                      first round has ended
//   standings=ROUND ID:SECONDS ...     the round under way at the end and each connected bot's
//                                      character's seconds as "it" in it (its it_seconds attribute),
//                                      ascending id; "none" when no bot saw a tag game's attributes
//
// Exit codes: 0 all well; 1 a bot could not connect, or an unexplained correction happened (a
// determinism bug), or the probe got no answer; 2 bad usage.

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "proto/secure.h"
#include "bots/bot_fleet.h"
#include "bots/probe.h"
#include "proto/endpoint.h"
#include "proto/network_tuning.h"
#include "shared/percentile.h"
#include "shared/settings.h"
#include "shared/world.h"
#include "shared/formats/world_file.h"
#include "shared/formats/settings_file.h"
#include "version/version.h"

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

// The command line as given, before any of it is checked.
struct Args {
  std::string server_text, probe_text, pattern_text = "wander", trace_dir, record_dir, world_name = "arena", settings_path,
      key_file;
  std::string messages_per_second_text, message_bytes_text;  // read by parse_message_rate / _sizes
  int bots = 1;
  double duration = 10;
  double aim_offset = 0;
  double frame_rate = 60;
  double smoothing = client::DrawOptions{}.smoothing_s;
  bool one_socket = false;
  double connect_timeout = double(proto::kConnectTimeout) / double(proto::kSecond);
  double loss = 0, duplicate = 0, reorder = 0, latency_ms = 0, jitter_ms = 0;
  uint64_t seed = 1;
};

void add_options(CLI::App& app, Args& a) {
  app.add_option("--server", a.server_text, "server address HOST:PORT");
  app.add_option("--probe", a.probe_text, "ask the server at HOST:PORT for its status, print it and exit");
  app.add_option("--bots", a.bots, "number of bots (default 1)");
  app.add_option("--duration", a.duration, "seconds to play before disconnecting (default 10)");
  app.add_option("--pattern", a.pattern_text,
                 "wander (default), circle, jump, ride (onto the movers), tag (play a server's --game tag), shoot (a server's --game hitscan) or script:FILE");
  app.add_option("--connect-timeout", a.connect_timeout,
                 "seconds to keep trying to connect (default " + std::to_string(proto::kConnectTimeout / proto::kSecond) + ")");
  app.add_option("--seed", a.seed, "seed of the bots' choices (default 1)");
  app.add_option("--trace-dir", a.trace_dir,
                 "write each bot's predicted trajectory to DIR/bot-<id>.csv, and the others as it drew them to "
                 "DIR/drawn-<id>.csv");
  app.add_option("--record", a.record_dir, "write each bot's own input stream to DIR/bot-<id>.rec");
  app.add_option("--loss", a.loss, "probability each datagram is lost, both directions (default 0)");
  app.add_option("--duplicate", a.duplicate, "probability each datagram arrives twice (default 0)");
  app.add_option("--reorder", a.reorder, "probability each datagram is held back behind later ones (default 0)");
  app.add_option("--latency", a.latency_ms, "one-way delay added to every datagram, milliseconds (default 0)");
  app.add_option("--jitter", a.jitter_ms, "the delay varies by +- this many milliseconds (default 0)");
  app.add_option("--world", a.world_name, "the world the server runs: 'arena' (default), a glTF file (.gltf, .glb) or an OBJ file");
  app.add_option("--settings", a.settings_path, "movement settings TOML (must match the server's)");
  app.add_option("--frame-rate", a.frame_rate,
                 "frames a second at which each bot draws its character and the others, as a game would, measuring "
                 "pops and stalls (default 60; 0: none)");
  app.add_flag("--one-socket", a.one_socket,
               "every bot on one socket, each from its own address in 127.1.0.0/16, sending and receiving with "
               "sendmmsg and recvmmsg (IPv4 loopback servers only)");
  app.add_option("--smoothing", a.smoothing,
                 "seconds over which a drawn correction is taken in (default 0.1; 0: shown at once), for --frame-rate");
  app.add_option("--aim-offset", a.aim_offset,
                 "--pattern shoot: metres beside the target each shot is aimed, across the line of fire (default 0)");
  app.add_option("--messages-per-second", a.messages_per_second_text,
                 "each bot sends this many numbered reliable messages a second, spread evenly (a number above 0, e.g. 20 "
                 "or 0.5), and checks every echo (a server running --game echo returns them)")
      ->type_name("R");
  app.add_option("--message-bytes", a.message_bytes_text,
                 "the messages' sizes, drawn uniformly, 1 to 65536 bytes (default 16:256)")
      ->type_name("MIN:MAX");
  app.add_option("--key-file", a.key_file, "the server's private key: mint connect tokens with it (default: the public "
                                           "development key, which loopback servers without a key file use)");
}

// --probe: one status request to the server at `probe_text`, its answer printed as key=value pairs.
int run_probe(const std::string& probe_text, const proto::Key& key) {
  std::string err;
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

// --messages-per-second and --message-bytes: neither, or a valid rate and (if given) valid sizes.
// Returns the error, empty when all is well.
std::string message_load(const Args& a, MessageLoad& load) {
  if (a.messages_per_second_text.empty())
    return a.message_bytes_text.empty() ? std::string() : "--message-bytes needs --messages-per-second";
  if (auto e = parse_message_rate(a.messages_per_second_text, load.per_second); !e.empty()) return e;
  return a.message_bytes_text.empty() ? std::string() : parse_message_sizes(a.message_bytes_text, load.sizes);
}

// The fleet's options, checked in the order the usage errors are reported; `error` is the first
// one found (then `options` is incomplete).
struct CheckedOptions {
  FleetOptions options;
  std::string error;
};

CheckedOptions fleet_options(const Args& a, const proto::Key& key) {
  CheckedOptions c;
  FleetOptions& options = c.options;
  auto fail = [&c](std::string message) {
    c.error = std::move(message);
    return c;
  };
  if (a.server_text.empty()) return fail("--server HOST:PORT is required (or --probe HOST:PORT)");
  std::string err;
  options.server = proto::parse_endpoint(a.server_text, err);
  if (err.empty() && options.server.port() == 0) err = "port 0 is no server's port";
  if (!err.empty()) return fail("--server: " + err);
  if (a.bots < 1 || a.bots > 5000) return fail("--bots " + std::to_string(a.bots) + " is out of range [1, 5000]");
  if (a.one_socket)
    if (auto e = SharedSocket::unusable(options.server); !e.empty()) return fail(e);
  options.one_socket = a.one_socket;
  if (!(a.duration > 0 && a.duration <= 86400)) return fail("--duration must be in (0, 86400] seconds");
  if (!parse_pattern(a.pattern_text, options.pattern, err)) return fail(err);
  if (!(a.aim_offset >= -100 && a.aim_offset <= 100)) return fail("--aim-offset must be in [-100, 100] metres");
  options.aim_offset = a.aim_offset;
  if (!(a.frame_rate == 0 || (a.frame_rate >= 1 && a.frame_rate <= 1000)))
    return fail("--frame-rate must be 0 (none) or in [1, 1000] frames a second");
  options.frame_rate = a.frame_rate;
  if (!(a.smoothing >= 0 && a.smoothing <= 2)) return fail("--smoothing must be in [0, 2] seconds");
  options.session.draw.smoothing_s = a.smoothing;
  if (!(a.connect_timeout > 0 && a.connect_timeout <= 600)) return fail("--connect-timeout must be in (0, 600] seconds");
  options.session.connect_timeout = proto::Nanos(a.connect_timeout * 1e9);
  options.bots = a.bots;
  options.duration = a.duration;
  options.seed = a.seed;
  if (!std::isfinite(a.latency_ms) || !std::isfinite(a.jitter_ms))
    return fail("--latency and --jitter must be numbers of milliseconds");
  options.impairment = {a.loss, a.duplicate, a.reorder, proto::Nanos(a.latency_ms * 1e6), proto::Nanos(a.jitter_ms * 1e6)};
  if (auto e = options.impairment.validate(); !e.empty()) return fail(e);
  if (auto e = message_load(a, options.messages); !e.empty()) return fail(e);
  options.trace_dir = a.trace_dir;
  options.record_dir = a.record_dir;
  options.recorded_by = foothold::version_line("foothold-bot");
  options.world_name = a.world_name;
  options.key = key;
  return c;
}

// The movement settings from --settings (the defaults without it), or nothing after printing why
// the file is refused.
std::optional<MoveSettings> read_settings(const std::string& path) {
  if (path.empty()) return MoveSettings{};
  auto loaded = load_settings_file(path);
  if (!loaded.ok()) {
    for (const auto& e : loaded.errors) std::fprintf(stderr, "foothold-bot: %s\n", e.c_str());
    return std::nullopt;
  }
  return loaded.settings;
}

// The bots' figures summed over the fleet.
struct Totals {
  int connected = 0, failed = 0;
  std::array<int, client::kEndReasons> ended{};  // bots by why their session ended
  uint64_t corrections = 0, unexplained = 0, interactions = 0, compared = 0, predicted = 0, bytes_in = 0, bytes_out = 0,
           snapshots = 0, packets_in = 0, packets_out = 0;
  double max_error = 0;
  std::vector<double> rtts, connects;  // every round trip and every connect time, milliseconds
  MessageCounts messages;              // every bot's, summed; rtt_ms: every message's round trip
  uint64_t message_bytes_in = 0, message_bytes_out = 0;  // the message sections' bytes
  uint64_t server_corrections = 0;     // corrections caused by a game command
  uint64_t tags_seen = 0;              // passes of "it" announced, counted once per bot that heard each
  ShotCounts shots;                    // --pattern shoot, every bot's
  FrameCounts frames;                  // --frame-rate, every bot's
  std::string last_scores;             // the newest scores announcement heard, without "scores "
  uint32_t last_scores_round = 0;      // its round
  std::vector<TagStanding> standings;  // every connected bot's, at the end
};

// Adds one bot's tag game to the fleet's: its passes seen, its newest scores if from a later round
// than any so far, its standing if it saw a round.
void add_tag(const BotResult& b, Totals& t) {
  t.tags_seen += b.tag.tags_seen();
  t.shots += b.shots;
  t.frames += b.frames;
  if (b.tag.last_scores_round() > t.last_scores_round) {
    t.last_scores_round = b.tag.last_scores_round();
    t.last_scores = b.tag.last_scores();
  }
  if (b.connected && b.standing.id != 0 && b.standing.round > 0) t.standings.push_back(b.standing);
}

// Adds one bot's messages to the fleet's.
void add_messages(const BotResult& b, Totals& t) {
  MessageCounts& m = t.messages;
  m.sent += b.messages.sent;
  m.received += b.messages.received;
  m.lost += b.messages.lost;
  m.out_of_order += b.messages.out_of_order;
  m.corrupt += b.messages.corrupt;
  m.rtt_ms.insert(m.rtt_ms.end(), b.messages.rtt_ms.begin(), b.messages.rtt_ms.end());
  t.message_bytes_in += b.message_stats.bytes_in;
  t.message_bytes_out += b.message_stats.bytes_out;
  if (b.messages.refused != proto::SendError::kNone)
    std::fprintf(stderr, "foothold-bot: bot %u stopped sending messages: %s\n", b.index,
                 std::string(proto::to_string(b.messages.refused)).c_str());
}

// Sums the bots' figures, and says on stderr which bots could not connect and why.
Totals add_up(const FleetResult& result) {
  Totals t;
  for (const auto& b : result.bots) {
    t.connected += b.connected;
    ++t.ended[std::size_t(b.end)];
    if (!b.connected) {
      ++t.failed;
      std::fprintf(stderr, "foothold-bot: bot %u could not connect: %s (%s)\n", b.index, b.reason.c_str(),
                   std::string(to_string(b.phase)).c_str());
    }
    t.corrections += b.prediction.corrections;
    t.unexplained += b.prediction.unexplained;
    t.interactions += b.prediction.interactions;
    t.server_corrections += b.prediction.server;
    t.compared += b.stats.compared;
    t.predicted += b.prediction.predicted;
    t.bytes_in += b.stats.bytes_in;
    t.bytes_out += b.stats.bytes_out;
    t.packets_in += b.stats.packets_in;
    t.packets_out += b.stats.packets_out;
    t.snapshots += b.stats.snapshots;
    t.max_error = std::max(t.max_error, b.prediction.max_error);
    t.rtts.insert(t.rtts.end(), b.rtt_ms.begin(), b.rtt_ms.end());
    if (b.stats.connect_ms >= 0) t.connects.push_back(b.stats.connect_ms);
    add_messages(b, t);
    add_tag(b, t);
  }
  return t;
}

// --pattern tag: a line for people, then last_scores= and standings= (the header's formats).
void print_tag(Totals& t) {
  // The round under way: the latest any bot saw (a bot that left early may have seen an older one).
  int32_t round = 0;
  for (const TagStanding& s : t.standings) round = std::max(round, s.round);
  std::sort(t.standings.begin(), t.standings.end(), [](const TagStanding& x, const TagStanding& y) { return x.id < y.id; });
  std::string standings = round > 0 ? std::to_string(round) : "none";
  for (const TagStanding& s : t.standings)
    if (s.round == round) standings += " " + std::to_string(s.id) + ":" + std::to_string(s.it_seconds);
  const std::string scores = t.last_scores.empty() ? "none" : t.last_scores;
  std::printf("  tag: passes of \"it\" heard announced %llu times (summed over the bots); last scores: %s; standings: %s\n",
              (unsigned long long)t.tags_seen, scores.c_str(), standings.c_str());
  std::printf("last_scores=%s\n", scores.c_str());
  std::printf("standings=%s\n", standings.c_str());
}

// Two lines for people (and one on the messages, and the tag game's three, when there are any), then
// one of key=value pairs for scripts (load tests read it). Takes the
// totals by reference to sort their samples in place (percentile() reorders them).
void print_summary(const Args& a, Totals& t, double seconds) {
  const double secs = std::max(1e-9, seconds);
  const int bots = a.bots;
  std::printf("foothold-bot: %d bot(s) against %s for %.1f s, pattern %s\n", bots, a.server_text.c_str(), secs, a.pattern_text.c_str());
  std::printf("  predicted %llu ticks; %llu snapshots; %llu compared with the server: %llu corrected (%llu by other "
              "characters, %llu by the game's commands, %llu unexplained), largest correction %.4f m\n",
              (unsigned long long)t.predicted, (unsigned long long)t.snapshots, (unsigned long long)t.compared,
              (unsigned long long)t.corrections, (unsigned long long)t.interactions, (unsigned long long)t.server_corrections,
              (unsigned long long)t.unexplained, t.max_error);
  if (!a.messages_per_second_text.empty())
    std::printf("  messages: %llu sent, %llu echoed intact, %llu lost (%llu echoes corrupt), %llu echoed out of order\n",
                (unsigned long long)t.messages.sent, (unsigned long long)t.messages.received,
                (unsigned long long)t.messages.lost, (unsigned long long)t.messages.corrupt,
                (unsigned long long)t.messages.out_of_order);
  if (a.pattern_text == "tag") print_tag(t);
  std::vector<double> r1 = t.rtts, r2 = t.rtts;
  std::printf("bots=%d connected=%d failed=%d corrections=%llu unexplained=%llu interactions=%llu compared=%llu rtt_ms_p50=%.2f "
              "rtt_ms_p99=%.2f bytes_in_per_s=%.0f bytes_out_per_s=%.0f bytes_in_per_bot_per_s=%.0f bytes_out_per_bot_per_s=%.0f "
              "connect_ms_p50=%.1f connect_ms_max=%.1f bytes_per_packet_in=%.1f bytes_per_packet_out=%.1f",
              bots, t.connected, t.failed, (unsigned long long)t.corrections, (unsigned long long)t.unexplained,
              (unsigned long long)t.interactions, (unsigned long long)t.compared, percentile(r1, 0.5), percentile(r2, 0.99),
              double(t.bytes_in) / secs, double(t.bytes_out) / secs, double(t.bytes_in) / secs / bots, double(t.bytes_out) / secs / bots,
              t.connects.empty() ? 0.0 : percentile(t.connects, 0.5),
              t.connects.empty() ? 0.0 : *std::max_element(t.connects.begin(), t.connects.end()),
              t.packets_in ? double(t.bytes_in) / double(t.packets_in) : 0.0,
              t.packets_out ? double(t.bytes_out) / double(t.packets_out) : 0.0);
  // The messages' figures come last, zero without --messages-per-second, so that the keys are
  // always the same; their bytes are per bot, as the message rate is.
  const MessageCounts& m = t.messages;
  const double p50 = percentile(t.messages.rtt_ms, 0.5), p99 = percentile(t.messages.rtt_ms, 0.99);
  std::printf(" messages_sent=%llu messages_received=%llu messages_lost=%llu messages_out_of_order=%llu "
              "message_rtt_ms_p50=%.2f message_rtt_ms_p99=%.2f message_bytes_out_per_s=%.0f message_bytes_in_per_s=%.0f",
              (unsigned long long)m.sent, (unsigned long long)m.received, (unsigned long long)m.lost,
              (unsigned long long)m.out_of_order, p50, p99, double(t.message_bytes_out) / secs / bots,
              double(t.message_bytes_in) / secs / bots);
  // The game's figures after them (zero without a game), in the order they were added.
  std::printf(" tags_seen=%llu server_corrections=%llu", (unsigned long long)t.tags_seen,
              (unsigned long long)t.server_corrections);
  std::printf(" shots=%llu hits=%llu hit_rate=%.4f other_hits=%llu", (unsigned long long)t.shots.shots,
              (unsigned long long)t.shots.hits, t.shots.shots ? double(t.shots.hits) / double(t.shots.shots) : 0.0,
              (unsigned long long)t.shots.other_hits);
  std::printf(" misses=%llu refused=%llu unanswered=%llu hidden=%llu", (unsigned long long)t.shots.misses,
              (unsigned long long)t.shots.refused,
              (unsigned long long)(t.shots.shots - t.shots.hits - t.shots.other_hits - t.shots.misses - t.shots.refused),
              (unsigned long long)t.shots.hidden);
  std::printf(" pop_max_m=%.4f pops_over_2cm=%llu remote_stalls=%llu remote_pop_max_m=%.4f frames=%llu", t.frames.pop_max_m,
              (unsigned long long)t.frames.pops_over_2cm, (unsigned long long)t.frames.remote_stalls, t.frames.remote_pop_max_m,
              (unsigned long long)t.frames.frames);
  // Where the largest pops were drawn, and what the drawing did that frame (#69); before ended=,
  // which stays the line's last field (scripts match " ended=...$").
  std::printf(" pop_max_at=%s remote_pop_max_at=%s", t.frames.pop_max_at.text().c_str(),
              t.frames.remote_pop_max_at.text().c_str());
  // Why the sessions ended, REASON:BOTS in the codes' order (client/end_reason.h): client_quit when
  // they ran their time, server_shutdown when the server drained.
  std::string ended;
  for (int r = 0; r < client::kEndReasons; ++r)
    if (t.ended[std::size_t(r)] > 0)
      ended += (ended.empty() ? "" : ",") + std::string(to_string(client::EndReason(r))) + ":" + std::to_string(t.ended[std::size_t(r)]);
  std::printf(" ended=%s\n", ended.empty() ? "none" : ended.c_str());
}

// Plays until the duration is over or a signal stops the fleet, then prints the summary.
int run_fleet(const World& world, const MoveSettings& settings, const FleetOptions& options, const Args& a) {
  BotFleet fleet(world, settings, options);
  g_fleet = &fleet;
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  const FleetResult result = fleet.run();
  g_fleet = nullptr;
  if (!result.error.empty()) {
    std::fprintf(stderr, "foothold-bot: %s\n", result.error.c_str());
    return 1;
  }
  Totals totals = add_up(result);
  print_summary(a, totals, result.seconds);
  return (totals.failed > 0 || totals.unexplained > 0) ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"foothold-bot: simulated Foothold players (UDP clients with prediction), and a status probe"};
  // The same options on every system: on Windows CLI11 would also read "/name" as an option, and
  // take an absolute path given as an argument ("/levels/a.glb") for one.
  app.allow_windows_style_options(false);
  Args args;
  add_options(app, args);
  app.set_version_flag("--version", version_line("foothold-bot"), "print the version and exit");

  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {  // --help, --version
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kExitUsage;
  }

  std::string err;
  proto::Key key = proto::development_key();
  if (!args.key_file.empty() && !proto::read_key_file(args.key_file, key, err)) return usage_error("--key-file: " + err);
  if (!args.probe_text.empty()) return run_probe(args.probe_text, key);

  const CheckedOptions checked = fleet_options(args, key);
  if (!checked.error.empty()) return usage_error(checked.error);
  const std::optional<MoveSettings> settings = read_settings(args.settings_path);
  if (!settings) return kExitUsage;
  auto world = load_world(args.world_name);
  if (!world.world) return usage_error(world.error);
  return run_fleet(*world.world, *settings, checked.options, args);
}
