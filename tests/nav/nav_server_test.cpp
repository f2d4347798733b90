// The server's navigation mesh (server/navigation.h): --navmesh loads a file baked for its world and
// settings and refuses one baked for others, naming the file and the hash that differs.

#include <csignal>

#include <gtest/gtest.h>

#include "support/local_server.h"
#include "support/process.h"

namespace foothold::nav::test {
namespace {

using foothold::test::run_command;
using foothold::test::TempDir;

const std::string kNav = FOOTHOLD_NAV_BIN;
const std::string kServer = FOOTHOLD_SERVER_BIN;

// foothold-nav bake WORLD [extra] --out DIR/NAME; fails the test when it does not.
std::string baked(const TempDir& dir, const std::string& world, const std::string& name, const std::string& extra = "") {
  const auto r = run_command(kNav + " bake " + world + extra + " --out " + dir.file(name));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  return dir.file(name);
}

TEST(NavServer, LoadsANavmeshBakedForItsWorldAndSettings) {
  TempDir dir;
  const std::string mesh = baked(dir, "arena", "arena.nav");
  std::string address;
  auto server = foothold::test::start_server(kServer, dir, "server", {"--navmesh", mesh}, address);
  ASSERT_FALSE(address.empty()) << server->output();
  server->signal(SIGTERM);
  ASSERT_EQ(server->wait(5), 0) << server->output();
  EXPECT_NE(server->output().find("navmesh " + mesh + ": "), std::string::npos) << server->output();
}

TEST(NavServer, RefusesANavmeshOfAnotherWorldNamingTheFileAndTheWorldHash) {
  TempDir dir;
  const std::string mesh = baked(dir, "arena", "arena.nav");
  const std::string terrain = std::string(FOOTHOLD_SOURCE_DIR) + "/tests/bench/scenes/terrain128.obj";
  const auto r = run_command(kServer + " --port 0 --world " + terrain + " --navmesh " + mesh);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("navmesh " + mesh + " was baked for world hash "), std::string::npos) << r.output;
}

TEST(NavServer, RefusesANavmeshOfOtherSettingsNamingTheFileAndTheSettingsHash) {
  TempDir dir;
  const std::string wide = dir.write("wide.toml", "radius = 0.5\n");
  const std::string mesh = baked(dir, "arena", "wide.nav", " --settings " + wide);
  // The same world, the default settings: the settings' hash differs.
  const auto r = run_command(kServer + " --port 0 --navmesh " + mesh);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("navmesh " + mesh + " was baked for settings hash "), std::string::npos) << r.output;
  // From the environment as from the flag; and a file that is no navmesh at all.
  const std::string junk = dir.write("junk.nav", "not a mesh");
  const auto env = run_command("FOOTHOLD_NAVMESH=" + junk + " " + kServer + " --port 0");
  EXPECT_EQ(env.exit_code, 2) << env.output;
  EXPECT_NE(env.output.find("navmesh " + junk + " is not a navmesh file"), std::string::npos) << env.output;
}

}  // namespace
}  // namespace foothold::nav::test

namespace foothold::nav::test {
namespace {

// A game that asks for paths (GameEntry::paths) has the mesh baked at load: its on_start finds one.
TEST(NavServer, AGameThatAsksForPathsHasTheMeshBakedAtLoad) {
  TempDir dir;
  std::string address;
  auto server = foothold::test::start_server(FOOTHOLD_PATH_SERVER_BIN, dir, "server", {}, address);
  ASSERT_FALSE(address.empty()) << server->output();
  server->signal(SIGTERM);
  ASSERT_EQ(server->wait(5), 0) << server->output();
  const std::string log = server->output();
  const auto baked = log.find("navmesh baked at load: ");
  const auto found = log.find("game paths: path complete, ");
  EXPECT_NE(baked, std::string::npos) << log;
  EXPECT_NE(found, std::string::npos) << log;
  EXPECT_LT(baked, found) << "baked before the game started";
  EXPECT_EQ(log.find("baked at the game's first path()"), std::string::npos) << log;
}

}  // namespace
}  // namespace foothold::nav::test
