// The C API (foothold/client.h): every misuse answered with an error code and a message, and a real
// session on loopback against foothold-server.

#include "foothold/client.h"

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cmath>
#include <ctime>
#include <string>
#include <thread>

#include <functional>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "proto/token.h"
#include "support/local_server.h"
#include "support/process.h"

namespace foothold::test {
namespace {

const std::string kServer = FOOTHOLD_SERVER_BIN;
const std::string kBot = FOOTHOLD_BOT_BIN;
const std::string kCClient = FOOTHOLD_C_CLIENT_BIN;

double wall_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// A client on the arena with default settings (the test fails if it cannot be made).
foothold_client* make_client(const char* world = "arena", double connect_timeout = 5) {
  foothold_client_config config;
  foothold_client_config_init(&config);
  config.world = world;
  config.connect_timeout_s = connect_timeout;
  foothold_client* c = nullptr;
  char error[256] = "";
  EXPECT_EQ(foothold_client_create(&config, &c, error, sizeof error), FOOTHOLD_CLIENT_OK) << error;
  return c;
}

// Runs `client` at 60 frames per second on the wall clock until `done` or `seconds` pass.
template <class Done>
void run_frames(foothold_client* client, double seconds, Done done, double move_z = 0) {
  const double end = wall_seconds() + seconds;
  while (wall_seconds() < end && !done()) {
    ASSERT_EQ(foothold_client_set_input(client, 0, move_z, 0), FOOTHOLD_CLIENT_OK);
    ASSERT_EQ(foothold_client_update(client, wall_seconds()), FOOTHOLD_CLIENT_OK) << foothold_client_last_error(client);
    std::this_thread::sleep_for(std::chrono::microseconds(16667));
  }
}

bool connect_bytes(foothold_client* c, const proto::ConnectToken& token) {
  const auto bytes = proto::serialize_token(token);
  return foothold_client_connect(c, bytes.data(), bytes.size()) == FOOTHOLD_CLIENT_OK;
}

TEST(ClientApi, NullHandlesAreRefusedNeverDereferenced) {
  foothold_client_character ch;
  foothold_client_stats stats;
  size_t count = 7;
  float v[9];
  const uint8_t token[1] = {0};
  EXPECT_EQ(foothold_client_connect(nullptr, token, 1), FOOTHOLD_CLIENT_ERROR_ARGUMENT);
  EXPECT_EQ(foothold_client_connect_token_file(nullptr, "x"), FOOTHOLD_CLIENT_ERROR_ARGUMENT);
  EXPECT_EQ(foothold_client_update(nullptr, 0), FOOTHOLD_CLIENT_ERROR_ARGUMENT);
  EXPECT_EQ(foothold_client_set_input(nullptr, 0, 0, 0), FOOTHOLD_CLIENT_ERROR_ARGUMENT);
  EXPECT_EQ(foothold_client_local_character(nullptr, &ch), FOOTHOLD_CLIENT_ERROR_ARGUMENT);
  EXPECT_EQ(foothold_client_remote_characters(nullptr, &ch, 1, &count), FOOTHOLD_CLIENT_ERROR_ARGUMENT);
  EXPECT_EQ(foothold_client_draw_remotes(nullptr, &ch, 1, &count), FOOTHOLD_CLIENT_ERROR_ARGUMENT);
  EXPECT_EQ(foothold_client_get_stats(nullptr, &stats), FOOTHOLD_CLIENT_ERROR_ARGUMENT);
  foothold_client_event event;
  EXPECT_EQ(foothold_client_poll_event(nullptr, &event), FOOTHOLD_CLIENT_ERROR_ARGUMENT);
  EXPECT_EQ(foothold_client_world_triangles(nullptr, 0, 1, v, nullptr), FOOTHOLD_CLIENT_ERROR_ARGUMENT);
  EXPECT_EQ(foothold_client_mover_triangles(nullptr, 0, 1, v, nullptr), FOOTHOLD_CLIENT_ERROR_ARGUMENT);
  EXPECT_EQ(foothold_client_capsule(nullptr, nullptr, nullptr, nullptr), FOOTHOLD_CLIENT_ERROR_ARGUMENT);
  EXPECT_EQ(foothold_client_disconnect(nullptr), FOOTHOLD_CLIENT_ERROR_ARGUMENT);
  EXPECT_EQ(foothold_client_get_status(nullptr), FOOTHOLD_CLIENT_IDLE);
  EXPECT_EQ(foothold_client_world_triangle_count(nullptr), 0u);
  EXPECT_EQ(foothold_client_mover_triangle_count(nullptr), 0u);
  EXPECT_STREQ(foothold_client_last_error(nullptr), "null client");
  foothold_client_destroy(nullptr);
  foothold_client_config_init(nullptr);
}

TEST(ClientApi, CreateRefusesBadConfigsAndNamesTheProblem) {
  char error[256];
  foothold_client* c = reinterpret_cast<foothold_client*>(1);
  foothold_client_config config;
  foothold_client_config_init(&config);
  EXPECT_EQ(foothold_client_create(nullptr, &c, error, sizeof error), FOOTHOLD_CLIENT_ERROR_ARGUMENT);
  EXPECT_EQ(c, nullptr) << "out is cleared on failure";
  EXPECT_EQ(foothold_client_create(&config, nullptr, error, sizeof error), FOOTHOLD_CLIENT_ERROR_ARGUMENT);

  foothold_client_config uninitialised{};
  EXPECT_EQ(foothold_client_create(&uninitialised, &c, error, sizeof error), FOOTHOLD_CLIENT_ERROR_ARGUMENT);
  EXPECT_NE(std::string(error).find("config_init"), std::string::npos) << error;

  config.connect_timeout_s = std::nan("");
  EXPECT_EQ(foothold_client_create(&config, &c, error, sizeof error), FOOTHOLD_CLIENT_ERROR_ARGUMENT);
  EXPECT_NE(std::string(error).find("connect_timeout_s"), std::string::npos) << error;
  foothold_client_config_init(&config);

  config.world = "/nonexistent/level.obj";
  EXPECT_EQ(foothold_client_create(&config, &c, error, sizeof error), FOOTHOLD_CLIENT_ERROR_WORLD);
  EXPECT_NE(std::string(error).find("/nonexistent/level.obj"), std::string::npos) << error;
  foothold_client_config_init(&config);

  config.message_queue_bytes = 1000;
  EXPECT_EQ(foothold_client_create(&config, &c, error, sizeof error), FOOTHOLD_CLIENT_ERROR_ARGUMENT);
  EXPECT_NE(std::string(error).find("message_queue_bytes"), std::string::npos) << error;
  foothold_client_config_init(&config);
  config.message_rate = 0;
  EXPECT_EQ(foothold_client_create(&config, &c, error, sizeof error), FOOTHOLD_CLIENT_ERROR_ARGUMENT);
  EXPECT_NE(std::string(error).find("message_rate"), std::string::npos) << error;
  foothold_client_config_init(&config);
  EXPECT_EQ(config.draw_extrapolate, 0);
  EXPECT_EQ(config.draw_smoothing_s, 0.1);
  EXPECT_EQ(config.draw_snap_m, 2.0);
  EXPECT_EQ(config.draw_remote_extrapolate_s, 0.1);
  for (const auto& [field, set] : std::vector<std::pair<std::string, std::function<void(foothold_client_config&)>>>{
           {"draw_extrapolate must be 0 or 1", [](foothold_client_config& k) { k.draw_extrapolate = 2; }},
           {"draw_smoothing_s must be in [0, 2]", [](foothold_client_config& k) { k.draw_smoothing_s = -0.1; }},
           {"draw_smoothing_s must be in [0, 2]", [](foothold_client_config& k) { k.draw_smoothing_s = std::nan(""); }},
           {"draw_snap_m must be in [0.01, 100]", [](foothold_client_config& k) { k.draw_snap_m = 0; }},
           {"draw_remote_extrapolate_s must be in [0, 1]", [](foothold_client_config& k) { k.draw_remote_extrapolate_s = 1.5; }},
           {"draw_remote_extrapolate_s must be in [0, 1]", [](foothold_client_config& k) { k.draw_remote_extrapolate_s = std::nan(""); }}}) {
    foothold_client_config_init(&config);
    set(config);
    EXPECT_EQ(foothold_client_create(&config, &c, error, sizeof error), FOOTHOLD_CLIENT_ERROR_ARGUMENT);
    EXPECT_NE(std::string(error).find(field), std::string::npos) << error;
  }
  foothold_client_config_init(&config);
  EXPECT_EQ(config.message_copies, 1u);
  for (const uint32_t copies : {0u, 5u}) {
    config.message_copies = copies;
    EXPECT_EQ(foothold_client_create(&config, &c, error, sizeof error), FOOTHOLD_CLIENT_ERROR_ARGUMENT);
    EXPECT_NE(std::string(error).find("message_copies must be in [1, 4]"), std::string::npos) << error;
  }
  foothold_client_config_init(&config);

  TempDir dir;
  const std::string settings = dir.write("bad.toml", "gravity = -3\n");
  config.settings_file = settings.c_str();
  EXPECT_EQ(foothold_client_create(&config, &c, error, sizeof error), FOOTHOLD_CLIENT_ERROR_SETTINGS);
  EXPECT_NE(std::string(error).find("gravity"), std::string::npos) << error;
  foothold_client_config_init(&config);

  config.server = "nowhere:notaport";
  EXPECT_EQ(foothold_client_create(&config, &c, error, sizeof error), FOOTHOLD_CLIENT_ERROR_NETWORK);
  EXPECT_NE(std::string(error).find("config.server"), std::string::npos) << error;

  // A short buffer gets a cut, terminated message; a null one none at all.
  foothold_client_config_init(&config);
  config.world = "/nonexistent/level.obj";
  char tiny[8];
  EXPECT_EQ(foothold_client_create(&config, &c, tiny, sizeof tiny), FOOTHOLD_CLIENT_ERROR_WORLD);
  EXPECT_EQ(std::string(tiny).size(), 7u);
  EXPECT_EQ(foothold_client_create(&config, &c, nullptr, 0), FOOTHOLD_CLIENT_ERROR_WORLD);
}

TEST(ClientApi, CallsBeforeConnectSayNotConnected) {
  foothold_client* c = make_client();
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(foothold_client_get_status(c), FOOTHOLD_CLIENT_IDLE);
  foothold_client_character ch;
  EXPECT_EQ(foothold_client_local_character(c, &ch), FOOTHOLD_CLIENT_ERROR_STATE);
  EXPECT_NE(std::string(foothold_client_last_error(c)).find("not connected"), std::string::npos);
  size_t count = 9;
  EXPECT_EQ(foothold_client_remote_characters(c, &ch, 1, &count), FOOTHOLD_CLIENT_ERROR_STATE);
  EXPECT_EQ(count, 0u);
  count = 9;
  EXPECT_EQ(foothold_client_draw_remotes(c, &ch, 1, &count), FOOTHOLD_CLIENT_ERROR_STATE);
  EXPECT_EQ(count, 0u);
  EXPECT_EQ(foothold_client_draw_remotes(c, nullptr, 1, &count), FOOTHOLD_CLIENT_ERROR_ARGUMENT) << "out is null with a capacity";
  EXPECT_EQ(foothold_client_draw_remotes(c, &ch, 1, nullptr), FOOTHOLD_CLIENT_ERROR_ARGUMENT);
  EXPECT_EQ(foothold_client_update(c, 1.0), FOOTHOLD_CLIENT_ERROR_STATE) << "nothing to run before connect";
  EXPECT_NE(std::string(foothold_client_last_error(c)).find("not connected"), std::string::npos);
  EXPECT_EQ(foothold_client_set_input(c, 0, 1, 0), FOOTHOLD_CLIENT_ERROR_STATE);
  foothold_client_event event;
  event.kind = 7;
  EXPECT_EQ(foothold_client_poll_event(c, &event), FOOTHOLD_CLIENT_ERROR_STATE);
  EXPECT_EQ(event.kind, FOOTHOLD_CLIENT_EVENT_NONE);
  EXPECT_EQ(foothold_client_poll_event(c, nullptr), FOOTHOLD_CLIENT_ERROR_ARGUMENT);
  EXPECT_EQ(foothold_client_end_reason(c), FOOTHOLD_CLIENT_END_NONE);
  foothold_client_stats stats;
  ASSERT_EQ(foothold_client_get_stats(c, &stats), FOOTHOLD_CLIENT_OK);
  EXPECT_EQ(stats.struct_size, sizeof stats);
  EXPECT_EQ(stats.rtt_ms, -1);
  EXPECT_EQ(stats.ticks, 0u);
  EXPECT_EQ(foothold_client_disconnect(c), FOOTHOLD_CLIENT_OK);
  foothold_client_destroy(c);
}

TEST(ClientApi, WorldTrianglesAreTheArenasAndRangesAreChecked) {
  foothold_client* c = make_client();
  ASSERT_NE(c, nullptr);
  const size_t n = foothold_client_world_triangle_count(c);
  ASSERT_GT(n, 100u);
  std::vector<float> v(n * 9);
  std::vector<uint32_t> tags(n);
  ASSERT_EQ(foothold_client_world_triangles(c, 0, n, v.data(), tags.data()), FOOTHOLD_CLIENT_OK);
  float lowest = 1e9f, highest = -1e9f;
  for (size_t i = 0; i < n * 9; i += 3) {
    lowest = std::min(lowest, v[i + 1]);
    highest = std::max(highest, v[i + 1]);
  }
  EXPECT_EQ(lowest, 0.0f) << "the arena's floor is at y = 0";
  EXPECT_GT(highest, 2.0f);
  EXPECT_EQ(foothold_client_world_triangles(c, n, 1, v.data(), nullptr), FOOTHOLD_CLIENT_ERROR_ARGUMENT);
  EXPECT_EQ(foothold_client_world_triangles(c, 1, SIZE_MAX, v.data(), nullptr), FOOTHOLD_CLIENT_ERROR_ARGUMENT);
  EXPECT_EQ(foothold_client_world_triangles(c, 0, 1, nullptr, nullptr), FOOTHOLD_CLIENT_ERROR_ARGUMENT);
  EXPECT_EQ(foothold_client_world_triangles(c, n, 0, nullptr, nullptr), FOOTHOLD_CLIENT_OK) << "an empty range at the end";
  // The arena's movers are drawable before connecting (at tick 0).
  const size_t m = foothold_client_mover_triangle_count(c);
  EXPECT_GT(m, 0u);
  std::vector<float> mv(m * 9);
  EXPECT_EQ(foothold_client_mover_triangles(c, 0, m, mv.data(), nullptr), FOOTHOLD_CLIENT_OK);
  double radius = 0, height = 0, crouch = 0;
  ASSERT_EQ(foothold_client_capsule(c, &radius, &height, &crouch), FOOTHOLD_CLIENT_OK);
  EXPECT_GT(radius, 0);
  EXPECT_GT(height, crouch);
  foothold_client_destroy(c);
}

TEST(ClientApi, BadTokensAndBadInputAreRefused) {
  foothold_client* c = make_client();
  ASSERT_NE(c, nullptr);
  const uint8_t garbage[16] = {1, 2, 3};
  EXPECT_EQ(foothold_client_connect(c, garbage, sizeof garbage), FOOTHOLD_CLIENT_ERROR_TOKEN);
  EXPECT_NE(std::string(foothold_client_last_error(c)).find("token"), std::string::npos);
  EXPECT_EQ(foothold_client_connect(c, nullptr, 0), FOOTHOLD_CLIENT_ERROR_ARGUMENT);
  EXPECT_EQ(foothold_client_connect_token_file(c, "/nonexistent/player.token"), FOOTHOLD_CLIENT_ERROR_TOKEN);
  EXPECT_NE(std::string(foothold_client_last_error(c)).find("/nonexistent/player.token"), std::string::npos);

  // A token whose minute ran out two minutes ago.
  proto::TokenAddress here{};
  here.ip = {127, 0, 0, 1};
  here.port = 9;
  proto::ConnectToken old;
  std::string error;
  ASSERT_TRUE(proto::mint_token(proto::development_key(), 1, std::span(&here, 1), uint64_t(std::time(nullptr)) - 120, 60,
                                old, error))
      << error;
  EXPECT_FALSE(connect_bytes(c, old));
  EXPECT_NE(std::string(foothold_client_last_error(c)).find("expired"), std::string::npos) << foothold_client_last_error(c);
  EXPECT_EQ(foothold_client_get_status(c), FOOTHOLD_CLIENT_IDLE) << "a refused token starts nothing";
  // A token valid only from ten minutes on: said now, not after a silent time-out.
  proto::ConnectToken later;
  ASSERT_TRUE(proto::mint_token(proto::development_key(), 1, std::span(&here, 1), uint64_t(std::time(nullptr)), 60, later,
                                error, 600))
      << error;
  EXPECT_FALSE(connect_bytes(c, later));
  EXPECT_NE(std::string(foothold_client_last_error(c)).find("not valid for another"), std::string::npos)
      << foothold_client_last_error(c);
  EXPECT_EQ(foothold_client_get_status(c), FOOTHOLD_CLIENT_IDLE);

  EXPECT_EQ(foothold_client_set_input(c, std::nan(""), 0, 0), FOOTHOLD_CLIENT_ERROR_ARGUMENT);
  EXPECT_EQ(foothold_client_set_input(c, 0, INFINITY, 0), FOOTHOLD_CLIENT_ERROR_ARGUMENT);
  EXPECT_EQ(foothold_client_set_input(c, 5, -5, 0xffffffffu), FOOTHOLD_CLIENT_ERROR_STATE) << "not connected yet";
  EXPECT_EQ(foothold_client_update(c, 10.0), FOOTHOLD_CLIENT_ERROR_STATE) << "not connected yet";
  EXPECT_EQ(foothold_client_update(c, 9.0), FOOTHOLD_CLIENT_ERROR_ARGUMENT);
  EXPECT_NE(std::string(foothold_client_last_error(c)).find("backwards"), std::string::npos);
  EXPECT_EQ(foothold_client_update(c, std::nan("")), FOOTHOLD_CLIENT_ERROR_ARGUMENT);

  // A valid token: connecting starts; a second connect is refused.
  proto::ConnectToken fresh;
  ASSERT_TRUE(proto::mint_token(proto::development_key(), 2, std::span(&here, 1), uint64_t(std::time(nullptr)), 60, fresh,
                                error));
  EXPECT_TRUE(connect_bytes(c, fresh)) << foothold_client_last_error(c);
  EXPECT_EQ(foothold_client_get_status(c), FOOTHOLD_CLIENT_CONNECTING);
  EXPECT_EQ(foothold_client_set_input(c, 5, -5, 0xffffffffu), FOOTHOLD_CLIENT_OK) << "long vectors and unknown bits are fine";
  EXPECT_FALSE(connect_bytes(c, fresh));
  EXPECT_NE(std::string(foothold_client_last_error(c)).find("already"), std::string::npos);
  foothold_client_destroy(c);
}

class ClientApiOnLoopback : public ::testing::Test {
 protected:
  void SetUp() override {
    server_ = start_server(kServer, dir_, "server", {}, address_);
    ASSERT_FALSE(address_.empty()) << server_->output();
    ASSERT_TRUE(wait_ready(kBot, address_)) << server_->output();
  }
  TempDir dir_;
  std::string address_;
  std::unique_ptr<Spawned> server_;
};

TEST_F(ClientApiOnLoopback, TwoClientsConnectWalkAndSeeEachOther) {
  foothold_client* a = make_client();
  foothold_client* b = make_client();
  ASSERT_TRUE(a && b);
  ASSERT_TRUE(connect_bytes(a, mint_for(address_, 1))) << foothold_client_last_error(a);
  ASSERT_TRUE(connect_bytes(b, mint_for(address_, 2))) << foothold_client_last_error(b);
  const auto both = [&] {
    return foothold_client_get_status(a) == FOOTHOLD_CLIENT_CONNECTED && foothold_client_get_status(b) == FOOTHOLD_CLIENT_CONNECTED;
  };
  // Both clients run in the same loop, one frame each.
  const double deadline = wall_seconds() + 5;
  while (!both() && wall_seconds() < deadline) {
    ASSERT_EQ(foothold_client_update(a, wall_seconds()), FOOTHOLD_CLIENT_OK);
    ASSERT_EQ(foothold_client_update(b, wall_seconds()), FOOTHOLD_CLIENT_OK);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ASSERT_TRUE(both()) << foothold_client_last_error(a) << " / " << foothold_client_last_error(b);
  foothold_client_character start_a;
  ASSERT_EQ(foothold_client_local_character(a, &start_a), FOOTHOLD_CLIENT_OK);
  // a walks toward -Z for two seconds; b stands.
  const double end = wall_seconds() + 2;
  while (wall_seconds() < end) {
    ASSERT_EQ(foothold_client_set_input(a, 0, -1, 0), FOOTHOLD_CLIENT_OK);
    ASSERT_EQ(foothold_client_update(a, wall_seconds()), FOOTHOLD_CLIENT_OK);
    ASSERT_EQ(foothold_client_update(b, wall_seconds()), FOOTHOLD_CLIENT_OK);
    std::this_thread::sleep_for(std::chrono::microseconds(16667));
  }
  foothold_client_character now_a, now_b;
  ASSERT_EQ(foothold_client_local_character(a, &now_a), FOOTHOLD_CLIENT_OK);
  ASSERT_EQ(foothold_client_local_character(b, &now_b), FOOTHOLD_CLIENT_OK);
  EXPECT_NE(now_a.id, now_b.id);
  EXPECT_LT(now_a.position[2], start_a.position[2] - 3) << "walked at least 3 m toward -Z in 2 s";
  EXPECT_EQ(now_a.ground, FOOTHOLD_CLIENT_GROUND_WALKABLE);
  EXPECT_LT(now_a.velocity[2], -1);

  // b sees a, where a is (a few ticks behind it), and a sees b.
  foothold_client_stats s;
  foothold_client_character others[8];
  size_t n = 0;
  ASSERT_EQ(foothold_client_remote_characters(b, others, 8, &n), FOOTHOLD_CLIENT_OK);
  ASSERT_EQ(n, 1u);
  EXPECT_EQ(others[0].id, now_a.id);
  EXPECT_NEAR(others[0].position[0], now_a.position[0], 0.05);
  EXPECT_NEAR(others[0].position[2], now_a.position[2], 1.0);
  EXPECT_LT(others[0].velocity[2], -1) << "remote velocity from the snapshots";
  size_t just_count = 0;
  ASSERT_EQ(foothold_client_remote_characters(a, nullptr, 0, &just_count), FOOTHOLD_CLIENT_OK);
  EXPECT_EQ(just_count, 1u) << "a capacity of 0 writes nothing and tells the count";
  EXPECT_EQ(just_count, size_t(foothold_client_get_stats(a, &s) == FOOTHOLD_CLIENT_OK ? s.remote_count : 0));

  ASSERT_EQ(foothold_client_get_stats(a, &s), FOOTHOLD_CLIENT_OK);
  EXPECT_GT(s.ticks, 100u);
  EXPECT_GT(s.snapshots, 60u);
  EXPECT_GE(s.rtt_ms, 0);
  EXPECT_GE(s.rtt_ms_smoothed, 0);
  // Measured on the application's clock, read once per update: a handshake that completes within one
  // update (its replies arrive while that update drains the socket) measures 0.
  EXPECT_GE(s.connect_ms, 0);
  EXPECT_GT(s.bytes_in, 1000u);
  EXPECT_GT(s.bytes_out, 1000u);
  EXPECT_EQ(s.corrections_unexplained, 0u);
  EXPECT_EQ(s.corrections, s.corrections_input + s.corrections_interaction + s.corrections_unexplained);
  EXPECT_EQ(s.remote_count, 1u);
  EXPECT_GT(s.server_tick, 0u);

  // Players named: each character carries the client id of its player's token, and b heard a come.
  EXPECT_EQ(now_a.client_id, 1u);
  EXPECT_EQ(now_b.client_id, 2u);
  EXPECT_EQ(others[0].client_id, 1u);
  ASSERT_EQ(foothold_client_draw_remotes(b, others, 8, &n), FOOTHOLD_CLIENT_OK);
  ASSERT_EQ(n, 1u);
  EXPECT_EQ(others[0].client_id, 1u);
  std::vector<foothold_client_event> heard;
  const auto hear = [&] {
    foothold_client_event e;
    for (;;) {
      EXPECT_EQ(foothold_client_poll_event(b, &e), FOOTHOLD_CLIENT_OK);
      if (e.kind == FOOTHOLD_CLIENT_EVENT_NONE) return;
      heard.push_back(e);
    }
  };
  hear();
  ASSERT_EQ(heard.size(), 1u);
  EXPECT_EQ(heard[0].kind, FOOTHOLD_CLIENT_EVENT_APPEARED);
  EXPECT_EQ(heard[0].character_id, now_a.id);
  EXPECT_EQ(heard[0].client_id, 1u);

  EXPECT_EQ(foothold_client_disconnect(a), FOOTHOLD_CLIENT_OK);
  EXPECT_EQ(foothold_client_get_status(a), FOOTHOLD_CLIENT_DISCONNECTED);
  // b hears a leave the match (not merely its view).
  const double quit_deadline = wall_seconds() + 3;
  while (heard.size() < 2 && wall_seconds() < quit_deadline) {
    ASSERT_EQ(foothold_client_update(b, wall_seconds()), FOOTHOLD_CLIENT_OK);
    hear();
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ASSERT_EQ(heard.size(), 2u);
  EXPECT_EQ(heard[1].kind, FOOTHOLD_CLIENT_EVENT_LEFT_MATCH);
  EXPECT_EQ(heard[1].character_id, now_a.id);
  EXPECT_EQ(heard[1].client_id, 1u);
  EXPECT_GT(heard[1].tick, heard[0].tick);
  foothold_client_destroy(a);
  foothold_client_destroy(b);
}

// Against foothold-server --game echo: messages both ways through the C API.
class ClientApiEcho : public ::testing::Test {
 protected:
  void SetUp() override {
    server_ = start_server(kServer, dir_, "server", {"--game", "echo"}, address_);
    ASSERT_FALSE(address_.empty()) << server_->output();
    ASSERT_TRUE(wait_ready(kBot, address_)) << server_->output();
  }
  TempDir dir_;
  std::string address_;
  std::unique_ptr<Spawned> server_;
};

std::vector<uint8_t> numbered_message(uint32_t n, std::size_t size) {
  std::vector<uint8_t> v(size);
  for (std::size_t i = 0; i < size; ++i) v[i] = uint8_t(n * 31 + i * 7 + (i >> 9));
  return v;
}

TEST_F(ClientApiEcho, MessagesGoAndComeBackWholeInOrderOnTheirChannel) {
  foothold_client* c = make_client();
  ASSERT_TRUE(c);
  const uint8_t one = 1;
  EXPECT_EQ(foothold_client_send_message(c, FOOTHOLD_CLIENT_RELIABLE, &one, 1), FOOTHOLD_CLIENT_ERROR_STATE) << "not connected";
  ASSERT_TRUE(connect_bytes(c, mint_for(address_, 1))) << foothold_client_last_error(c);
  const double deadline = wall_seconds() + 5;
  while (foothold_client_get_status(c) != FOOTHOLD_CLIENT_CONNECTED && wall_seconds() < deadline) {
    ASSERT_EQ(foothold_client_update(c, wall_seconds()), FOOTHOLD_CLIENT_OK);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ASSERT_EQ(foothold_client_get_status(c), FOOTHOLD_CLIENT_CONNECTED) << foothold_client_last_error(c);
  // Refused by name: an unknown channel, nothing, too much.
  EXPECT_EQ(foothold_client_send_message(c, 7, &one, 1), FOOTHOLD_CLIENT_ERROR_ARGUMENT);
  EXPECT_NE(std::string(foothold_client_last_error(c)).find("channel 7"), std::string::npos);
  EXPECT_EQ(foothold_client_send_message(c, FOOTHOLD_CLIENT_RELIABLE, &one, 0), FOOTHOLD_CLIENT_ERROR_ARGUMENT);
  const std::vector<uint8_t> too_big(65537, 1);
  EXPECT_EQ(foothold_client_send_message(c, FOOTHOLD_CLIENT_RELIABLE, too_big.data(), too_big.size()), FOOTHOLD_CLIENT_ERROR_ARGUMENT);
  EXPECT_NE(std::string(foothold_client_last_error(c)).find("65537 bytes: at most 65536"), std::string::npos) << foothold_client_last_error(c);
  EXPECT_EQ(foothold_client_send_message(c, FOOTHOLD_CLIENT_UNRELIABLE, too_big.data(), 1025), FOOTHOLD_CLIENT_ERROR_ARGUMENT);
  // The sizes the wire splits at, and a full queue: four 64 KiB messages fit, the fifth waits.
  std::vector<std::vector<uint8_t>> sent;
  for (std::size_t size : {1u, 1199u, 1200u, 65536u, 65536u, 65536u}) sent.push_back(numbered_message(uint32_t(sent.size()), size));
  for (const auto& m : sent) ASSERT_EQ(foothold_client_send_message(c, FOOTHOLD_CLIENT_RELIABLE, m.data(), m.size()), FOOTHOLD_CLIENT_OK);
  const auto extra = numbered_message(99, 65536);
  EXPECT_EQ(foothold_client_send_message(c, FOOTHOLD_CLIENT_RELIABLE, extra.data(), extra.size()), FOOTHOLD_CLIENT_ERROR_QUEUE_FULL);
  EXPECT_NE(std::string(foothold_client_last_error(c)).find("full"), std::string::npos);
  const auto quick = numbered_message(50, 100);
  ASSERT_EQ(foothold_client_send_message(c, FOOTHOLD_CLIENT_UNRELIABLE, quick.data(), quick.size()), FOOTHOLD_CLIENT_OK);
  // Back they come: reliable ones in order; the unreliable one on its channel (loopback loses nothing).
  std::vector<std::vector<uint8_t>> got;
  std::vector<uint8_t> unreliable;
  std::vector<uint8_t> buffer(65536);
  bool tried_small = false;
  const double until = wall_seconds() + 10;
  while ((got.size() < sent.size() || unreliable.empty()) && wall_seconds() < until) {
    ASSERT_EQ(foothold_client_update(c, wall_seconds()), FOOTHOLD_CLIENT_OK);
    size_t size = 0;
    int32_t channel = -1;
    if (!tried_small && got.size() == 3) {
      // A buffer too small: the size needed, and the message kept.
      foothold_client_result r = foothold_client_receive_message(c, buffer.data(), 10, &size, &channel);
      if (size > 0) {
        EXPECT_EQ(r, FOOTHOLD_CLIENT_ERROR_ARGUMENT);
        EXPECT_EQ(size, 65536u);
        tried_small = true;
      }
    }
    while (foothold_client_receive_message(c, buffer.data(), buffer.size(), &size, &channel) == FOOTHOLD_CLIENT_OK && size > 0) {
      if (channel == FOOTHOLD_CLIENT_UNRELIABLE) {
        unreliable.assign(buffer.begin(), buffer.begin() + long(size));
      } else {
        got.emplace_back(buffer.begin(), buffer.begin() + long(size));
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  EXPECT_TRUE(tried_small);
  EXPECT_EQ(got, sent);
  EXPECT_EQ(unreliable, quick);
  foothold_client_stats s;
  ASSERT_EQ(foothold_client_get_stats(c, &s), FOOTHOLD_CLIENT_OK);
  EXPECT_EQ(s.messages_sent, 7u);
  EXPECT_EQ(s.messages_received, 7u);
  EXPECT_GT(s.message_bytes_out, 3 * 65536u);
  EXPECT_GT(s.message_bytes_in, 3 * 65536u);
  EXPECT_GE(s.message_rtt_ms, 0);
  foothold_client_destroy(c);
}

TEST_F(ClientApiOnLoopback, AnotherWorldIsRejectedWithTheReason) {
  // A one-square level: not the server's arena.
  const std::string level = dir_.write("small.obj", "v -5 0 -5\nv 5 0 -5\nv 5 0 5\nv -5 0 5\nf 1 3 2\nf 1 4 3\n");
  foothold_client* c = make_client(level.c_str());
  ASSERT_NE(c, nullptr);
  ASSERT_TRUE(connect_bytes(c, mint_for(address_, 3))) << foothold_client_last_error(c);
  run_frames(c, 5, [&] { return foothold_client_get_status(c) >= FOOTHOLD_CLIENT_REJECTED; });
  EXPECT_EQ(foothold_client_get_status(c), FOOTHOLD_CLIENT_REJECTED);
  foothold_client_update(c, wall_seconds());
  EXPECT_NE(std::string(foothold_client_last_error(c)).find("world"), std::string::npos) << foothold_client_last_error(c);
  EXPECT_EQ(foothold_client_end_reason(c), FOOTHOLD_CLIENT_END_WORLD_MISMATCH);
  EXPECT_STREQ(foothold_client_end_name(foothold_client_end_reason(c)), "world_mismatch");
  foothold_client_destroy(c);
}

TEST_F(ClientApiOnLoopback, ATokenSealedWithAnotherKeyFailsSayingWhatToCheck) {
  foothold_client* c = make_client("arena", /*connect_timeout=*/1);
  ASSERT_NE(c, nullptr);
  ASSERT_TRUE(connect_bytes(c, mint_for(address_, 4, 60, proto::generate_key())));
  run_frames(c, 4, [&] { return foothold_client_get_status(c) >= FOOTHOLD_CLIENT_REJECTED; });
  EXPECT_EQ(foothold_client_get_status(c), FOOTHOLD_CLIENT_FAILED);
  // The reason stays readable after calls that succeed.
  EXPECT_EQ(foothold_client_set_input(c, 0, 0, 0), FOOTHOLD_CLIENT_OK);
  EXPECT_NE(std::string(foothold_client_last_error(c)).find("token"), std::string::npos) << foothold_client_last_error(c);
  EXPECT_NE(std::string(foothold_client_last_error(c)).find("no answer from " + address_), std::string::npos)
      << "names the address tried: " << foothold_client_last_error(c);
  EXPECT_EQ(foothold_client_end_reason(c), FOOTHOLD_CLIENT_END_NO_ANSWER);
  foothold_client_destroy(c);
}

// Why a session ended, as a code, for each way it ends that a test can bring about on loopback
// (the others: ClientEnd.EveryRejectAndDisconnectReasonHasItsCode).
TEST_F(ClientApiOnLoopback, EverySessionEndHasItsCode) {
  // Nothing listening: the port refuses, and the reason says so, naming the address.
  {
    const std::string nobody = "127.0.0.1:" + std::to_string(free_udp_port());
    foothold_client* c = make_client("arena", 1);
    ASSERT_TRUE(connect_bytes(c, mint_for(nobody, 70)));
    run_frames(c, 4, [&] { return foothold_client_get_status(c) >= FOOTHOLD_CLIENT_REJECTED; });
    EXPECT_EQ(foothold_client_get_status(c), FOOTHOLD_CLIENT_FAILED);
    EXPECT_EQ(foothold_client_end_reason(c), FOOTHOLD_CLIENT_END_NO_SERVER) << foothold_client_last_error(c);
    EXPECT_NE(std::string(foothold_client_last_error(c)).find("nothing listens at " + nobody), std::string::npos)
        << foothold_client_last_error(c);
    foothold_client_destroy(c);
  }
  // A token that ran out while the server stayed silent to it.
  {
    foothold_client* c = make_client("arena", 2);
    ASSERT_TRUE(connect_bytes(c, mint_for(address_, 71, 1, proto::generate_key())));
    run_frames(c, 5, [&] { return foothold_client_get_status(c) >= FOOTHOLD_CLIENT_REJECTED; });
    EXPECT_EQ(foothold_client_end_reason(c), FOOTHOLD_CLIENT_END_TOKEN_EXPIRED) << foothold_client_last_error(c);
    EXPECT_NE(std::string(foothold_client_last_error(c)).find("expired"), std::string::npos) << foothold_client_last_error(c);
    foothold_client_destroy(c);
  }
  // The client quits.
  {
    foothold_client* c = make_client();
    ASSERT_TRUE(connect_bytes(c, mint_for(address_, 72)));
    run_frames(c, 5, [&] { return foothold_client_get_status(c) == FOOTHOLD_CLIENT_CONNECTED; });
    ASSERT_EQ(foothold_client_end_reason(c), FOOTHOLD_CLIENT_END_NONE);
    ASSERT_EQ(foothold_client_disconnect(c), FOOTHOLD_CLIENT_OK);
    EXPECT_EQ(foothold_client_end_reason(c), FOOTHOLD_CLIENT_END_CLIENT_QUIT);
    foothold_client_destroy(c);
  }
  // The server stops answering (stopped, not gone): timed out, naming the address.
  {
    foothold_client_config config;
    foothold_client_config_init(&config);
    config.server_timeout_s = 1;
    foothold_client* c = nullptr;
    char error[256] = "";
    ASSERT_EQ(foothold_client_create(&config, &c, error, sizeof error), FOOTHOLD_CLIENT_OK) << error;
    ASSERT_TRUE(connect_bytes(c, mint_for(address_, 73)));
    run_frames(c, 5, [&] { return foothold_client_get_status(c) == FOOTHOLD_CLIENT_CONNECTED; });
    ASSERT_EQ(foothold_client_get_status(c), FOOTHOLD_CLIENT_CONNECTED);
    server_->signal(SIGSTOP);
    run_frames(c, 4, [&] { return foothold_client_get_status(c) >= FOOTHOLD_CLIENT_REJECTED; });
    server_->signal(SIGCONT);
    EXPECT_EQ(foothold_client_get_status(c), FOOTHOLD_CLIENT_TIMED_OUT);
    EXPECT_EQ(foothold_client_end_reason(c), FOOTHOLD_CLIENT_END_TIMED_OUT);
    EXPECT_NE(std::string(foothold_client_last_error(c)).find("no word from " + address_), std::string::npos)
        << foothold_client_last_error(c);
    foothold_client_destroy(c);
  }
  // The server shuts down: it says so to everyone connected.
  {
    foothold_client* c = make_client();
    ASSERT_TRUE(connect_bytes(c, mint_for(address_, 74)));
    run_frames(c, 5, [&] { return foothold_client_get_status(c) == FOOTHOLD_CLIENT_CONNECTED; });
    ASSERT_EQ(foothold_client_get_status(c), FOOTHOLD_CLIENT_CONNECTED);
    server_->signal(SIGINT);
    run_frames(c, 4, [&] { return foothold_client_get_status(c) >= FOOTHOLD_CLIENT_REJECTED; });
    EXPECT_EQ(foothold_client_get_status(c), FOOTHOLD_CLIENT_DISCONNECTED);
    EXPECT_EQ(foothold_client_end_reason(c), FOOTHOLD_CLIENT_END_SERVER_SHUTDOWN) << foothold_client_last_error(c);
    foothold_client_destroy(c);
  }
  EXPECT_STREQ(foothold_client_end_name(-1), "unknown");
  EXPECT_STREQ(foothold_client_end_name(FOOTHOLD_CLIENT_END_MESSAGES + 1), "unknown");
}

// Every press counts, from a real frame loop: at 30 and 144 frames a second, jump held for exactly
// one frame every 0.7 s jumps every time (before the latch, a frame with no tick in it lost the
// press: at 144 Hz more often than not).
TEST_F(ClientApiOnLoopback, AJumpPressedForOneFrameJumpsEveryTime) {
  for (const int rate : {30, 144}) {
    foothold_client* c = make_client();
    ASSERT_NE(c, nullptr);
    ASSERT_TRUE(connect_bytes(c, mint_for(address_, 40 + uint64_t(rate)))) << foothold_client_last_error(c);
    run_frames(c, 5, [&] { return foothold_client_get_status(c) == FOOTHOLD_CLIENT_CONNECTED; });
    ASSERT_EQ(foothold_client_get_status(c), FOOTHOLD_CLIENT_CONNECTED) << foothold_client_last_error(c);
    const int presses = 4, every = int(0.7 * rate);
    int jumps = 0;
    double last_vy = 0;
    const double start = wall_seconds();
    for (int f = 0; f < rate + presses * every; ++f) {  // a second to land, then the presses
      const bool press = f >= rate && (f - rate) % every == every / 2;
      ASSERT_EQ(foothold_client_set_input(c, 0, 0, press ? FOOTHOLD_CLIENT_BUTTON_JUMP : 0), FOOTHOLD_CLIENT_OK);
      ASSERT_EQ(foothold_client_update(c, wall_seconds()), FOOTHOLD_CLIENT_OK) << foothold_client_last_error(c);
      foothold_client_character me;
      ASSERT_EQ(foothold_client_local_character(c, &me), FOOTHOLD_CLIENT_OK);
      if (f >= rate && last_vy <= 1 && me.velocity[1] > 1) ++jumps;  // the take-off
      last_vy = me.velocity[1];
      // The next frame's time on the wall clock (frames do not drift with sleep's lateness).
      const double next = start + double(f + 1) / rate;
      if (next > wall_seconds()) std::this_thread::sleep_for(std::chrono::duration<double>(next - wall_seconds()));
    }
    EXPECT_EQ(jumps, presses) << rate << " Hz";
    foothold_client_destroy(c);
  }
}

// After any end the handle takes a new token: disconnected, it connects again and plays.
TEST_F(ClientApiOnLoopback, AHandleConnectsAgainAfterItsSessionEnds) {
  foothold_client* c = make_client();
  ASSERT_NE(c, nullptr);
  ASSERT_TRUE(connect_bytes(c, mint_for(address_, 60))) << foothold_client_last_error(c);
  run_frames(c, 5, [&] { return foothold_client_get_status(c) == FOOTHOLD_CLIENT_CONNECTED; });
  ASSERT_EQ(foothold_client_get_status(c), FOOTHOLD_CLIENT_CONNECTED);
  EXPECT_FALSE(connect_bytes(c, mint_for(address_, 61))) << "connected: a second connect is refused";
  EXPECT_NE(std::string(foothold_client_last_error(c)).find("already connecting or connected"), std::string::npos);
  ASSERT_EQ(foothold_client_disconnect(c), FOOTHOLD_CLIENT_OK);
  ASSERT_EQ(foothold_client_update(c, wall_seconds()), FOOTHOLD_CLIENT_OK);
  ASSERT_EQ(foothold_client_get_status(c), FOOTHOLD_CLIENT_DISCONNECTED);
  ASSERT_TRUE(connect_bytes(c, mint_for(address_, 61))) << foothold_client_last_error(c);
  run_frames(c, 5, [&] { return foothold_client_get_status(c) == FOOTHOLD_CLIENT_CONNECTED; });
  EXPECT_EQ(foothold_client_get_status(c), FOOTHOLD_CLIENT_CONNECTED) << foothold_client_last_error(c);
  uint64_t before = 0;
  foothold_client_stats stats;
  ASSERT_EQ(foothold_client_get_stats(c, &stats), FOOTHOLD_CLIENT_OK);
  before = stats.snapshots;
  run_frames(c, 1, [] { return false; });
  ASSERT_EQ(foothold_client_get_stats(c, &stats), FOOTHOLD_CLIENT_OK);
  EXPECT_GT(stats.snapshots, before + 20) << "the new session plays";
  foothold_client_destroy(c);
}

// The network conditioner: a game's own client on a bad network, against a real server on a good
// one: set in the config, or by the environment variable (which then wins); refused when out of range.
TEST_F(ClientApiOnLoopback, TheNetworkConditionerDelaysAndLosesWhatItIsToldTo) {
  foothold_client_config config;
  char error[256] = "";
  foothold_client* c = nullptr;
  foothold_client_config_init(&config);
  config.condition_loss = 1.5;
  EXPECT_EQ(foothold_client_create(&config, &c, error, sizeof error), FOOTHOLD_CLIENT_ERROR_ARGUMENT);
  EXPECT_NE(std::string(error).find("config.condition_loss must be a probability in [0, 1]"), std::string::npos) << error;
  config.condition_loss = 0;
  config.condition_jitter_ms = -1;
  EXPECT_EQ(foothold_client_create(&config, &c, error, sizeof error), FOOTHOLD_CLIENT_ERROR_ARGUMENT);
  EXPECT_NE(std::string(error).find("condition_jitter_ms must be in [0, 10000] ms"), std::string::npos) << error;
  for (const char* bad : {"loss=2", "latency=50", "loss=0.1,loss=0.2", "jitter_ms=ten"}) {
    ::setenv("FOOTHOLD_CLIENT_CONDITIONER", bad, 1);
    foothold_client_config_init(&config);
    EXPECT_EQ(foothold_client_create(&config, &c, error, sizeof error), FOOTHOLD_CLIENT_ERROR_ARGUMENT) << bad;
    EXPECT_NE(std::string(error).find("FOOTHOLD_CLIENT_CONDITIONER: "), std::string::npos) << error;
  }
  ::unsetenv("FOOTHOLD_CLIENT_CONDITIONER");

  // 20% loss and 40 ms each way from the config; 40 ms each way from the environment.
  const auto play = [&](const foothold_client_config& k, uint64_t id) {
    foothold_client* client = nullptr;
    EXPECT_EQ(foothold_client_create(&k, &client, error, sizeof error), FOOTHOLD_CLIENT_OK) << error;
    EXPECT_TRUE(connect_bytes(client, mint_for(address_, id)));
    run_frames(client, 5, [&] { return foothold_client_get_status(client) == FOOTHOLD_CLIENT_CONNECTED; });
    EXPECT_EQ(foothold_client_get_status(client), FOOTHOLD_CLIENT_CONNECTED) << foothold_client_last_error(client);
    run_frames(client, 2, [] { return false; }, 1.0);
    foothold_client_stats stats;
    EXPECT_EQ(foothold_client_get_stats(client, &stats), FOOTHOLD_CLIENT_OK);
    foothold_client_destroy(client);
    return stats;
  };
  foothold_client_config_init(&config);
  config.condition_loss = 0.2;
  config.condition_latency_ms = 40;
  const foothold_client_stats lossy = play(config, 80);
  EXPECT_GE(lossy.rtt_ms_smoothed, 75) << "two 40 ms legs";
  EXPECT_LT(double(lossy.snapshots), 0.9 * double(lossy.ticks)) << "a fifth of the snapshots lost";
  EXPECT_EQ(lossy.corrections_unexplained, 0u);
  ::setenv("FOOTHOLD_CLIENT_CONDITIONER", "latency_ms=40", 1);
  foothold_client_config_init(&config);
  config.condition_loss = 0.2;  // the environment takes the place of the config
  const foothold_client_stats delayed = play(config, 81);
  ::unsetenv("FOOTHOLD_CLIENT_CONDITIONER");
  EXPECT_GE(delayed.rtt_ms_smoothed, 75);
  EXPECT_GT(double(delayed.snapshots), 0.9 * double(delayed.ticks)) << "no loss from the environment's setting";
  // And off by default: loopback's round trip.
  foothold_client_config_init(&config);
  const foothold_client_stats clean = play(config, 82);
  EXPECT_LT(clean.rtt_ms_smoothed, 40);
}

// The C example, as its header says: walks for the seconds asked and prints the summary line.
TEST_F(ClientApiOnLoopback, TheCExampleConnectsWalksAndPrintsItsSummary) {
  std::string error;
  const std::string token = dir_.file("player.token");
  ASSERT_TRUE(proto::write_token_file(token, mint_for(address_, 5), error)) << error;
  const auto r = run_command(kCClient + " " + token + " 2");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string last = r.output.substr(r.output.rfind("connected="));
  unsigned long long ticks = 0, corrections = 0;
  double distance = 0;
  int connected = 0;
  ASSERT_EQ(std::sscanf(last.c_str(), "connected=%d ticks=%llu distance_m=%lf corrections=%llu", &connected, &ticks, &distance,
                        &corrections),
            4)
      << last;
  EXPECT_EQ(connected, 1);
  EXPECT_GE(ticks, 100u) << "2 s at 60 Hz";
  EXPECT_GT(distance, 4.0) << "2 s of walking";
}

TEST(ClientApiExample, SaysConnectedZeroWhenNoServerAnswers) {
  TempDir dir;
  std::string error;
  const std::string token = dir.file("player.token");
  // A loopback port nobody listens on.
  ASSERT_TRUE(proto::write_token_file(token, mint_for("127.0.0.1:" + std::to_string(free_udp_port()), 6), error)) << error;
  const auto r = run_command(kCClient + " " + token + " 1");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("connected=0 ticks=0"), std::string::npos) << r.output;
  EXPECT_EQ(run_command(kCClient + " " + token).exit_code, 2);
  EXPECT_EQ(run_command(kCClient + " " + token + " -1").exit_code, 2);
  EXPECT_EQ(run_command(kCClient + " /nonexistent.token 1").exit_code, 2);
}

// Against foothold-server --game tag: the game's replicated attributes through the C API. Alone,
// this client is "it" (the match's attribute), and its seconds as "it" count up (its own).
TEST(ClientApiTag, TheGamesAttributesReadByNameAndIndex) {
  TempDir dir;
  std::string address;
  auto server = start_server(kServer, dir, "server", {"--game", "tag"}, address);
  ASSERT_FALSE(address.empty()) << server->output();
  ASSERT_TRUE(wait_ready(kBot, address)) << server->output();
  foothold_client* c = make_client();
  ASSERT_TRUE(c);
  int32_t value = 5;
  EXPECT_EQ(foothold_client_attribute(c, FOOTHOLD_CLIENT_ATTRIBUTE_MATCH, 0, &value), FOOTHOLD_CLIENT_ERROR_STATE);
  EXPECT_EQ(foothold_client_attribute_index(c, FOOTHOLD_CLIENT_ATTRIBUTE_MATCH, "it"), -1) << "no names before the accept";
  ASSERT_TRUE(connect_bytes(c, mint_for(address, 1))) << foothold_client_last_error(c);
  int32_t it = 0, seconds = 0;
  const double deadline = wall_seconds() + 8;
  while (wall_seconds() < deadline && seconds < 2) {
    ASSERT_EQ(foothold_client_update(c, wall_seconds()), FOOTHOLD_CLIENT_OK);
    if (foothold_client_get_status(c) == FOOTHOLD_CLIENT_CONNECTED) {
      const int32_t it_index = foothold_client_attribute_index(c, FOOTHOLD_CLIENT_ATTRIBUTE_MATCH, "it");
      const int32_t seconds_index = foothold_client_attribute_index(c, FOOTHOLD_CLIENT_ATTRIBUTE_CHARACTER, "it_seconds");
      ASSERT_EQ(it_index, 0);
      ASSERT_EQ(seconds_index, 0);
      ASSERT_EQ(foothold_client_attribute(c, FOOTHOLD_CLIENT_ATTRIBUTE_MATCH, it_index, &it), FOOTHOLD_CLIENT_OK);
      ASSERT_EQ(foothold_client_attribute(c, FOOTHOLD_CLIENT_ATTRIBUTE_CHARACTER, seconds_index, &seconds), FOOTHOLD_CLIENT_OK);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  foothold_client_character me{};
  ASSERT_EQ(foothold_client_local_character(c, &me), FOOTHOLD_CLIENT_OK);
  EXPECT_EQ(uint32_t(it), me.id) << "alone, it is it";
  // The view tick a shot carries (client/view_clock.h): on loopback's clean network, a snapshot
  // interval and a quarter behind the newest tick the network brings by now, so behind the newest
  // snapshot received, by less than the interval, the margin and a tick of steering.
  double view = -1;
  ASSERT_EQ(foothold_client_view_tick(c, &view), FOOTHOLD_CLIENT_OK);
  foothold_client_stats now{};
  ASSERT_EQ(foothold_client_get_stats(c, &now), FOOTHOLD_CLIENT_OK);
  EXPECT_GE(view, double(now.server_tick) - 3);
  EXPECT_LE(view, double(now.server_tick));
  EXPECT_EQ(foothold_client_view_tick(c, nullptr), FOOTHOLD_CLIENT_ERROR_ARGUMENT);
  EXPECT_GE(seconds, 2);
  EXPECT_STREQ(foothold_client_attribute_name(c, FOOTHOLD_CLIENT_ATTRIBUTE_MATCH, 1), "round");
  EXPECT_EQ(foothold_client_attribute_name(c, FOOTHOLD_CLIENT_ATTRIBUTE_MATCH, 4), nullptr);
  EXPECT_EQ(foothold_client_attribute_name(c, 2, 0), nullptr);
  // Refused by name: a scope, an index, no place to write.
  EXPECT_EQ(foothold_client_attribute(c, 2, 0, &value), FOOTHOLD_CLIENT_ERROR_ARGUMENT);
  EXPECT_NE(std::string(foothold_client_last_error(c)).find("scope 2"), std::string::npos);
  EXPECT_EQ(foothold_client_attribute(c, FOOTHOLD_CLIENT_ATTRIBUTE_MATCH, 16, &value), FOOTHOLD_CLIENT_ERROR_ARGUMENT);
  EXPECT_NE(std::string(foothold_client_last_error(c)).find("index 16"), std::string::npos);
  EXPECT_EQ(foothold_client_attribute(c, FOOTHOLD_CLIENT_ATTRIBUTE_MATCH, 0, nullptr), FOOTHOLD_CLIENT_ERROR_ARGUMENT);
  foothold_client_stats st;
  ASSERT_EQ(foothold_client_get_stats(c, &st), FOOTHOLD_CLIENT_OK);
  EXPECT_EQ(st.corrections, st.corrections_input + st.corrections_interaction + st.corrections_server + st.corrections_unexplained);
  foothold_client_destroy(c);
  server->signal(SIGINT);
  EXPECT_EQ(server->wait(5), 0) << server->output();
}

// #66: against foothold-server --game tag, whose it_seconds every client sees: a second client reads
// the first one's through foothold_client_character_attribute, the value the first reads as its own;
// a character not in its view reads 0.
TEST(ClientApiTag, AnotherCharactersAttributeSeenByAllReadsAsItsOwnClientReadsIt) {
  TempDir dir;
  std::string address;
  auto server = start_server(kServer, dir, "server", {"--game", "tag"}, address);
  ASSERT_FALSE(address.empty()) << server->output();
  ASSERT_TRUE(wait_ready(kBot, address)) << server->output();
  foothold_client* a = make_client();
  foothold_client* b = make_client();
  ASSERT_TRUE(a && b);
  int32_t value = 5;
  EXPECT_EQ(foothold_client_character_attribute(b, 1, 0, &value), FOOTHOLD_CLIENT_ERROR_STATE);
  EXPECT_EQ(value, 0);
  ASSERT_TRUE(connect_bytes(a, mint_for(address, 1))) << foothold_client_last_error(a);
  foothold_client_character me{};
  int32_t own = 0, seen = -1;
  // Alone first, so that a is "it" (whoever is "it" counts seconds), until a has counted one: two
  // clients connected at once may join in either order, and b, alone first, would be "it" instead.
  const double alone_deadline = wall_seconds() + 10;
  while (wall_seconds() < alone_deadline && own < 1) {
    ASSERT_EQ(foothold_client_update(a, wall_seconds()), FOOTHOLD_CLIENT_OK);
    if (foothold_client_get_status(a) == FOOTHOLD_CLIENT_CONNECTED) {
      ASSERT_EQ(foothold_client_attribute(a, FOOTHOLD_CLIENT_ATTRIBUTE_CHARACTER, 0, &own), FOOTHOLD_CLIENT_OK);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ASSERT_GE(own, 1) << "a, alone, is \"it\" and counts";
  // Then with b: wait until a has counted two and b reads a's as a does (it changes once a second,
  // so both read the same value most of the time).
  ASSERT_TRUE(connect_bytes(b, mint_for(address, 2))) << foothold_client_last_error(b);
  const double deadline = wall_seconds() + 10;
  while (wall_seconds() < deadline && !(own >= 2 && seen == own)) {
    ASSERT_EQ(foothold_client_update(a, wall_seconds()), FOOTHOLD_CLIENT_OK);
    ASSERT_EQ(foothold_client_update(b, wall_seconds()), FOOTHOLD_CLIENT_OK);
    if (foothold_client_get_status(a) == FOOTHOLD_CLIENT_CONNECTED && foothold_client_get_status(b) == FOOTHOLD_CLIENT_CONNECTED) {
      ASSERT_EQ(foothold_client_local_character(a, &me), FOOTHOLD_CLIENT_OK);
      ASSERT_EQ(foothold_client_attribute(a, FOOTHOLD_CLIENT_ATTRIBUTE_CHARACTER, 0, &own), FOOTHOLD_CLIENT_OK);
      ASSERT_EQ(foothold_client_character_attribute(b, me.id, 0, &seen), FOOTHOLD_CLIENT_OK);
      int32_t self_read = -1;
      ASSERT_EQ(foothold_client_character_attribute(a, me.id, 0, &self_read), FOOTHOLD_CLIENT_OK);
      EXPECT_EQ(self_read, own) << "a character's own client reads its attribute either way";
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_GE(own, 2);
  EXPECT_EQ(seen, own) << "b sees a's it_seconds";
  value = 5;
  EXPECT_EQ(foothold_client_character_attribute(b, 999999, 0, &value), FOOTHOLD_CLIENT_OK);
  EXPECT_EQ(value, 0) << "a character not in the view";
  EXPECT_EQ(foothold_client_character_attribute(b, me.id, 16, &value), FOOTHOLD_CLIENT_ERROR_ARGUMENT);
  EXPECT_NE(std::string(foothold_client_last_error(b)).find("index 16"), std::string::npos);
  EXPECT_EQ(foothold_client_character_attribute(b, me.id, 0, nullptr), FOOTHOLD_CLIENT_ERROR_ARGUMENT);
  foothold_client_destroy(a);
  foothold_client_destroy(b);
  server->signal(SIGINT);
  EXPECT_EQ(server->wait(5), 0) << server->output();
}

}  // namespace
}  // namespace foothold::test
