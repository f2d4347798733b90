// The navigation mesh rebuilt where movers stand (GameControl::rebuild_navigation, NavMesh::rebuild):
// the baked mesh is the static world's, so a path crosses where a door stands shut and stops at a
// gap a platform would bridge; rebuilt where they stand, a shut door blocks the way, an opened one
// lets it through again, and a platform raised into the gap joins its two sides.

#include <gtest/gtest.h>

#include "nav_support.h"
#include "server/navigation.h"
#include "support/scenario_support.h"
#include "support/sim_harness.h"

namespace foothold::nav::test {
namespace {

using foothold::test::SimHarness;
using foothold::test::with_clients;
constexpr proto::Nanos kS = proto::kSecond;

// Two rooms either side of a wall along z at x = 0, joined by a doorway 3 m wide (z in [-1.5,
// 1.5]) that mover 0, "door", a driven slab, fills shut and leaves 3 m above open (keys 0 s shut,
// 1 s open, 2 s shut). East of the rooms (x > 12) a pit 4 m wide (x in [14, 18]) that mover 1,
// "bridge", a driven deck, spans when raised level with the floor (keys 0 s down in the pit, 1 s
// level); nothing else crosses it.
std::unique_ptr<World> door_and_bridge() {
  MeshBuilder b;
  b.floor_grid(-10, -10, 14, 10, 0, 2);
  b.floor_grid(18, -10, 26, 10, 0, 2);
  b.box({-0.2, 0, -10}, {0.2, 3, -1.5});
  b.box({-0.2, 0, 1.5}, {0.2, 3, 10});
  TriangleMesh mesh = b.take();
  mesh.movers.push_back(foothold::test::driven_mover("door", {-0.15, 0, -1.5}, {0.15, 3, 1.5}, {0, 1, 2},
                                                     {{0, 0, 0}, {0, 3.2, 0}, {0, 0, 0}}));
  mesh.movers.push_back(foothold::test::driven_mover("bridge", {13.9, -6.3, -1.5}, {18.1, -6, 1.5}, {0, 1, 2},
                                                     {{0, 0, 0}, {0, 6, 0}, {0, 0, 0}}));
  return make_world(std::move(mesh), "door_and_bridge");
}

TEST(NavRebuild, AShutDoorBlocksTheWayAnOpenedOneLetsItThroughAndARaisedBridgeJoinsAGap) {
  const auto world = door_and_bridge();
  SimHarness h(*world, with_clients(0));
  server::GameControl& game = h.server().game_control();
  const int door = game.mover_index("door"), bridge = game.mover_index("bridge");
  ASSERT_EQ(door, 0);
  ASSERT_EQ(bridge, 1);
  const Vec3 west{-6, 0, 0}, east{6, 0, 0}, beyond{22, 0, 0};
  // Baked from the static world: through the doorway whatever stands in it; no way over the pit.
  const follow::Path through = game.path(west, east);
  ASSERT_EQ(through.status, follow::PathStatus::kComplete);
  EXPECT_LT(through.length(), 12.5);
  EXPECT_EQ(game.path(east, beyond).status, follow::PathStatus::kPartial);
  const std::size_t baked_polygons = h.server().navigation().polygons();

  // The door stands shut (a driven mover starts still at its animation's start): rebuilt there, the
  // way between the rooms is gone.
  const int tiles = game.rebuild_navigation(door);
  EXPECT_GT(tiles, 0);
  const follow::Path blocked = game.path(west, east);
  EXPECT_NE(blocked.status, follow::PathStatus::kComplete) << "through a shut door";
  // Opened (it rises 3.2 m over 1 s at speed 1) and rebuilt: the way is back, as short as before.
  ASSERT_TRUE(game.mover(door, server::MoverCommand::go_to(1)));
  h.run_for(2 * kS);
  EXPECT_NEAR(game.mover_time(door), 1.0, 1e-9);
  EXPECT_GT(game.rebuild_navigation(door), 0);
  const follow::Path again = game.path(west, east);
  ASSERT_EQ(again.status, follow::PathStatus::kComplete);
  EXPECT_NEAR(again.length(), through.length(), 0.5);

  // The bridge raised level with the floor and rebuilt where it stands and where it stood: the pit
  // is crossed over its deck.
  ASSERT_TRUE(game.mover(bridge, server::MoverCommand::go_to(1)));
  h.run_for(2 * kS);
  EXPECT_GT(game.rebuild_navigation(bridge), 0);
  const follow::Path over = game.path(east, beyond);
  ASSERT_EQ(over.status, follow::PathStatus::kComplete);
  EXPECT_LT(over.length(), 17.0);
  EXPECT_NE(h.server().navigation().polygons(), baked_polygons);
  // The same rebuild again changes nothing: the same mesh, the same path.
  EXPECT_GT(game.rebuild_navigation(bridge), 0);
  EXPECT_EQ(game.path(east, beyond), over);

  // Refused: a mover that does not exist.
  EXPECT_EQ(game.rebuild_navigation(2), -1);
  EXPECT_EQ(game.rebuild_navigation(-1), -1);
}

}  // namespace
}  // namespace foothold::nav::test
