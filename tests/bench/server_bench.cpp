// The server's own work per tick, without the operating system's: N connected clients on the
// embedded arena, each sending its input every tick, the server stepping every character and
// building every snapshot into a sink that only counts bytes. The kernel's share of a real run
// (sending the datagrams) comes on top; tests/load/server_load.sh measures the whole thing.
//
//   build/release/tests/server_bench [--benchmark_filter=...]

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <map>
#include <vector>

#include <benchmark/benchmark.h>

#include "proto/codec.h"
#include "server/bot_brain.h"
#include "server/server_core.h"
#include "shared/world.h"

namespace {

using namespace foothold;
using namespace foothold::server;

// Keeps the last datagram sent to each endpoint; counts everything.
class CaptureSink final : public net::DatagramSink {
 public:
  void send(const net::Endpoint& to, std::span<const uint8_t> bytes) override {
    bytes_ += bytes.size();
    if (capture_) last_[to].assign(bytes.begin(), bytes.end());
  }
  std::map<net::Endpoint, std::vector<uint8_t>> last_;
  uint64_t bytes_ = 0;
  bool capture_ = true;
};

std::span<const uint8_t> aligned(const std::vector<uint8_t>& v) {
  alignas(8) static uint8_t buf[2048];
  std::memcpy(buf, v.data(), v.size());
  return {buf, v.size()};
}

const World& arena() {
  static auto w = load_world("arena");
  return *w.world;
}

void BM_ServerTick(benchmark::State& state) {
  const int n = int(state.range(0));
  const bool snapshots = state.range(1) != 0;
  CaptureSink sink;
  CoreConfig cfg;
  cfg.max_clients = 4096;
  cfg.snapshot_interval = snapshots ? 1 : 1000000;
  cfg.client_packet_rate = 100000;
  cfg.handshake_rate = 1000000;
  const MoveSettings settings;
  net::Nanos now = net::kSecond;
  ServerCore core(cfg, arena(), settings, sink, now);
  proto::PacketWriter w;
  struct Bot {
    net::Endpoint ep;
    uint64_t session = 0;
    std::unique_ptr<InputSource> brain;
    uint32_t seq = 0;
  };
  std::vector<Bot> bots(static_cast<size_t>(n));
  PatternSpec wander;
  for (int i = 0; i < n; ++i) {
    Bot& b = bots[size_t(i)];
    b.ep = net::Endpoint(asio::ip::make_address_v4(0x0a000000u + uint32_t(i)), 5000);
    b.brain = make_brain(wander, 1, uint32_t(i), settings.tick_rate);
    const auto hello = w.hello(uint64_t(i) + 1);
    core.on_datagram(now, b.ep, aligned({hello.begin(), hello.end()}));
    const auto* ch = proto::decode(aligned(sink.last_[b.ep]), proto::Direction::kToClient).message.packet->body_as_Challenge();
    const std::vector<uint8_t> cookie(ch->cookie()->begin(), ch->cookie()->end());
    const auto connect = w.connect(uint64_t(i) + 1, cookie, arena().hash(), settings.hash());
    core.on_datagram(now, b.ep, aligned({connect.begin(), connect.end()}));
    b.session = proto::decode(aligned(sink.last_[b.ep]), proto::Direction::kToClient).message.packet->body_as_Accept()->session();
  }
  sink.capture_ = false;
  std::vector<double> tick_us;
  CharacterState dummy;
  for (auto _ : state) {
    // Every client's input for the next tick arrives, then the tick runs.
    const uint32_t next = core.current_tick() + 1;
    for (auto& b : bots) {
      const InputCmd in = b.brain->next(next, dummy);
      const auto batch = w.input_batch(b.session, ++b.seq, core.current_tick(), 0, std::span<const InputCmd>(&in, 1));
      core.on_datagram(now, b.ep, aligned({batch.begin(), batch.end()}));
    }
    const auto t0 = std::chrono::steady_clock::now();
    core.tick(now);
    tick_us.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
    now += net::kSecond / settings.tick_rate;
  }
  std::sort(tick_us.begin(), tick_us.end());
  state.counters["tick_us_p50"] = tick_us[tick_us.size() / 2];
  state.counters["tick_us_p99"] = tick_us[std::min(tick_us.size() - 1, size_t(double(tick_us.size()) * 0.99))];
  state.counters["bytes_per_client_tick"] = double(sink.bytes_) / double(tick_us.size()) / n;
}

BENCHMARK(BM_ServerTick)
    ->ArgsProduct({{1, 100, 500, 1000}, {0, 1}})
    ->ArgNames({"clients", "snapshots"})
    ->Iterations(600)
    ->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
