// The metrics and probes (server/metrics.h, server/metrics_server.h): the text Prometheus reads, and
// /healthz failing when the tick loop stops publishing.

#include <chrono>
#include <set>
#include <sstream>
#include <string>
#include <thread>

#include <gtest/gtest.h>
#include <httplib.h>

#include "server/metrics.h"
#include "server/metrics_server.h"

namespace foothold::test {
namespace {

using server::Counter;
using server::MetricsServer;
using server::MetricsSnapshot;

// The value on the line that starts with `series` followed by a space (-1 when there is none).
double value_of(const std::string& text, const std::string& series) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (line.rfind(series + " ", 0) == 0) return std::stod(line.substr(series.size() + 1));
  return -1;
}

TEST(Metrics, TheTextHasEveryFamilyOnceItsHistogramCumulativeAndItsLabels) {
  MetricsSnapshot m;
  m.clients = 3;
  m.max_clients = 64;
  m.tick = 1234;
  m.tick_rate = 60;
  m.ready = true;
  m.agones_state = "Allocated";
  m.counters.add(Counter::kDropBadSeal, 7);
  m.counters.add(Counter::kAccepted, 5);
  m.counters.add(Counter::kRejectedFull, 2);
  m.counters.add(Counter::kBytesOut, 9000);
  m.gso_sends = 11;
  m.gso_datagrams = 40;
  for (double s : {0.0001, 0.0003, 0.003, 0.003, 0.02, 2.0}) m.tick_duration.add(s);
  const std::string text = server::prometheus_text(m);

  EXPECT_EQ(value_of(text, "foothold_clients"), 3);
  EXPECT_EQ(value_of(text, "foothold_max_clients"), 64);
  EXPECT_EQ(value_of(text, "foothold_tick"), 1234);
  EXPECT_EQ(value_of(text, "foothold_ready"), 1);
  EXPECT_EQ(value_of(text, "foothold_agones_state{state=\"Allocated\"}"), 1);
  EXPECT_EQ(value_of(text, "foothold_datagrams_dropped_total{reason=\"bad_seal\"}"), 7);
  EXPECT_EQ(value_of(text, "foothold_drop_bad_seal_total"), 7);
  EXPECT_EQ(value_of(text, "foothold_handshakes_total{outcome=\"accepted\"}"), 5);
  EXPECT_EQ(value_of(text, "foothold_handshakes_total{outcome=\"rejected_full\"}"), 2);
  EXPECT_EQ(value_of(text, "foothold_bytes_out_total"), 9000);
  EXPECT_EQ(value_of(text, "foothold_gso_sends_total"), 11);
  EXPECT_EQ(value_of(text, "foothold_gso_datagrams_total"), 40);
  // Buckets count every tick at or below their bound.
  EXPECT_EQ(value_of(text, "foothold_tick_duration_seconds_bucket{le=\"0.00025\"}"), 1);
  EXPECT_EQ(value_of(text, "foothold_tick_duration_seconds_bucket{le=\"0.0005\"}"), 2);
  EXPECT_EQ(value_of(text, "foothold_tick_duration_seconds_bucket{le=\"0.004\"}"), 4);
  EXPECT_EQ(value_of(text, "foothold_tick_duration_seconds_bucket{le=\"0.0333\"}"), 5);
  EXPECT_EQ(value_of(text, "foothold_tick_duration_seconds_bucket{le=\"1\"}"), 5);
  EXPECT_EQ(value_of(text, "foothold_tick_duration_seconds_bucket{le=\"+Inf\"}"), 6);
  EXPECT_EQ(value_of(text, "foothold_tick_duration_seconds_count"), 6);
  EXPECT_NEAR(value_of(text, "foothold_tick_duration_seconds_sum"), 2.0264, 1e-9);
  // Each family is declared once, and every sample belongs to a declared family.
  std::set<std::string> declared;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("# TYPE ", 0) == 0) {
      const std::string name = line.substr(7, line.find(' ', 7) - 7);
      EXPECT_TRUE(declared.insert(name).second) << name << " declared twice";
    } else if (!line.empty() && line[0] != '#') {
      std::string name = line.substr(0, line.find_first_of("{ "));
      for (const char* suffix : {"_bucket", "_sum", "_count"})
        if (declared.count(name) == 0 && name.size() > std::string(suffix).size() &&
            name.compare(name.size() - std::string(suffix).size(), std::string::npos, suffix) == 0)
          name.resize(name.size() - std::string(suffix).size());
      EXPECT_EQ(declared.count(name), 1u) << "undeclared: " << line;
    }
  }
  m.draining = true;
  EXPECT_EQ(value_of(server::prometheus_text(m), "foothold_ready"), 0) << "draining is not ready";
}

TEST(MetricsServer, ProbesFollowTheTicksAndAHungTickFailsHealth) {
  std::string error;
  const auto stall = std::chrono::milliseconds(300);
  auto m = MetricsServer::start("127.0.0.1", 0, proto::Nanos(std::chrono::nanoseconds(stall).count()), error);
  ASSERT_NE(m, nullptr) << error;
  httplib::Client http("127.0.0.1", m->port());
  auto get = [&](const char* path) {
    const auto r = http.Get(path);
    return r ? std::pair<int, std::string>{r->status, r->body} : std::pair<int, std::string>{-1, ""};
  };
  EXPECT_EQ(get("/healthz").first, 503) << "no tick yet";
  MetricsSnapshot s;
  s.ready = true;
  s.clients = 2;
  s.max_clients = 8;
  s.tick = 77;
  m->publish(s, proto::steady_now());
  EXPECT_EQ(get("/healthz"), (std::pair<int, std::string>{200, "ok: tick 77\n"}));
  EXPECT_EQ(get("/readyz"), (std::pair<int, std::string>{200, "ready: 2 of 8 clients\n"}));
  const auto metrics = get("/metrics");
  EXPECT_EQ(metrics.first, 200);
  EXPECT_EQ(value_of(metrics.second, "foothold_tick"), 77);
  // The tick loop stops publishing (a hung tick): both probes fail, saying why.
  std::this_thread::sleep_for(stall * 2);
  const auto hung = get("/healthz");
  EXPECT_EQ(hung.first, 503);
  EXPECT_EQ(hung.second.rfind("stalled: no tick for ", 0), 0u) << hung.second;
  EXPECT_EQ(get("/readyz").first, 503);
  // Ticking again, but draining: alive, not ready.
  s.draining = true;
  m->publish(s, proto::steady_now());
  EXPECT_EQ(get("/healthz").first, 200);
  EXPECT_EQ(get("/readyz"), (std::pair<int, std::string>{503, "draining: not taking players\n"}));
  EXPECT_GE(m->requests(), 8u);
  // A port already taken is refused, naming the address.
  auto second = MetricsServer::start("127.0.0.1", m->port(), proto::kSecond, error);
  EXPECT_EQ(second, nullptr);
  EXPECT_NE(error.find("--metrics-address 127.0.0.1:" + std::to_string(m->port()) + ": cannot listen there"),
            std::string::npos)
      << error;
}

}  // namespace
}  // namespace foothold::test
