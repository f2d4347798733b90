// foothold-server's configuration layers (server/server_config.h): defaults, a TOML file, then
// FOOTHOLD_* environment variables; every bad value named.

#include <cstdlib>

#include <gtest/gtest.h>

#include "proto/endpoint.h"
#include "server/server_config.h"
#include "shared/server_limits.h"

namespace foothold::server {
namespace {

bool mentions(const std::vector<std::string>& errors, const std::string& text) {
  for (const auto& e : errors)
    if (e.find(text) != std::string::npos) return true;
  return false;
}

// Sets an environment variable for one scope.
struct ScopedEnv {
  ScopedEnv(const char* name, const char* value) : name_(name) { setenv(name, value, 1); }
  ~ScopedEnv() { unsetenv(name_); }
  const char* name_;
};

TEST(ServerConfig, DefaultsAreValid) {
  const ServerConfig c;
  EXPECT_TRUE(c.validate().empty());
  EXPECT_EQ(c.effective_bind(), "127.0.0.1") << "without a key the server is loopback only";
  ServerConfig keyed;
  keyed.key_file = "server.key";
  EXPECT_EQ(keyed.effective_bind(), "0.0.0.0");
}

TEST(ServerConfig, SnapshotRateBecomesAnIntervalThatDividesTheTickRate) {
  ServerConfig c;
  std::string error;
  EXPECT_EQ(c.snapshot_ticks(60, error), 1) << "default: every tick";
  c.snapshot_rate = 20;
  EXPECT_EQ(c.snapshot_ticks(60, error), 3);
  c.snapshot_rate = 30;
  EXPECT_EQ(c.snapshot_ticks(60, error), 2);
  EXPECT_TRUE(error.empty());
  c.snapshot_rate = 25;
  EXPECT_EQ(c.snapshot_ticks(60, error), 0);
  EXPECT_NE(error.find("snapshot_rate = 25 does not divide the tick rate (60 Hz)"), std::string::npos) << error;
  c.snapshot_rate = 120;
  error.clear();
  EXPECT_EQ(c.snapshot_ticks(60, error), 0) << "faster than the ticks";
  c.snapshot_rate = 20;
  c.snapshot_interval = 2;
  error.clear();
  EXPECT_EQ(c.snapshot_ticks(60, error), 0);
  EXPECT_NE(error.find("both set"), std::string::npos) << error;
  ServerConfig bad;
  bad.snapshot_budget = 127;
  bad.snapshot_rate = -1;
  bad.neighbours = 9;
  bad.neighbour_inputs_ahead = -1;
  const auto errors = bad.validate();
  ASSERT_EQ(errors.size(), 4u);
  EXPECT_NE(errors[0].find("snapshot_rate"), std::string::npos) << errors[0];
  EXPECT_NE(errors[1].find("snapshot_budget"), std::string::npos) << errors[1];
  EXPECT_NE(errors[2].find("neighbours"), std::string::npos) << errors[2];
  EXPECT_NE(errors[3].find("neighbour_inputs_ahead"), std::string::npos) << errors[3];
}

TEST(ServerConfig, TheEnvironmentOverridesTheFile) {
  ServerConfig c;
  ASSERT_TRUE(parse_server_config("port = 9000\nmax_clients = 64\nworld = \"level.obj\"\n", "server.toml", c).empty());
  EXPECT_EQ(c.port, 9000);
  ScopedEnv port("FOOTHOLD_PORT", "9100");
  ScopedEnv world("FOOTHOLD_WORLD", "other.obj");
  ScopedEnv rate("FOOTHOLD_SOURCE_RATE", "2.5");
  EXPECT_TRUE(apply_server_config_env(c).empty());
  EXPECT_EQ(c.port, 9100);
  EXPECT_EQ(c.world, "other.obj");
  EXPECT_EQ(c.source_rate, 2.5);
  EXPECT_EQ(c.max_clients, 64) << "a key the environment does not set keeps the file's value";
}

TEST(ServerConfig, BadEnvironmentValuesAreErrorsNamingTheVariable) {
  ServerConfig c;
  {
    ScopedEnv port("FOOTHOLD_PORT", "seventy");
    const auto errors = apply_server_config_env(c);
    EXPECT_TRUE(mentions(errors, "FOOTHOLD_PORT")) << (errors.empty() ? "no error" : errors[0]);
  }
  {
    ScopedEnv port("FOOTHOLD_PORT", "70000");
    ServerConfig d;
    auto errors = apply_server_config_env(d);
    for (const auto& e : d.validate()) errors.push_back(e);
    EXPECT_TRUE(mentions(errors, "port")) << "out of range, by the environment or validation";
  }
  EXPECT_EQ(env_name("max_clients_per_address"), "FOOTHOLD_MAX_CLIENTS_PER_ADDRESS");
}

TEST(ServerConfig, FileErrorsNameTheFileLineAndKey) {
  ServerConfig c;
  const auto errors = parse_server_config("port = 1\nprot = 2\n", "server.toml", c);
  ASSERT_FALSE(errors.empty());
  EXPECT_TRUE(mentions(errors, "server.toml:2")) << errors[0];
  EXPECT_TRUE(mentions(errors, "prot")) << errors[0];
  EXPECT_FALSE(load_server_config_file("/nonexistent/server.toml", c).empty());
}

TEST(ServerConfig, HardeningSettingsParseAndAreRangeChecked) {
  ServerConfig c;
  EXPECT_FALSE(c.strict_key_permissions) << "a warning by default";
  EXPECT_EQ(c.token_max_ahead, 86400);
  ASSERT_TRUE(parse_server_config("strict_key_permissions = true\ntoken_max_ahead = 3600\nclock_skew = 5\n"
                                  "version_hint_rate = 7\n",
                                  "s.toml", c)
                  .empty());
  EXPECT_TRUE(c.strict_key_permissions);
  EXPECT_EQ(c.token_max_ahead, 3600);
  EXPECT_EQ(c.clock_skew, 5);
  EXPECT_EQ(c.version_hint_rate, 7);
  EXPECT_TRUE(c.validate().empty());
  // A boolean only where one is meant, and named when wrong.
  EXPECT_TRUE(mentions(parse_server_config("strict_key_permissions = 1\n", "s.toml", c), "must be true or false"));
  EXPECT_TRUE(mentions(parse_server_config("strict_key_permissions = \"yes\"\n", "s.toml", c), "must be true or false"));
  EXPECT_TRUE(mentions(parse_server_config("port = true\n", "s.toml", c), "port must be a number"));
  {
    ScopedEnv e("FOOTHOLD_STRICT_KEY_PERMISSIONS", "maybe");
    EXPECT_TRUE(mentions(apply_server_config_env(c), "FOOTHOLD_STRICT_KEY_PERMISSIONS"));
  }
  {
    ScopedEnv e("FOOTHOLD_STRICT_KEY_PERMISSIONS", "false");
    EXPECT_TRUE(apply_server_config_env(c).empty());
    EXPECT_FALSE(c.strict_key_permissions);
  }
  c.token_max_ahead = 59;
  c.clock_skew = 3601;
  c.version_hint_rate = 0;
  const auto errors = c.validate();
  EXPECT_TRUE(mentions(errors, "token_max_ahead")) << errors.size();
  EXPECT_TRUE(mentions(errors, "clock_skew"));
  EXPECT_TRUE(mentions(errors, "version_hint_rate"));
}

}  // namespace
}  // namespace foothold::server

namespace foothold::test {
namespace {

// The core's configuration is built in one place (core_config()), and a default foothold-server
// configuration gives the core exactly its own defaults: no default is written twice.
TEST(ServerConfig, TheDefaultConfigurationGivesTheCoreItsOwnDefaults) {
  const server::CoreConfig want;
  const MoveSettings settings;
  const server::CoreConfig got = server::core_config(server::ServerConfig{}, settings, 1, proto::Key{}, {}, 4);
  EXPECT_EQ(got.max_clients, want.max_clients);
  EXPECT_EQ(got.max_clients_per_address, want.max_clients_per_address);
  EXPECT_EQ(got.snapshot_interval, want.snapshot_interval);
  EXPECT_EQ(got.snapshot_budget, want.snapshot_budget);
  EXPECT_EQ(got.client_timeout, want.client_timeout);
  EXPECT_EQ(got.client_packet_rate, want.client_packet_rate) << "4 x the default tick rate";
  EXPECT_EQ(got.handshake_rate, want.handshake_rate);
  EXPECT_EQ(got.status_rate, want.status_rate);
  EXPECT_EQ(got.version_hint_rate, want.version_hint_rate);
  EXPECT_EQ(got.source_limits.address_rate, want.source_limits.address_rate);
  EXPECT_EQ(got.source_limits.prefix_rate, want.source_limits.prefix_rate);
  EXPECT_EQ(got.token_max_ahead, want.token_max_ahead);
  EXPECT_EQ(got.clock_skew, want.clock_skew);
  EXPECT_EQ(got.threads, 4) << "threads 0: the machine's cores";
  EXPECT_EQ(got.messages.limits.queue_bytes, want.messages.limits.queue_bytes);
  EXPECT_EQ(got.messages.rate, want.messages.rate);
  EXPECT_EQ(got.messages.timeout, want.messages.timeout);
  EXPECT_TRUE(got.messages.limits.overflow_is_violation) << "the server takes every message each tick";
}

TEST(ServerConfig, EverySettingTheCoreHasReachesIt) {
  server::ServerConfig c;
  c.max_clients = 7;
  c.max_clients_per_address = 3;
  c.snapshot_budget = 700;
  c.neighbours = 6;
  c.neighbour_inputs_ahead = 1;
  c.client_timeout = 2.5;
  c.client_packet_rate = 99;
  c.handshake_rate = 11;
  c.status_rate = 12;
  c.version_hint_rate = 13;
  c.source_rate = 1.5;
  c.prefix_rate = 2.5;
  c.token_max_ahead = 600;
  c.clock_skew = 5;
  c.threads = 3;
  c.message_queue = 100000;
  c.message_rate = 5000;
  c.message_timeout = 4.5;
  MoveSettings settings;
  settings.tick_rate = 30;
  const proto::Key key{9};
  const std::vector<proto::TokenAddress> addresses{proto::to_token_address({asio::ip::make_address("10.0.0.1"), 7777})};
  const server::CoreConfig got = server::core_config(c, settings, 2, key, addresses, 8);
  EXPECT_EQ(got.max_clients, 7);
  EXPECT_EQ(got.max_clients_per_address, 3);
  EXPECT_EQ(got.snapshot_interval, 2);
  EXPECT_EQ(got.snapshot_budget, 700);
  EXPECT_EQ(got.neighbours, 6);
  EXPECT_EQ(got.neighbour_inputs_ahead, 1);
  EXPECT_EQ(got.client_timeout, 2500 * proto::kMillisecond);
  EXPECT_EQ(got.client_packet_rate, 99);
  EXPECT_EQ(got.handshake_rate, 11);
  EXPECT_EQ(got.status_rate, 12);
  EXPECT_EQ(got.version_hint_rate, 13);
  EXPECT_EQ(got.source_limits.address_rate, 1.5);
  EXPECT_EQ(got.source_limits.prefix_rate, 2.5);
  EXPECT_EQ(got.token_max_ahead, 600u);
  EXPECT_EQ(got.clock_skew, 5u);
  EXPECT_EQ(got.threads, 3);
  EXPECT_EQ(got.key, key);
  EXPECT_EQ(got.addresses, addresses);
  EXPECT_EQ(got.messages.limits.queue_bytes, 100000u);
  EXPECT_EQ(got.messages.rate, 5000u);
  EXPECT_EQ(got.messages.timeout, 4500 * proto::kMillisecond);
  c.client_packet_rate = 0;
  EXPECT_EQ(server::core_config(c, settings, 2, key, addresses, 8).client_packet_rate, 120) << "4 x 30 Hz";
}

// Which games there are is the program's to say (server_program.h; foothold-server's test in
// loopback_test.cpp refuses an unknown one): the config only carries the name.
TEST(ServerConfig, TheGameComesFromTheFileOrTheEnvironmentAndMessageSettingsAreRangeChecked) {
  server::ServerConfig c;
  EXPECT_EQ(c.game, "none");
  c.game = "echo";
  EXPECT_TRUE(c.validate().empty());
  std::vector<std::string> errors;
  {
    server::ScopedEnv env("FOOTHOLD_GAME", "echo");
    server::ServerConfig d;
    EXPECT_TRUE(server::apply_server_config_env(d).empty());
    EXPECT_EQ(d.game, "echo");
  }
  server::ServerConfig e;
  e.message_queue = 1000;
  e.message_rate = 0;
  e.message_timeout = 0.5;
  errors = e.validate();
  ASSERT_EQ(errors.size(), 3u);
  EXPECT_NE(errors[0].find("message_queue = 1000 is out of range"), std::string::npos) << errors[0];
  EXPECT_NE(errors[1].find("message_rate = 0 is out of range"), std::string::npos) << errors[1];
  EXPECT_NE(errors[2].find("message_timeout = 0.5 is out of range"), std::string::npos) << errors[2];
}

// --npcs / npcs / FOOTHOLD_NPCS: the NPCs a game is asked for, 0 to kMaxNpcs (1024).
TEST(ServerConfig, TheNpcsAskedForComeFromTheEnvironmentAndAreRangeChecked) {
  server::ServerConfig c;
  EXPECT_EQ(c.npcs, 0);
  {
    server::ScopedEnv env("FOOTHOLD_NPCS", "16");
    EXPECT_TRUE(server::apply_server_config_env(c).empty());
    EXPECT_EQ(c.npcs, 16);
  }
  c.npcs = kMaxNpcs;
  EXPECT_TRUE(c.validate().empty());
  for (int bad : {kMaxNpcs + 1, -1}) {
    c.npcs = bad;
    const auto errors = c.validate();
    ASSERT_EQ(errors.size(), 1u) << bad;
    EXPECT_NE(errors[0].find("npcs = " + std::to_string(bad) + " is out of range [0, 1024]"), std::string::npos) << errors[0];
  }
}

// --game-seed / game_seed / FOOTHOLD_GAME_SEED: a whole number over the full 64 bits, or empty (fresh
// at every start); anything else is an error naming the key.
TEST(ServerConfig, TheGameSeedIsAnyUnsigned64BitNumberOrNothing) {
  server::ServerConfig c;
  EXPECT_FALSE(c.game_seed_value()) << "empty: the program draws one";
  EXPECT_TRUE(c.validate().empty());
  c.game_seed = "18446744073709551615";
  EXPECT_TRUE(c.validate().empty());
  EXPECT_EQ(c.game_seed_value(), std::optional<uint64_t>(18446744073709551615ull));
  c.game_seed = "0";
  EXPECT_EQ(c.game_seed_value(), std::optional<uint64_t>(0));
  for (const char* bad : {"18446744073709551616", "-1", "12abc", " 7", "0x10"}) {
    c.game_seed = bad;
    EXPECT_FALSE(c.game_seed_value()) << bad;
    const auto errors = c.validate();
    ASSERT_EQ(errors.size(), 1u) << bad;
    EXPECT_TRUE(server::mentions(errors, "game_seed = '" + std::string(bad) + "' is not a whole number")) << errors[0];
  }
  server::ScopedEnv env("FOOTHOLD_GAME_SEED", "42");
  server::ServerConfig d;
  EXPECT_TRUE(server::apply_server_config_env(d).empty());
  EXPECT_EQ(d.game_seed_value(), std::optional<uint64_t>(42));
}

}  // namespace
}  // namespace foothold::test
