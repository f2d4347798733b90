// foothold-nav bake: its line, its file, and every way to misuse it.

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
