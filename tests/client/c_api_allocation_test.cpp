// The C API's promise: once connected, the per-frame calls allocate nothing, messages sent and
// received every frame included (against an echo server). This binary replaces the global allocator
// with a counting one, so it is its own executable.

#include "foothold/client.h"

#include <chrono>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "proto/token.h"
#include "support/counting_allocator.h"
#include "support/local_server.h"

namespace foothold::test {
namespace {

double wall_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

TEST(ClientApiAllocation, PerFrameCallsAllocateNothingOnceConnected) {
  TempDir dir;
  std::string address;
  auto server = start_server(FOOTHOLD_SERVER_BIN, dir, "server", {"--game", "echo"}, address);
  ASSERT_FALSE(address.empty()) << server->output();
  ASSERT_TRUE(wait_ready(FOOTHOLD_BOT_BIN, address)) << server->output();

  // Two clients, so that remote characters, interpolation and interactions are all in play.
  foothold_client* clients[2] = {nullptr, nullptr};
  for (int i = 0; i < 2; ++i) {
    foothold_client_config config;
    foothold_client_config_init(&config);
    char error[256];
    ASSERT_EQ(foothold_client_create(&config, &clients[i], error, sizeof error), FOOTHOLD_CLIENT_OK) << error;
    const auto token = proto::serialize_token(mint_for(address, uint64_t(i) + 1));
    ASSERT_EQ(foothold_client_connect(clients[i], token.data(), token.size()), FOOTHOLD_CLIENT_OK);
  }
  const size_t movers = foothold_client_mover_triangle_count(clients[0]);
  std::vector<float> mover_vertices(movers * 9);
  foothold_client_character me, others[16];
  foothold_client_stats stats;
  size_t count = 0;
  std::vector<uint8_t> message(1024), outgoing(200, 7);
  uint64_t echoes = 0;
  // One frame of everything a game calls: input, update, the characters (and the own one as drawn),
  // stats, the movers to draw.
  const auto frame = [&](int f) {
    for (foothold_client* c : clients) {
      foothold_client_set_input(c, f % 120 < 60 ? 1.0 : -1.0, 0.5, f % 90 == 0 ? FOOTHOLD_CLIENT_BUTTON_JUMP : 0u);
      foothold_client_update(c, wall_seconds());
      if (foothold_client_get_status(c) != FOOTHOLD_CLIENT_CONNECTED) continue;
      foothold_client_local_character(c, &me);
      double error[3];
      foothold_client_draw_local(c, &me, error);
      foothold_client_remote_characters(c, others, 16, &count);
      foothold_client_draw_remotes(c, others, 16, &count);
      foothold_client_get_stats(c, &stats);
      foothold_client_mover_triangles(c, 0, movers, mover_vertices.data(), nullptr);
      // A message each way on each channel, every frame: sent, echoed, received.
      outgoing[0] = uint8_t(f);
      foothold_client_send_message(c, FOOTHOLD_CLIENT_RELIABLE, outgoing.data(), outgoing.size());
      foothold_client_send_message(c, FOOTHOLD_CLIENT_UNRELIABLE, outgoing.data(), 50);
      size_t message_size = 0;
      while (foothold_client_receive_message(c, message.data(), message.size(), &message_size, nullptr) == FOOTHOLD_CLIENT_OK &&
             message_size > 0)
        ++echoes;
    }
    std::this_thread::sleep_for(std::chrono::microseconds(16667));
  };
  // Connect and warm up: buffers reach their working sizes, the other character appears.
  int f = 0;
  const double warm_until = wall_seconds() + 2;
  while (wall_seconds() < warm_until) frame(f++);
  for (foothold_client* c : clients) ASSERT_EQ(foothold_client_get_status(c), FOOTHOLD_CLIENT_CONNECTED) << foothold_client_last_error(c);
  ASSERT_EQ(foothold_client_remote_characters(clients[0], others, 16, &count), FOOTHOLD_CLIENT_OK);
  ASSERT_EQ(count, 1u);
  ASSERT_EQ(foothold_client_draw_remotes(clients[0], others, 16, &count), FOOTHOLD_CLIENT_OK);
  ASSERT_EQ(count, 1u);

  const uint64_t echoes_before = echoes;
  const long before = heap_allocations();
  for (int i = 0; i < 120; ++i) frame(f++);  // two seconds
  const long allocated = heap_allocations() - before;
  ASSERT_EQ(foothold_client_get_stats(clients[0], &stats), FOOTHOLD_CLIENT_OK);
  EXPECT_GT(stats.snapshots, 150u) << "snapshots kept arriving while counting";
  EXPECT_EQ(allocated, 0) << "heap allocations in 120 frames of two connected clients";
  EXPECT_GT(echoes - echoes_before, 400u) << "messages kept flowing both ways while counting";
  for (foothold_client* c : clients) foothold_client_destroy(c);
}

}  // namespace
}  // namespace foothold::test
