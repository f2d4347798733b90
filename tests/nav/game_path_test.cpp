// GameControl::path(): Detour's paths on the match's navigation mesh, as a game asks for them.

#include <gtest/gtest.h>

#include "nav_support.h"
#include "server/navigation.h"
#include "support/process.h"
#include "support/sim_harness.h"

namespace foothold::nav::test {
namespace {

using foothold::test::SimHarness;
using foothold::test::TempDir;
using foothold::test::with_clients;

TEST(GamePath, AcrossTheArenaIsCompleteAndTheSameEveryTime) {
  const auto world = arena();
  SimHarness h(*world, with_clients(0));
  server::GameControl& game = h.server().game_control();
  // No mesh given: the first path() bakes it.
  EXPECT_FALSE(h.server().navigation().ready());
  const follow::Path path = game.path({-28, 0.92, 22}, {28, 0.92, -8});
  EXPECT_TRUE(h.server().navigation().ready());
  ASSERT_EQ(path.status, follow::PathStatus::kComplete);
  ASSERT_GE(path.corners.size(), 2u);
  EXPECT_NEAR(path.corners.front().point.x, -28, 0.01);
  EXPECT_NEAR(path.corners.back().point.z, -8, 0.01);
  EXPECT_NEAR(path.corners.back().point.y, 0, 0.1) << "corners lie on the ground";
  for (const follow::Corner& c : path.corners) EXPECT_EQ(c.leg, follow::Leg::kWalk);
  EXPECT_GE(path.length(), 56.0);
  // The same query, the same corners, bit for bit.
  EXPECT_EQ(game.path({-28, 0.92, 22}, {28, 0.92, -8}), path);
}

TEST(GamePath, ALoadedMeshGivesTheBakedOnesPaths) {
  const auto world = arena();
  TempDir dir;
  const auto mesh = bake(*world);
  ASSERT_TRUE(mesh);
  ASSERT_EQ(mesh->save(dir.file("arena.nav")), "");
  SimHarness baked(*world, with_clients(0)), loaded(*world, with_clients(0));
  ASSERT_EQ(loaded.server().navigation().load(dir.file("arena.nav"), *world, {}), "");
  const Vec3 from = arena::kOpenFloor, to{arena::kLedgeX0 + 2, arena::kLedgeHeight, -14};
  const follow::Path up = loaded.server().game_control().path(from, to);
  ASSERT_EQ(up.status, follow::PathStatus::kComplete);
  EXPECT_NEAR(up.corners.back().point.y, arena::kLedgeHeight, 0.1) << "up the stairs of row B";
  EXPECT_EQ(baked.server().game_control().path(from, to), up);
}

TEST(GamePath, EndsOffTheMeshGiveNoPathAndAnUnreachableGoalAPartialOne) {
  MeshBuilder b;
  b.floor_grid(-10, -10, 10, 10, 0, 2);
  b.box({2, 0, 2}, {6, 3, 6});  // a block 3 m high: its top is on the mesh, out of every reach
  const auto world = make_world(b.take());
  SimHarness h(*world, with_clients(0));
  server::GameControl& game = h.server().game_control();
  const follow::Path none = game.path({-5, 0, -5}, {0, 50, 0});
  EXPECT_EQ(none.status, follow::PathStatus::kNone);
  EXPECT_TRUE(none.corners.empty());
  const follow::Path partial = game.path({-5, 0, -5}, {4, 3, 4});
  EXPECT_EQ(partial.status, follow::PathStatus::kPartial);
  ASSERT_FALSE(partial.corners.empty());
  EXPECT_NEAR(partial.corners.back().point.y, 0, 0.1) << "it ends on the floor";
}

}  // namespace
}  // namespace foothold::nav::test
