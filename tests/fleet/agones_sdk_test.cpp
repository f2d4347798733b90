// The SDK client (fleet/agones_sdk.h) against the real Agones sidecar in its local mode.
#include "fleet/agones_sdk.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <thread>

#include "support/agones_sidecar.h"

namespace foothold::fleet {
namespace {

using test::AgonesSidecar;
using namespace std::chrono_literals;

#define REQUIRE_SIDECAR() \
  if (AgonesSidecar::binary().empty()) GTEST_SKIP() << AgonesSidecar::missing_reason()

TEST(AgonesSdk, ReadyAllocateAndTheCounterAgainstTheSidecar) {
  REQUIRE_SIDECAR();
  test::TempDir dir;
  AgonesSidecar sidecar(dir, AgonesSidecar::game_server_yaml("127.0.0.1", 7002, "mode: ctf", "map: arena", 10));
  AgonesSdk sdk("127.0.0.1", sidecar.http_port(), 1000ms);
  GameServerInfo gs;
  ASSERT_TRUE(sdk.game_server(gs).ok);
  EXPECT_EQ(gs.state, "Scheduled");
  EXPECT_EQ(gs.address, "127.0.0.1");
  ASSERT_EQ(gs.ports.size(), 1u);
  EXPECT_EQ(gs.ports[0].port, 7002);
  EXPECT_EQ(gs.player_capacity, 10);

  ASSERT_TRUE(sdk.ready().ok);
  ASSERT_TRUE(sdk.health().ok);
  ASSERT_TRUE(sdk.set_counter_capacity("players", 64).ok);
  ASSERT_TRUE(sdk.set_counter_count("players", 5).ok);
  ASSERT_TRUE(sdk.game_server(gs).ok);
  EXPECT_EQ(gs.state, "Ready");
  EXPECT_EQ(gs.players, 5);
  EXPECT_EQ(gs.player_capacity, 64);
  // A count over the capacity is the sidecar's to refuse, and the refusal says so.
  const SdkResult over = sdk.set_counter_count("players", 65);
  EXPECT_FALSE(over.ok);
  EXPECT_NE(over.error.find("PATCH /v1beta1/counters/players"), std::string::npos) << over.error;
  // No such Counter: refused, naming it.
  const SdkResult none = sdk.set_counter_count("spectators", 1);
  EXPECT_FALSE(none.ok);
  EXPECT_NE(none.error.find("spectators"), std::string::npos) << none.error;

  ASSERT_TRUE(sdk.allocate().ok);
  ASSERT_TRUE(sdk.game_server(gs).ok);
  EXPECT_EQ(gs.state, "Allocated");
  EXPECT_EQ(gs.labels, (Metadata{{"mode", "ctf"}}));
  ASSERT_TRUE(sdk.shutdown().ok);
  ASSERT_TRUE(sdk.game_server(gs).ok);
  EXPECT_EQ(gs.state, "Shutdown");
}

TEST(AgonesSdk, TheWatchSeesEachChangeAndStopsWhenAsked) {
  REQUIRE_SIDECAR();
  test::TempDir dir;
  AgonesSidecar sidecar(dir, AgonesSidecar::game_server_yaml("127.0.0.1", 7002, "", "", 4));
  AgonesSdk sdk("127.0.0.1", sidecar.http_port(), 1000ms);
  std::mutex m;
  std::vector<std::string> states;
  SdkResult result{false, "not returned"};
  std::thread watcher([&] {
    result = sdk.watch([&](const GameServerInfo& gs) {
      std::lock_guard lock(m);
      states.push_back(gs.state);
    });
  });
  auto seen = [&](std::size_t n) {
    for (int i = 0; i < 200; ++i) {
      {
        std::lock_guard lock(m);
        if (states.size() >= n) return true;
      }
      std::this_thread::sleep_for(10ms);
    }
    return false;
  };
  ASSERT_TRUE(seen(1)) << "the watch sent nothing";  // the record as it is, first
  AgonesSdk other("127.0.0.1", sidecar.http_port(), 1000ms);
  ASSERT_TRUE(other.ready().ok);
  ASSERT_TRUE(seen(2));
  ASSERT_TRUE(other.allocate().ok);
  ASSERT_TRUE(seen(3));
  const auto t0 = std::chrono::steady_clock::now();
  sdk.stop_watch();
  watcher.join();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 2s) << "stop_watch() did not end the watch at once";
  EXPECT_TRUE(result.ok) << result.error;
  std::lock_guard lock(m);
  EXPECT_EQ(states[0], "Scheduled");
  EXPECT_EQ(states[1], "Ready");
  EXPECT_EQ(states[2], "Allocated");
}

TEST(AgonesSdk, NoSidecarIsAnErrorNamingTheCall) {
  AgonesSdk sdk("127.0.0.1", test::free_tcp_port(), 300ms);
  const SdkResult r = sdk.ready();
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("POST /ready"), std::string::npos) << r.error;
  GameServerInfo gs;
  EXPECT_FALSE(sdk.game_server(gs).ok);
  const SdkResult w = sdk.watch([](const GameServerInfo&) {});
  EXPECT_FALSE(w.ok);
  EXPECT_NE(w.error.find("/watch/gameserver"), std::string::npos) << w.error;
}

TEST(AgonesSdk, ThePortFromTheEnvironment) {
  std::string error;
  ::unsetenv("AGONES_SDK_HTTP_PORT");
  EXPECT_FALSE(sdk_port_from_environment(error).has_value());
  EXPECT_TRUE(error.empty());
  ::setenv("AGONES_SDK_HTTP_PORT", "9358", 1);
  EXPECT_EQ(sdk_port_from_environment(error), 9358);
  for (const char* bad : {"0", "65536", "93x", "-1", " 9358"}) {
    ::setenv("AGONES_SDK_HTTP_PORT", bad, 1);
    EXPECT_FALSE(sdk_port_from_environment(error).has_value()) << bad;
    EXPECT_NE(error.find("AGONES_SDK_HTTP_PORT"), std::string::npos) << bad;
  }
  ::unsetenv("AGONES_SDK_HTTP_PORT");
}

}  // namespace
}  // namespace foothold::fleet
