// The server's Agones lifecycle (server/agones_agent.h) against the real sidecar in its local mode:
// Ready, health that stops when the ticks do, the players Counter, the allocation, idle shutdown,
// Shutdown; and a sidecar that is not there yet.
#include "server/agones_agent.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <thread>

#include <spdlog/sinks/ostream_sink.h>

#include "support/agones_sidecar.h"

namespace foothold::server {
namespace {

using test::AgonesSidecar;
using namespace std::chrono_literals;

#define REQUIRE_SIDECAR() \
  if (AgonesSidecar::binary().empty()) GTEST_SKIP() << AgonesSidecar::missing_reason()

// Waits up to `seconds` for `done`.
bool eventually(const std::function<bool()>& done, double seconds = 5) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < until) {
    if (done()) return true;
    std::this_thread::sleep_for(10ms);
  }
  return done();
}

// The tick loop as the agent sees it: publish() every 10 ms while `running`, with `clients`.
struct FakeTicks {
  explicit FakeTicks(AgonesAgent& to) : agent(to) {
    thread = std::thread([this] {
      while (!quit) {
        if (running) this->agent.publish(proto::steady_now(), clients.load());
        std::this_thread::sleep_for(10ms);
      }
    });
  }
  ~FakeTicks() {
    quit = true;
    thread.join();
  }
  AgonesAgent& agent;
  std::atomic<bool> running{true}, quit{false};
  std::atomic<std::size_t> clients{0};
  std::thread thread;
};

// What the hooks were told.
struct Told {
  std::mutex m;
  std::string host;
  int port = 0;
  int allocations = 0;
  fleet::Metadata labels, annotations;
  int stops = 0;
  std::string why;
  AgonesHooks hooks() {
    AgonesHooks h;
    h.address = [this](const std::string& a, int p) {
      std::lock_guard lock(m);
      host = a;
      port = p;
    };
    h.allocated = [this](const fleet::GameServerInfo& gs) {
      std::lock_guard lock(m);
      ++allocations;
      labels = gs.labels;
      annotations = gs.annotations;
    };
    h.stop = [this](const std::string& w) {
      std::lock_guard lock(m);
      ++stops;
      why = w;
    };
    return h;
  }
};

std::shared_ptr<spdlog::logger> test_log(std::ostringstream& out) {
  return std::make_shared<spdlog::logger>("agones", std::make_shared<spdlog::sinks::ostream_sink_mt>(out));
}

AgonesOptions fast_options(int port) {
  AgonesOptions o;
  o.port = port;
  o.health_interval = 100 * proto::kMillisecond;
  o.idle_shutdown = 600 * proto::kMillisecond;
  o.stall_after = 300 * proto::kMillisecond;
  o.capacity = 16;
  return o;
}

TEST(AgonesAgent, TheWholeLifecycle) {
  REQUIRE_SIDECAR();
  test::TempDir dir;
  AgonesSidecar sidecar(dir, AgonesSidecar::game_server_yaml("127.0.0.2", 7123, "mode: ctf", "map: arena, match: m-42", 10));
  fleet::AgonesSdk sdk("127.0.0.1", sidecar.http_port(), 1000ms);
  std::ostringstream log;
  Told told;
  AgonesAgent agent(fast_options(sidecar.http_port()), test_log(log), told.hooks());
  FakeTicks ticks(agent);
  agent.start();

  fleet::GameServerInfo gs;
  ASSERT_TRUE(eventually([&] { return sdk.game_server(gs).ok && gs.state == "Ready"; })) << log.str();
  {
    std::lock_guard lock(told.m);
    EXPECT_EQ(told.host, "127.0.0.2");
    EXPECT_EQ(told.port, 7123);
  }
  // Health keeps arriving, and the sidecar takes it.
  ASSERT_TRUE(eventually([&] { return agent.health_sent() >= 3 && sidecar.count("Health Ping Received!") >= 3; })) << log.str();
  // The Counter: capacity = max_clients, count = the clients, following them both ways.
  ASSERT_TRUE(eventually([&] { return sdk.game_server(gs).ok && gs.player_capacity == 16; }));
  ticks.clients = 3;
  ASSERT_TRUE(eventually([&] { return sdk.game_server(gs).ok && gs.players == 3; }));
  ticks.clients = 1;
  ASSERT_TRUE(eventually([&] { return sdk.game_server(gs).ok && gs.players == 1; }));
  // Not allocated: no client is no reason to stop.
  ticks.clients = 0;
  std::this_thread::sleep_for(900ms);
  EXPECT_EQ(told.stops, 0);

  // The allocation reaches the hook once, with the labels and annotations, sorted by key.
  ASSERT_TRUE(sdk.allocate().ok);
  ASSERT_TRUE(eventually([&] {
    std::lock_guard lock(told.m);
    return told.allocations == 1;
  }));
  EXPECT_EQ(agent.state(), "Allocated");
  {
    std::lock_guard lock(told.m);
    EXPECT_EQ(told.labels, (fleet::Metadata{{"mode", "ctf"}}));
    EXPECT_EQ(told.annotations, (fleet::Metadata{{"map", "arena"}, {"match", "m-42"}}));
  }
  // Allocated and empty for idle_shutdown: the match is over, said once.
  const auto allocated_at = std::chrono::steady_clock::now();
  ASSERT_TRUE(eventually([&] {
    std::lock_guard lock(told.m);
    return told.stops == 1;
  }));
  EXPECT_GE(std::chrono::steady_clock::now() - allocated_at, 500ms);
  std::this_thread::sleep_for(300ms);
  EXPECT_EQ(told.stops, 1);
  EXPECT_NE(told.why.find("idle_shutdown"), std::string::npos) << told.why;

  // The drain's end: Shutdown, taken.
  EXPECT_TRUE(agent.shutdown(proto::steady_now() + 3 * proto::kSecond));
  ASSERT_TRUE(sdk.game_server(gs).ok);
  EXPECT_EQ(gs.state, "Shutdown");
  EXPECT_EQ(told.allocations, 1);
}

TEST(AgonesAgent, AStalledTickFailsHealth) {
  REQUIRE_SIDECAR();
  test::TempDir dir;
  AgonesSidecar sidecar(dir, AgonesSidecar::game_server_yaml("127.0.0.1", 7123, "", "", 10));
  std::ostringstream log;
  Told told;
  AgonesAgent agent(fast_options(sidecar.http_port()), test_log(log), told.hooks());
  FakeTicks ticks(agent);
  agent.start();
  ASSERT_TRUE(eventually([&] { return agent.health_sent() >= 3; })) << log.str();
  // The tick loop hangs: after stall_after (300 ms) no more health, however long it lasts.
  ticks.running = false;
  std::this_thread::sleep_for(500ms);
  const uint64_t at_stall = agent.health_sent();
  const int pings_at_stall = sidecar.count("Health Ping Received!");
  std::this_thread::sleep_for(1000ms);  // ten health intervals
  EXPECT_EQ(agent.health_sent(), at_stall);
  EXPECT_EQ(sidecar.count("Health Ping Received!"), pings_at_stall);
  EXPECT_NE(log.str().find("health withheld"), std::string::npos) << log.str();
  // It ticks again: health again.
  ticks.running = true;
  ASSERT_TRUE(eventually([&] { return agent.health_sent() >= at_stall + 3; })) << log.str();
  EXPECT_GT(sidecar.count("Health Ping Received!"), pings_at_stall);
  EXPECT_NE(log.str().find("health resumed"), std::string::npos);
}

TEST(AgonesAgent, ASidecarNotThereYetIsWaitedFor) {
  REQUIRE_SIDECAR();
  test::TempDir dir;
  const int port = test::free_tcp_port();
  std::ostringstream log;
  Told told;
  AgonesAgent agent(fast_options(port), test_log(log), told.hooks());
  FakeTicks ticks(agent);
  const auto t0 = std::chrono::steady_clock::now();
  agent.start();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 100ms) << "start() waited for the sidecar";
  std::this_thread::sleep_for(1200ms);
  EXPECT_EQ(agent.state(), "");
  EXPECT_EQ(agent.health_sent(), 0u);
  // It says so, with the back-off growing (0.25 s, 0.5 s, ...).
  EXPECT_NE(log.str().find("did not take Ready"), std::string::npos) << log.str();
  EXPECT_NE(log.str().find("retrying in 0.50 s"), std::string::npos) << log.str();
  // The sidecar comes up: Ready lands, health with it.
  AgonesSidecar sidecar(dir, AgonesSidecar::game_server_yaml("127.0.0.1", 7123, "", "", 10), {}, port);
  fleet::AgonesSdk sdk("127.0.0.1", port, 1000ms);
  fleet::GameServerInfo gs;
  ASSERT_TRUE(eventually([&] { return sdk.game_server(gs).ok && gs.state == "Ready"; }, 8)) << log.str();
  ASSERT_TRUE(eventually([&] { return agent.health_sent() >= 1; })) << log.str();
}

TEST(AgonesAgent, ShutdownWithoutASidecarGivesUpAtTheDeadline) {
  std::ostringstream log;
  Told told;
  AgonesAgent agent(fast_options(test::free_tcp_port()), test_log(log), told.hooks());
  agent.start();
  std::this_thread::sleep_for(200ms);
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_FALSE(agent.shutdown(proto::steady_now() + 2 * proto::kSecond));
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 2500ms);
  EXPECT_NE(log.str().find("Shutdown not taken"), std::string::npos) << log.str();
}

}  // namespace
}  // namespace foothold::server
