// The flag and setting reference (docs/server-reference.md) is generated from the declarations that
// parse foothold-server's command line and print its --help, so it cannot drift from them.
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "games/builtin_games.h"
#include "server/server_config.h"
#include "server/server_reference.h"

namespace foothold::test {
namespace {

using server::builtin_games;
using server::server_reference_markdown;

const std::string kPage = std::string(FOOTHOLD_SOURCE_DIR) + "/docs/server-reference.md";

// On a difference the expected page is printed; FOOTHOLD_WRITE_REFERENCE=1 writes it over the
// committed one (then review the diff and commit it).
TEST(ServerReference, TheCommittedPageIsWhatTheProgramDeclares) {
  const std::string expected = server_reference_markdown(builtin_games());
  if (const char* write = std::getenv("FOOTHOLD_WRITE_REFERENCE"); write && std::string(write) == "1") {
    std::ofstream(kPage, std::ios::binary) << expected;
  }
  std::ifstream in(kPage, std::ios::binary);
  ASSERT_TRUE(in) << "cannot read " << kPage;
  std::stringstream committed;
  committed << in.rdbuf();
  EXPECT_EQ(committed.str(), expected) << "docs/server-reference.md is not what foothold-server declares; run\n"
                                       << "  FOOTHOLD_WRITE_REFERENCE=1 server_tests --gtest_filter='ServerReference.*'\n"
                                       << "and commit the result. Expected:\n"
                                       << expected;
}

// Every key the configuration file and the environment take is a row of the reference, with its
// variable: the table that parses them and the flags that --help lists are the same set.
TEST(ServerReference, ListsEveryConfigurationKeyWithItsVariable) {
  const std::string page = server_reference_markdown(builtin_games());
  const char* keys[] = {"bind", "key_file", "strict_key_permissions", "public_address", "metrics_address", "agones",
                        "agones_health_interval", "idle_shutdown", "drain_seconds", "max_clients_per_address", "port",
                        "max_clients", "world", "settings", "tick_rate", "snapshot_interval", "snapshot_rate",
                        "snapshot_budget", "neighbours", "neighbour_inputs_ahead", "client_timeout", "log_level",
                        "stats_interval", "max_catchup_ticks", "client_packet_rate", "handshake_rate", "status_rate",
                        "version_hint_rate", "token_max_ahead", "clock_skew", "source_rate", "prefix_rate", "record",
                        "threads", "ready_file", "game", "message_queue", "message_rate", "message_timeout",
                        "rewind_window", "game_seed", "navmesh", "npcs"};
  std::size_t rows = 0;
  for (std::size_t at = page.find("`<br>`"); at != std::string::npos; at = page.find("`<br>`", at + 1))
    rows += 1;
  for (const char* key : keys) {
    SCOPED_TRACE(key);
    // The key parses from a file (an unknown one would be an error naming it as unknown).
    server::ServerConfig config;
    const auto errors = server::parse_server_config(std::string(key) + " = \"x\"\n", "probe", config);
    for (const auto& e : errors) EXPECT_EQ(e.find("unknown"), std::string::npos) << e;
    std::string flag = key;
    for (char& c : flag) c = c == '_' ? '-' : c;
    EXPECT_NE(page.find("| `--" + flag + "`<br>`" + key + "`<br>`" + server::env_name(key) + "` |"), std::string::npos);
  }
  // Two line breaks a row: one row for each key, none more.
  EXPECT_EQ(rows, 2 * std::size(keys)) << "a setting row for a key the list above does not have";
}

}  // namespace
}  // namespace foothold::test
