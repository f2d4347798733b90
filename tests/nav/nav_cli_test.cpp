// foothold-nav bake and walk: their lines, bake's file, and every way to misuse them.

#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "nav_support.h"
#include "support/process.h"

namespace foothold::nav::test {
namespace {

using foothold::test::run_command;
using foothold::test::TempDir;

const std::string kNav = FOOTHOLD_NAV_BIN;

TEST(NavBake, BakesTheArenaIntoAFileThatLoads) {
  TempDir dir;
  const auto r = run_command(kNav + " bake arena --threads 2 --out " + dir.file("arena.nav"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output.rfind("baked arena: tiles=", 0), 0u) << r.output;
  for (const char* field : {" polys=", " bake_ms=", " bytes="}) EXPECT_NE(r.output.find(field), std::string::npos) << r.output;
  const auto world = arena();
  const NavMeshResult loaded = NavMesh::load(dir.file("arena.nav"), *world, {});
  ASSERT_TRUE(loaded.mesh) << loaded.error;
  EXPECT_NE(r.output.find("polys=" + std::to_string(loaded.mesh->stats().polygons) + " "), std::string::npos) << r.output;
}

TEST(NavBake, SettingsFileShapesTheMesh) {
  TempDir dir;
  const std::string settings = dir.write("wide.toml", "radius = 0.5\n");
  const auto r = run_command(kNav + " bake arena --settings " + settings + " --out " + dir.file("wide.nav"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto world = arena();
  MoveSettings wide;
  wide.radius = 0.5;
  EXPECT_TRUE(NavMesh::load(dir.file("wide.nav"), *world, wide).mesh);
  EXPECT_FALSE(NavMesh::load(dir.file("wide.nav"), *world, {}).mesh);
}

TEST(NavBake, MissingWorldExitsTwoNamingIt) {
  TempDir dir;
  const auto r = run_command(kNav + " bake " + dir.file("none.obj") + " --out " + dir.file("x.nav"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find(dir.file("none.obj")), std::string::npos) << r.output;
}

TEST(NavBake, BadSettingsFileExitsTwoNamingIt) {
  TempDir dir;
  const std::string settings = dir.write("bad.toml", "radius = -1\n");
  const auto r = run_command(kNav + " bake arena --settings " + settings + " --out " + dir.file("x.nav"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("radius"), std::string::npos) << r.output;
}

TEST(NavBake, BadFlagsExitTwo) {
  TempDir dir;
  for (const std::string& args : {" bake arena --out " + dir.file("x.nav") + " --bogus", std::string(" bake arena"),
                                  " bake arena --threads -3 --out " + dir.file("x.nav"), std::string(" cook arena"),
                                  std::string("")}) {
    const auto r = run_command(kNav + args);
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.output;
  }
}

TEST(NavBake, UnwritableOutputExitsOne) {
  TempDir dir;
  const auto r = run_command(kNav + " bake arena --out " + dir.file("no/such/dir/x.nav"));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("cannot write navmesh"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace foothold::nav::test

namespace foothold::nav::test {
namespace {

// The fields of `foothold-nav walk`'s last line, in order, by name.
std::vector<std::pair<std::string, std::string>> walk_fields(const std::string& output) {
  std::string line = output;
  while (!line.empty() && line.back() == '\n') line.pop_back();
  line = line.substr(line.rfind('\n') == std::string::npos ? 0 : line.rfind('\n') + 1);
  std::vector<std::pair<std::string, std::string>> fields;
  std::istringstream in(line);
  for (std::string word; in >> word;) {
    const auto eq = word.find('=');
    fields.emplace_back(word.substr(0, eq), eq == std::string::npos ? "" : word.substr(eq + 1));
  }
  return fields;
}

TEST(NavWalk, PrintsItsLineLast) {
  const auto r = run_command(kNav + " walk arena --agents 4 --seconds 10 --seed 7 --threads 1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto fields = walk_fields(r.output);
  const std::vector<std::string> names = {"agents", "goals", "arrived", "stuck", "give_ups", "mean_time_ratio",
                                          "bake_ms", "polys", "us_per_npc_tick"};
  ASSERT_EQ(fields.size(), names.size()) << r.output;
  for (std::size_t i = 0; i < names.size(); ++i) EXPECT_EQ(fields[i].first, names[i]) << r.output;
  EXPECT_EQ(fields[0].second, "4");
  EXPECT_GT(std::stoi(fields[1].second), 0) << "four characters reach goals in ten seconds";
}

TEST(NavWalk, TheSameSeedWalksTheSameWay) {
  std::string first;
  for (const char* threads : {"1", "2"}) {
    const auto r = run_command(kNav + " walk arena --agents 6 --seconds 8 --seed 3 --threads " + threads);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    std::string counts;  // all but the measured times
    for (const auto& [name, value] : walk_fields(r.output))
      if (name != "bake_ms" && name != "us_per_npc_tick") counts += name + "=" + value + " ";
    if (first.empty()) first = counts;
    EXPECT_EQ(counts, first) << "on " << threads << " threads";
  }
}

TEST(NavWalk, BadWorldOrFlagsExitTwoNamingThem) {
  TempDir dir;
  const auto missing = run_command(kNav + " walk " + dir.file("none.gltf") + " --agents 2 --seconds 1 --seed 1");
  EXPECT_EQ(missing.exit_code, 2) << missing.output;
  EXPECT_NE(missing.output.find(dir.file("none.gltf")), std::string::npos) << missing.output;
  const std::string junk = dir.write("junk.obj", "v 1 2\nf 1 2 9\n");
  const auto bad = run_command(kNav + " walk " + junk + " --agents 2 --seconds 1 --seed 1");
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
  EXPECT_NE(bad.output.find(junk), std::string::npos) << bad.output;
  for (const auto& [args, flag] : std::vector<std::pair<std::string, std::string>>{
           {" --agents 0 --seconds 1 --seed 1", "--agents"},
           {" --agents 5000 --seconds 1 --seed 1", "--agents"},
           {" --agents 2 --seconds 0 --seed 1", "--seconds"},
           {" --agents 2 --seconds 4000 --seed 1", "--seconds"},
           {" --agents 2 --seconds 1", "--seed"},
           {" --seconds 1 --seed 1", "--agents"},
           {" --agents 2 --seconds 1 --seed x", "--seed"},
           {" --agents 2 --seconds 1 --seed 1 --bogus", "--bogus"}}) {
    const auto r = run_command(kNav + " walk arena" + args);
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.output;
    EXPECT_NE(r.output.find(flag), std::string::npos) << args << ": " << r.output;
  }
  const std::string settings = dir.write("bad.toml", "walk_speed = -1\n");
  const auto r = run_command(kNav + " walk arena --settings " + settings + " --agents 2 --seconds 1 --seed 1");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("walk_speed"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace foothold::nav::test

namespace foothold::nav::test {
namespace {

const std::string kLevels = std::string(FOOTHOLD_SOURCE_DIR) + "/tests/nav/levels/";

// foothold-nav walk on one of the test levels: the figures, as behaviour (not the time per
// tick, which is the machine's). FOOTHOLD_PRINT_FIGURES=1 prints the line.
std::map<std::string, double> expect_walked_well(const std::string& level, int agents, int min_goals, int seed = 1) {
  const auto r = run_command(kNav + " walk " + kLevels + level + " --agents " + std::to_string(agents) +
                             " --seconds 60 --seed " + std::to_string(seed) + " --threads 2");
  std::map<std::string, double> f;
  EXPECT_EQ(r.exit_code, 0) << r.output;
  if (r.exit_code != 0) return f;
  for (const auto& [name, value] : walk_fields(r.output)) f[name] = std::stod(value);
  if (std::getenv("FOOTHOLD_PRINT_FIGURES")) std::printf("%s: %s", level.c_str(), r.output.c_str());
  EXPECT_GE(f["goals"], min_goals) << r.output;
  EXPECT_GE(f["arrived"], 0.98 * f["goals"]) << r.output;
  EXPECT_LE(f["mean_time_ratio"], 1.3) << r.output;
  EXPECT_GT(f["mean_time_ratio"], 0.8) << r.output;
  return f;
}

// Four rooms through doors, stairs up to a mezzanine and down its far side, a ramp to a platform
// with a drop, a balcony reached by a jump, crates and pillars (tests/nav/levels/make_levels.py).
TEST(NavWalk, RoomsLevelGoalsAreReachedNearWalkSpeed) { expect_walked_well("rooms.gltf", 16, 100); }

// A crowd of 32 between two halls through a corridor 4 m wide, passing each other.
TEST(NavWalk, ACrowdOf32PassesThroughTheCorridor) { expect_walked_well("corridor.gltf", 32, 150); }

// A seed whose crowd once jammed the corridor: thirty in it at once, the two streams face to face.
// Keeping to the right of those coming (FollowSettings::keep_right), they pass in two lanes.
TEST(NavWalk, TwoStreamsMeetingInTheCorridorPassInLanes) {
  const auto f = expect_walked_well("corridor.gltf", 32, 150, 381);
  EXPECT_EQ(f.count("give_ups") ? f.at("give_ups") : -1, 0);
}

// A deck sliding 16 m across a hall and back every 8 s: the walkers step onto it, are carried off
// their paths and pushed by its edges (the mesh knows nothing of it), and find their way again.
TEST(NavWalk, WalkersCarriedAndPushedByAMovingPlatformStillArrive) { expect_walked_well("platform.gltf", 16, 150); }

}  // namespace
}  // namespace foothold::nav::test
