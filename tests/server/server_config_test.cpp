// foothold-server's configuration layers (server/server_config.h): defaults, a TOML file, then
// FOOTHOLD_* environment variables; every bad value named.

#include <cstdlib>

#include <gtest/gtest.h>

#include "server/server_config.h"

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
  const auto errors = bad.validate();
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_NE(errors[0].find("snapshot_rate"), std::string::npos) << errors[0];
  EXPECT_NE(errors[1].find("snapshot_budget"), std::string::npos) << errors[1];
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
