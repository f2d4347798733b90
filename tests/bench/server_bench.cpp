// The server's own work per tick, without the operating system's, on 1 or 2 threads: N connected
// clients, each sending its input every tick, the server stepping every character and building and
// sealing a snapshot for each every `snapshots` ticks (0: none) into a sink that only counts bytes.
// The world is the embedded arena (world:0; 64 m square, so 2,000 clients stand about 0.5 to the m²)
// or terrain96 (world:1; 96 m of gentle hills walled in, generated here, where 4,000 clients stand
// about as densely as 2,000 in the arena: the 4,000-client rows measure capacity, not a crush). The kernel's share of a
// real run (sending the datagrams) comes on top; tests/load/server_load.sh measures the whole thing.
// Also: what the encryption costs per datagram (BM_Seal*, BM_Open*) and what a connect request with
// a forged or a valid token costs the server (BM_ConnectRequest).
//
//   build/release/tests/server_bench [--digest] [--round-trip-ms=MS] [--benchmark_filter=...]
//
// --digest opens every datagram sent after the handshakes and folds its plaintext into the counter
// payload_digest (FNV-1a, low 32 bits): the same digest before and after a change means the same
// snapshots, byte for byte (the sealed bytes differ per run: session keys are random). Opening
// happens inside the timed tick, so tick times with --digest are not figures.
//
// --round-trip-ms=MS has each client acknowledge the newest snapshot sent to it MS milliseconds
// before (default 0: the one just sent), as clients that far away would: the server then keeps that
// many more views per client (rss_kb_per_client) and builds deltas against older bases.

#include <algorithm>
#include <chrono>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <vector>

#include <benchmark/benchmark.h>

#include "games/tag_game.h"
#include "server/game.h"

#include "proto/codec.h"
#include "proto/cookie_layout.h"
#include "proto/handshake.h"
#include "proto/secure.h"
#include "proto/token.h"
#include "bots/bot_brain.h"
#include "server/server_core.h"
#include "server/snapshot_phase.h"
#include "shared/world.h"
#include "shared/formats/world_file.h"

namespace {

// UNIX time at the start of the server's clock in these runs (any fixed time).
constexpr uint64_t kUnixNow = 1'800'000'000;

using namespace foothold;
using namespace foothold::server;
using namespace foothold::bots;

bool g_digest = false;    // --digest
int g_round_trip_ms = 0;  // --round-trip-ms
int g_neighbours = CoreConfig{}.neighbours;  // --neighbours

// Keeps the last datagram sent to each endpoint; counts everything. With `keys` set (--digest), opens
// each datagram with its client's key and folds the plaintext into `digest_`.
class CaptureSink final : public proto::DatagramSink {
 public:
  void send(const proto::Endpoint& to, std::span<const uint8_t> bytes) override {
    bytes_ += bytes.size();
    if (capture_) last_[to].assign(bytes.begin(), bytes.end());
    if (!keys_ || capture_) return;
    const std::size_t index = to.address().to_v4().to_uint() - kFirstClient;
    uint64_t sequence = 0;
    std::span<const uint8_t> packet;
    if (index >= keys_->size() || proto::open_session((*keys_)[index], window_, bytes, plain_, sequence, packet) != proto::OpenError::kNone) {
      digest_ = 0;  // not a sealed datagram for a client of ours: no digest at all
      keys_ = nullptr;
      return;
    }
    for (uint8_t b : packet) digest_ = (digest_ ^ b) * 0x100000001b3ull;
  }
  static constexpr uint32_t kFirstClient = 0x0a000000u;  // the clients' addresses: 10.0.0.0 and up
  std::map<proto::Endpoint, std::vector<uint8_t>> last_;
  uint64_t bytes_ = 0;
  bool capture_ = true;
  const std::vector<proto::Key>* keys_ = nullptr;
  uint64_t digest_ = 0xcbf29ce484222325ull;

 private:
  const proto::ReplayWindow window_{};  // never marked: every datagram opens
  proto::DatagramBuffer plain_;
};

const World& arena() {
  static auto w = load_world("arena");
  return *w.world;
}

// terrain96: 96 m x 96 m of 4 m quads (about as many triangles under a capsule as the arena's floor
// has), hills of up to 2 m from integer arithmetic (the same world on every machine), walled in 4 m
// high so that no wanderer walks off it.
const World& terrain96() {
  static const World::Build w = [] {
    constexpr int kQuads = 24, kSide = kQuads + 1;
    constexpr double kQuad = 4, kHalf = kQuads * kQuad / 2.0;
    TriangleMesh m;
    for (int z = 0; z < kSide; ++z)
      for (int x = 0; x < kSide; ++x)
        m.vertices.push_back({x * kQuad - kHalf, double(std::abs(x % 10 - 5) + std::abs(z % 14 - 7)) / 6.0, z * kQuad - kHalf});
    for (int z = 0; z < kQuads; ++z)
      for (int x = 0; x < kQuads; ++x) {
        const uint32_t a = uint32_t(z * kSide + x), b = a + 1, c = a + kSide, d = c + 1;
        m.faces.push_back({{a, c, b}});
        m.faces.push_back({{b, c, d}});
      }
    // The walls, facing in: one quad per side, from below the floor to 4 m.
    const double lo = -1, hi = 4;
    const Vec3 corners[4] = {{-kHalf, 0, -kHalf}, {kHalf, 0, -kHalf}, {kHalf, 0, kHalf}, {-kHalf, 0, kHalf}};
    for (int i = 0; i < 4; ++i) {
      const Vec3& p = corners[i];
      const Vec3& q = corners[(i + 1) % 4];
      const uint32_t base = uint32_t(m.vertices.size());
      m.vertices.insert(m.vertices.end(), {{p.x, lo, p.z}, {q.x, lo, q.z}, {q.x, hi, q.z}, {p.x, hi, p.z}});
      m.faces.push_back({{base, base + 2, base + 1}});
      m.faces.push_back({{base, base + 3, base + 2}});
    }
    return World::create(m, "terrain96");
  }();
  return *w.world;
}

// The process's resident memory now, bytes (VmRSS of /proc/self/status; 0 where there is none).
double resident_bytes() {
  std::FILE* f = std::fopen("/proc/self/status", "r");
  if (!f) return 0;
  char line[256];
  double kb = 0;
  while (std::fgets(line, sizeof line, f))
    if (std::sscanf(line, "VmRSS: %lf kB", &kb) == 1) break;
  std::fclose(f);
  return kb * 1024;
}

// Ticks played before the timed ones: one second at 60 Hz.
constexpr int kWarmupTicks = 60;

// A game that changes an attribute of every character, and one of the match's, every tick: the
// snapshots' worst case for attributes (each change rides until acknowledged).
struct ChurnGame final : server::Game {
  server::GameSchema schema() const override { return {{"churn"}, {"tick"}}; }
  void after_tick(server::GameControl& g, const server::TickReport& r) override {
    for (const auto& c : r.characters) g.set_attribute(c.id, 0, int32_t(r.tick * 7 + c.id));
    g.set_match_attribute(0, int32_t(r.tick));
  }
};

// The game a benchmark runs: 0 none, 1 tag, 2 churn.
std::unique_ptr<server::Game> bench_game(int64_t which) {
  if (which == 1) return server::make_tag_game();
  if (which == 2) return std::make_unique<ChurnGame>();
  return nullptr;
}

void BM_ServerTick(benchmark::State& state) {
  const int n = int(state.range(0));
  const int snapshots = int(state.range(1));  // ticks between snapshots; 0: none
  const int threads = int(state.range(2));
  const int64_t game = state.range(3);
  const World& world = state.range(4) == 1 ? terrain96() : arena();
  const double rss_before = resident_bytes();  // the world loaded, no server yet
  CaptureSink sink;
  CoreConfig cfg;
  cfg.max_clients = 4096;
  cfg.threads = threads;
  cfg.snapshot_interval = snapshots;
  cfg.neighbours = g_neighbours;
  cfg.client_packet_rate = 100000;
  cfg.handshake_rate = 1000000;
  cfg.source_limits.address_rate = 1e9;
  cfg.source_limits.prefix_rate = 1e9;
  cfg.key = proto::development_key();
  const proto::Endpoint server_ep(asio::ip::make_address("10.255.0.1"), 7777);
  cfg.addresses.push_back(proto::to_token_address(server_ep));
  cfg.unix_clock = server::virtual_unix_clock(kUnixNow, proto::kSecond);  // `now` starts at 1 s
  const MoveSettings settings;
  proto::Nanos now = proto::kSecond;
  ServerCore core(cfg, world, settings, sink, now);
  core.set_game(bench_game(game));
  proto::PacketWriter w;
  proto::DatagramBuffer buf, rx;
  struct Bot {
    proto::Endpoint ep;
    proto::SessionKeys keys;
    std::unique_ptr<client::InputSource> brain;
    uint64_t seq = 0;
  };
  std::vector<Bot> bots(static_cast<size_t>(n));
  PatternSpec wander;
  const auto address = proto::to_token_address(server_ep);
  for (int i = 0; i < n; ++i) {
    Bot& b = bots[size_t(i)];
    b.ep = proto::Endpoint(asio::ip::make_address_v4(CaptureSink::kFirstClient + uint32_t(i)), 5000);
    b.brain = make_brain(wander, 1, uint32_t(i), settings.tick_rate);
    // The handshake by hand: request, challenge, connect with the proof.
    proto::ConnectToken token;
    std::string error;
    proto::mint_token(cfg.key, uint64_t(i) + 1, std::span(&address, 1), kUnixNow, 60, token, error);
    const uint64_t salt = uint64_t(i) + 1;
    core.on_datagram(now, b.ep, proto::frame_clear(w.connect_request(token.sealed, salt), buf));
    std::span<const uint8_t> packet;
    proto::open_reply(token.server_to_client, proto::kNoRequestTag, sink.last_[b.ep], rx, packet);
    const auto* ch = proto::decode(packet, proto::Direction::kToClient, proto::Layer::kSealed).message.packet->body_as_Challenge();
    const std::vector<uint8_t> cookie(ch->cookie()->begin(), ch->cookie()->end());
    const auto proof = proto::seal_proof(token.client_to_server, cookie, world.hash(), settings.hash());
    core.on_datagram(now, b.ep, proto::frame_clear(w.connect(token.sealed, salt, cookie, proof), buf));
    proto::open_accept(token, proto::connect_attempt(salt, cookie, proof), sink.last_[b.ep], rx, b.keys);
  }
  if (core.client_count() != size_t(n)) state.SkipWithError("the bots did not all connect");
  sink.capture_ = false;
  std::vector<proto::Key> receive_keys;
  for (const Bot& b : bots) receive_keys.push_back(b.keys.receive);
  if (g_digest) sink.keys_ = &receive_keys;
  std::vector<double> tick_us;
  CharacterState dummy;
  const SnapshotSchedule schedule{uint32_t(snapshots)};
  const uint32_t ack_lag = uint32_t(g_round_trip_ms * settings.tick_rate / 1000);  // ticks
  // Every client's input for the next tick arrives, then the tick runs.
  auto play_tick = [&] {
    const uint32_t next = core.current_tick() + 1;
    for (auto& b : bots) {
      const InputCmd in = b.brain->next(next, dummy);
      std::array<uint8_t, 64> message{};
      // The newest snapshot sent to this bot (the clients take turns: snapshot_phase.h; the server
      // gives the ids 1, 2, ... in the order they joined), acknowledged as a client that received it
      // would (a tick without one would leave every snapshot without a base).
      const uint32_t id = uint32_t(&b - bots.data()) + 1;
      const uint32_t sent_by = core.current_tick() - std::min(core.current_tick(), ack_lag);
      const uint32_t acked = snapshots > 0 ? schedule.latest(id, sent_by) : 0;
      const auto inputs = proto::write_inputs({acked, next, false}, std::span<const InputCmd>(&in, 1), message);
      core.on_datagram(now, b.ep, proto::seal_session(b.keys.send, ++b.seq, inputs, buf, proto::Payload::kCompact));
    }
    const auto t0 = std::chrono::steady_clock::now();
    core.tick(now);
    now += proto::kSecond / settings.tick_rate;
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
  };
  // The figures are the steady state: every client joined in the same instant, so the first second
  // (spawn overlaps pushed apart, the first snapshots adding every character in view) is played
  // untimed. Its worst tick is reported apart (warmup_tick_us_max).
  double warmup_max = 0;
  for (int t = 0; t < kWarmupTicks; ++t) warmup_max = std::max(warmup_max, play_tick());
  const uint64_t warmup_bytes = sink.bytes_;
  for (auto _ : state) tick_us.push_back(play_tick());
  std::sort(tick_us.begin(), tick_us.end());
  state.counters["tick_us_p50"] = tick_us[tick_us.size() / 2];
  state.counters["tick_us_p99"] = tick_us[std::min(tick_us.size() - 1, size_t(double(tick_us.size()) * 0.99))];
  state.counters["bytes_per_client_tick"] = double(sink.bytes_ - warmup_bytes) / double(tick_us.size()) / n;
  state.counters["warmup_tick_us_max"] = warmup_max;
  // What the server holds per client once playing: its resident memory less the process's before the
  // server was made (the bench's own bots, a few hundred bytes each, included), over the clients.
  // Meaningful for a row run alone (--benchmark_filter): a row after others starts on memory the
  // allocator kept from them.
  state.counters["rss_kb_per_client"] = (resident_bytes() - rss_before) / 1024.0 / n;
  if (g_digest) state.counters["payload_digest"] = double(sink.digest_ & 0xffffffffu);
}

BENCHMARK(BM_ServerTick)
    ->ArgsProduct({{1, 100, 500, 1000, 2000}, {0, 1}, {1, 2}, {0}, {0}})
    ->ArgsProduct({{1000}, {1}, {1, 2}, {1, 2}, {0}})
    ->ArgsProduct({{2000, 4000}, {1, 2}, {2}, {0}, {1}})
    ->ArgNames({"clients", "snapshots", "threads", "game", "world"})
    ->Iterations(600)
    ->Unit(benchmark::kMicrosecond);

// Sealing and opening one session datagram of a given Packet size (100 bytes: an input batch; 400:
// a snapshot with 16 others; 1100: a full one).
void BM_SealSession(benchmark::State& state) {
  const std::vector<uint8_t> packet(size_t(state.range(0)), 7);
  const proto::Key key = proto::generate_key();
  proto::DatagramBuffer out;
  uint64_t seq = 0;
  for (auto _ : state) benchmark::DoNotOptimize(proto::seal_session(key, ++seq, packet, out).size());
  state.counters["bytes_added"] = double(proto::seal_session(key, 1000, packet, out).size() - packet.size());
}
BENCHMARK(BM_SealSession)->Arg(100)->Arg(400)->Arg(1100)->Unit(benchmark::kMicrosecond);

void BM_OpenSession(benchmark::State& state) {
  const std::vector<uint8_t> packet(size_t(state.range(0)), 7);
  const proto::Key key = proto::generate_key();
  proto::DatagramBuffer out, in;
  const auto sealed = proto::seal_session(key, 1000, packet, out);
  const std::vector<uint8_t> datagram(sealed.begin(), sealed.end());
  const proto::ReplayWindow window;  // never marked: the same datagram opens every time
  for (auto _ : state) {
    uint64_t seq = 0;
    std::span<const uint8_t> p;
    benchmark::DoNotOptimize(proto::open_session(key, window, datagram, in, seq, p));
  }
}
BENCHMARK(BM_OpenSession)->Arg(100)->Arg(400)->Arg(1100)->Unit(benchmark::kMicrosecond);

// What a connect request costs the server: a forged token (refused after one failed decryption) and
// a valid one (opened, a cookie made, a Challenge sealed), each from a new address.
void BM_ConnectRequest(benchmark::State& state) {
  const bool valid = state.range(0) != 0;
  CaptureSink sink;
  sink.capture_ = false;
  CoreConfig cfg;
  cfg.handshake_rate = 1000000000;
  cfg.token_rate = 1e12;  // the same token from every address: measure the whole path, not the limit
  cfg.source_limits.address_rate = 1e9;
  cfg.source_limits.prefix_rate = 1e9;
  cfg.key = proto::development_key();
  const proto::Endpoint server_ep(asio::ip::make_address("10.255.0.1"), 7777);
  const auto address = proto::to_token_address(server_ep);
  cfg.addresses.push_back(address);
  cfg.unix_clock = server::virtual_unix_clock(kUnixNow, proto::kSecond);  // `now` starts at 1 s
  proto::Nanos now = proto::kSecond;
  ServerCore core(cfg, arena(), MoveSettings{}, sink, now);
  proto::ConnectToken token;
  std::string error;
  proto::mint_token(cfg.key, 1, std::span(&address, 1), kUnixNow, 600, token, error);
  if (!valid) token.sealed[200] ^= 1;
  proto::PacketWriter w;
  proto::DatagramBuffer buf;
  const auto request = proto::frame_clear(w.connect_request(token.sealed, 1), buf);
  uint32_t i = 0;
  for (auto _ : state) {
    now += 1000;
    core.on_datagram(now, proto::Endpoint(asio::ip::make_address_v4(0x0b000000u + (++i & 0xffffff)), 1000), request);
  }
  state.counters["challenges"] = double(core.counters().get(Counter::kChallengesSent));
}
BENCHMARK(BM_ConnectRequest)->Arg(0)->Arg(1)->ArgNames({"valid"})->Unit(benchmark::kMicrosecond);

// What a spoofed flood of Connects costs the server now that a Connect's cookie is checked before the
// per-source budgets (so that a genuine client's Connect never waits on buckets a flood drained): a
// junk cookie with a current issue time, its MAC computed and refused, from a new address each, with
// the default budgets: then the per-source buckets, the token's decryption (a sniffed valid token)
// and its per-token budget, which refuses nearly all.
void BM_JunkConnect(benchmark::State& state) {
  CaptureSink sink;
  sink.capture_ = false;
  CoreConfig cfg;
  cfg.key = proto::development_key();
  const proto::Endpoint server_ep(asio::ip::make_address("10.255.0.1"), 7777);
  const auto address = proto::to_token_address(server_ep);
  cfg.addresses.push_back(address);
  cfg.unix_clock = server::virtual_unix_clock(kUnixNow, proto::kSecond);
  proto::Nanos now = proto::kSecond;
  ServerCore core(cfg, arena(), MoveSettings{}, sink, now);
  proto::ConnectToken token;
  std::string error;
  proto::mint_token(cfg.key, 1, std::span(&address, 1), kUnixNow, 600, token, error);
  proto::CookieFields fields{uint64_t(now), 0x5a5a5a5a5a5a5a5aull, {}};  // issued "now": only the MAC can refuse it
  fields.mac.fill(0x5a);
  const auto cookie = proto::write_cookie(fields);
  const auto proof = proto::seal_proof(token.client_to_server, cookie, 1, 2);
  proto::PacketWriter w;
  proto::DatagramBuffer buf;
  const auto connect = proto::frame_clear(w.connect(token.sealed, 1, cookie, proof), buf);
  uint32_t i = 0;
  for (auto _ : state) {
    now += 1000;
    core.on_datagram(now, proto::Endpoint(asio::ip::make_address_v4(0x0b000000u + (++i & 0xffffff)), 1000), connect);
  }
  state.counters["token_limited"] = double(core.counters().get(Counter::kTokenRateLimited));
}
BENCHMARK(BM_JunkConnect)->Unit(benchmark::kMicrosecond);

// The value of `--name=N` in `arg`, an integer in [low, high]: nullopt if `arg` is another flag; a
// value that is not such an integer is bad usage (exit 2, saying which).
std::optional<int> int_flag(const char* arg, const char* name, long low, long high, const char* what) {
  const std::size_t len = std::strlen(name);
  if (std::strncmp(arg, name, len) != 0 || arg[len] != '=') return std::nullopt;
  const char* text = arg + len + 1;
  char* end = nullptr;
  errno = 0;
  const long v = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || errno != 0 || v < low || v > high) {
    std::fprintf(stderr, "server_bench: %s takes %ld to %ld %s, not '%s'\n", name, low, high, what, text);
    std::exit(2);
  }
  return int(v);
}

}  // namespace

int main(int argc, char** argv) {
  // Our own flags first; the rest belongs to Google Benchmark.
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) {
    if (std::strcmp(argv[i], "--digest") == 0) {
      g_digest = true;
    } else if (const auto ms = int_flag(argv[i], "--round-trip-ms", 0, 1000, "milliseconds")) {
      g_round_trip_ms = *ms;
    } else if (const auto n = int_flag(argv[i], "--neighbours", 0, long(proto::kMaxSnapshotNeighbours), "characters")) {
      g_neighbours = *n;
    } else {
      args.push_back(argv[i]);
    }
  }
  int n = int(args.size());
  benchmark::Initialize(&n, args.data());
  if (benchmark::ReportUnrecognizedArguments(n, args.data())) return 2;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
