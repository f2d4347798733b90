// The navigation mesh: what it lets a character of the movement settings walk, and its paths.

#include <algorithm>
#include <cmath>

#include <gtest/gtest.h>

#include "nav/mover_sweeps.h"

#include "nav_support.h"
#include "support/scenario_support.h"
#include "shared/workers/worker_pool.h"

namespace foothold::nav::test {
namespace {

double horizontal_distance(const Vec3& a, const Vec3& b) { return std::hypot(a.x - b.x, a.z - b.z); }

// The path crosses where four tiles meet (x = z = -1.47): the polygon search alone turned there.
TEST(NavMesh, FlatFloorGivesAStraightPath) {
  const auto world = make_world(floor_mesh());
  const auto mesh = bake(*world);
  ASSERT_TRUE(mesh);
  EXPECT_GT(mesh->stats().polygons, 0u);
  NavQuery query(*mesh);
  const PathResult path = query.find_path({-8, 0, -7}, {8, 0, 7});
  ASSERT_EQ(path.status, PathStatus::kFound);
  // Nothing in the way: the start and the goal, no corner between.
  ASSERT_EQ(path.corners.size(), 2u);
  EXPECT_LT(horizontal_distance(path.corners.front(), {-8, 0, -7}), 0.01);
  EXPECT_LT(horizontal_distance(path.corners.back(), {8, 0, 7}), 0.01);
  EXPECT_NEAR(path.corners.back().y, 0, 0.1);
}

TEST(NavMesh, PathFromACapsuleCentreFindsTheGroundUnderIt) {
  const auto world = make_world(floor_mesh());
  const auto mesh = bake(*world);
  ASSERT_TRUE(mesh);
  NavQuery query(*mesh);
  const PathResult path = query.find_path({-8, 0.92, 0}, {8, 0.92, 0});
  ASSERT_EQ(path.status, PathStatus::kFound);
  EXPECT_NEAR(path.corners.front().y, 0, 0.1);
}

TEST(NavMesh, WallForcesAPathAroundIt) {
  MeshBuilder b;
  b.floor_grid(-10, -10, 10, 10, 0, 2);
  b.box({-0.5, 0, -6}, {0.5, 3, 10});  // from the north edge to z = -6: the way round is south of it
  const auto world = make_world(b.take());
  const auto mesh = bake(*world);
  ASSERT_TRUE(mesh);
  NavQuery query(*mesh);
  const PathResult path = query.find_path({-5, 0, 0}, {5, 0, 0});
  ASSERT_EQ(path.status, PathStatus::kFound);
  ASSERT_GE(path.corners.size(), 3u) << "a straight line would cross the wall";
  double south = 0;
  for (const Vec3& c : path.corners) {
    south = std::min(south, c.z);
    // No corner inside the wall or closer to it than the capsule's radius (less a cell).
    if (c.z > -6) {
      EXPECT_GE(std::fabs(c.x), 0.5 + 0.4 - 0.14) << c.x << ", " << c.z;
    }
  }
  EXPECT_LT(south, -6 - 0.2) << "the path turns round the wall's end";
}

TEST(NavMesh, APathThroughADoorKnowsItIsNarrowThereAndNowhereElse) {
  const auto world = make_world(door_world(1.6));
  const auto mesh = bake(*world);
  ASSERT_TRUE(mesh);
  NavQuery query(*mesh);
  // Through the door at a slant (corners at its jambs) both ways, and straight through (no corner
  // at all).
  for (const auto& [from, to] : {std::pair<Vec3, Vec3>{{-5, 0, 3}, {5, 0, -3}}, {{5, 0, -3}, {-5, 0, 3}},
                                 {{-5, 0, 0.1}, {5, 0, 0.1}}}) {
    const PathResult path = query.find_path(from, to);
    ASSERT_EQ(path.status, PathStatus::kFound);
    ASSERT_FALSE(path.narrows.empty()) << "through the door from (" << from.x << ", " << from.z << ")";
    uint32_t leg = 0;
    bool in_doorway = false;
    for (const follow::Narrow& n : path.narrows) {
      // Where the path enters and leaves the narrow polygons: at the door, whose polygons may reach
      // a little past it into the rooms.
      EXPECT_LE(std::fabs(n.point.x), 0.2 + 0.4 + 0.5) << n.point.x << ", " << n.point.z;
      EXPECT_LE(std::fabs(n.point.z), 0.4 + 0.3) << n.point.x << ", " << n.point.z;
      // In the doorway: 1.6 m less a radius each side (0.8 m, a cell either way) is where a centre stands.
      in_doorway |= std::fabs(n.point.x) <= 0.2 + 0.4 + 0.15 && std::fabs(n.point.z) <= 0.4 + 0.15;
      EXPECT_GT(n.width, 0.8 - 0.3);
      EXPECT_LT(n.width, 0.8 + 0.3);
      EXPECT_LT(n.width, query.narrow_width());
      // The way through the door (x), to a few degrees, the same way for either way through.
      EXPECT_GT(n.axis.x, 0.95) << n.axis.x << ", " << n.axis.z;
      EXPECT_GE(n.leg, leg) << "in order along the path";
      leg = n.leg;
      EXPECT_LT(n.leg + 1, path.corners.size());
    }
    EXPECT_TRUE(in_doorway);
  }
  // Across a room, clear of the wall: nothing narrow.
  EXPECT_TRUE(query.find_path({-5, 0, -5}, {-5, 0, 5}).narrows.empty());
  EXPECT_TRUE(query.find_path({-8, 0, -8}, {-3, 0, 6}).narrows.empty());
}

TEST(NavMesh, ADoorWideEnoughForTwoToPassIsNotNarrow) {
  const auto world = make_world(door_world(4));
  const auto mesh = bake(*world);
  ASSERT_TRUE(mesh);
  NavQuery query(*mesh);
  const PathResult path = query.find_path({-5, 0, 3}, {5, 0, -3});
  ASSERT_EQ(path.status, PathStatus::kFound);
  for (const follow::Narrow& n : path.narrows) ADD_FAILURE() << "narrow at (" << n.point.x << ", " << n.point.z << "), " << n.width << " m";
}

// Stairs of 0.3 m risers (under the default 0.35 m step height) up to a platform 1.5 m high.
TriangleMesh stairs_and_ledge() {
  MeshBuilder b;
  b.floor_grid(-10, -10, 10, 10, 0, 2);
  for (int k = 0; k < 5; ++k) b.box({-4 + 0.5 * k, 0, -8}, {2, 0.3 * (k + 1), -5});
  b.box({2, 0, -8}, {6, 1.5, -5});
  // A block 0.6 m high, above the step height, with nothing to climb it by: within a jump's reach
  // (7 m/s against 20 m/s^2: 1.2 m).
  b.box({2, 0, 3}, {6, 0.6, 7});
  // A block 1.5 m high: out of it.
  b.box({-6, 0, 3}, {-2, 1.5, 7});
  return b.take();
}

// The leg of `path` that is a link (a jump or a drop), or -1.
int link_leg(const PathResult& path) {
  for (std::size_t i = 0; i < path.legs.size(); ++i)
    if (path.legs[i] != Leg::kWalk) return int(i);
  return -1;
}

TEST(NavMesh, StairsWithinStepHeightAreWalkedUp) {
  const auto world = make_world(stairs_and_ledge());
  const auto mesh = bake(*world);
  ASSERT_TRUE(mesh);
  NavQuery query(*mesh);
  const PathResult path = query.find_path({-8, 0, -6.5}, {4, 1.5, -6.5});
  ASSERT_EQ(path.status, PathStatus::kFound);
  EXPECT_NEAR(path.corners.back().y, 1.5, 0.1);
}

TEST(NavMesh, LedgeWithinAJumpIsReachedByAJumpLinkAndLeftByADrop) {
  const auto world = make_world(stairs_and_ledge());
  const auto mesh = bake(*world);
  ASSERT_TRUE(mesh);
  EXPECT_GT(mesh->stats().links, 0u);
  NavQuery query(*mesh);
  // From the east of the block, onto it: the stairs are far, the jump is near.
  const PathResult up = query.find_path({8, 0, 5}, {4, 0.6, 5});
  ASSERT_EQ(up.status, PathStatus::kFound);
  const int jump = link_leg(up);
  ASSERT_GE(jump, 0) << "a jump link onto the block";
  EXPECT_EQ(up.legs[std::size_t(jump)], Leg::kJump);
  const Vec3 from = up.corners[std::size_t(jump)], to = up.corners[std::size_t(jump) + 1];
  EXPECT_NEAR(from.y, 0, 0.1) << "it takes off from the floor";
  EXPECT_NEAR(to.y, 0.6, 0.1) << "and lands on the block";
  // It takes off with room to run: farther from the block's side (x = 6) than the capsule's radius.
  EXPECT_GT(from.x, 6 + 0.4 + 0.2);
  EXPECT_NEAR(up.corners.back().y, 0.6, 0.1);
  // And off the block: a drop (links go one way; the way down is another).
  const PathResult down = query.find_path({4, 0.6, 5}, {8, 0, 5});
  ASSERT_EQ(down.status, PathStatus::kFound);
  ASSERT_GE(link_leg(down), 0);
  EXPECT_EQ(down.legs[std::size_t(link_leg(down))], Leg::kDrop);
}

TEST(NavMesh, LedgeAboveAJumpIsNotReachedButDroppedFrom) {
  const auto world = make_world(stairs_and_ledge());
  const auto mesh = bake(*world);
  ASSERT_TRUE(mesh);
  NavQuery query(*mesh);
  const PathResult path = query.find_path({-8, 0, 5}, {-4, 1.5, 5});
  // The block's top is on the mesh, but nothing joins the floor to it: the path ends on the floor.
  ASSERT_EQ(path.status, PathStatus::kPartial);
  EXPECT_NEAR(path.corners.back().y, 0, 0.1);
  EXPECT_EQ(link_leg(path), -1);
  const PathResult down = query.find_path({-4, 1.5, 5}, {-8, 0, 5});
  ASSERT_EQ(down.status, PathStatus::kFound);
  ASSERT_GE(link_leg(down), 0);
  EXPECT_EQ(down.legs[std::size_t(link_leg(down))], Leg::kDrop);
}

TEST(NavMesh, WithoutAJumpThereAreNoJumpLinks) {
  MoveSettings settings;
  settings.jump_speed = 0;
  const auto world = make_world(stairs_and_ledge());
  const auto mesh = bake(*world, settings);
  ASSERT_TRUE(mesh);
  NavQuery query(*mesh);
  EXPECT_EQ(query.find_path({8, 0, 5}, {4, 0.6, 5}).status, PathStatus::kPartial);
}

TEST(NavMesh, StairsAboveALowerStepHeightAreNotWalkedUp) {
  // The same stairs for a character that climbs 0.2 m: the settings decide.
  MoveSettings settings;
  settings.step_height = 0.2;
  settings.jump_speed = 0;  // nor jumped up
  const auto world = make_world(stairs_and_ledge());
  const auto mesh = bake(*world, settings);
  ASSERT_TRUE(mesh);
  NavQuery query(*mesh);
  const PathResult path = query.find_path({-8, 0, -6.5}, {4, 1.5, -6.5});
  EXPECT_EQ(path.status, PathStatus::kPartial);
}

TEST(NavMesh, PointsFarFromTheMeshHaveNoPath) {
  const auto world = make_world(floor_mesh());
  const auto mesh = bake(*world);
  ASSERT_TRUE(mesh);
  NavQuery query(*mesh);
  EXPECT_EQ(query.find_path({-8, 10, 0}, {8, 0, 0}).why, NoPathReason::kStartOffMesh);
  const PathResult off = query.find_path({-8, 0, 0}, {30, 0, 0});
  EXPECT_EQ(off.status, PathStatus::kNoPath);
  EXPECT_EQ(off.why, NoPathReason::kGoalOffMesh);
  EXPECT_TRUE(off.corners.empty());
}

TEST(NavMesh, ArenaBakesAndJoinsFarCorners) {
  const auto world = arena();
  const auto mesh = bake(*world);
  ASSERT_TRUE(mesh);
  NavQuery query(*mesh);
  // From the north-west corner, between row D and the shuttle's path, to the south-east, past row C.
  const PathResult path = query.find_path({-28, 0, 22}, {28, 0, -8});
  ASSERT_EQ(path.status, PathStatus::kFound);
  EXPECT_LT(horizontal_distance(path.corners.back(), {28, 0, -8}), 0.01);
  // And up the stairs of row B onto its ledge.
  const PathResult up = query.find_path(arena::kOpenFloor, {arena::kLedgeX0 + 2, arena::kLedgeHeight, -14});
  ASSERT_EQ(up.status, PathStatus::kFound);
  EXPECT_NEAR(up.corners.back().y, arena::kLedgeHeight, 0.1);
}

TEST(NavMesh, BakingTwiceGivesTheSameBytesOnOneOrTwoThreads) {
  const auto world = arena();
  const auto first = bake(*world);
  const auto again = bake(*world);
  WorkerPool pool(2);
  BakeOptions two;
  two.threads = &pool;
  const auto threaded = bake(*world, {}, two);
  ASSERT_TRUE(first && again && threaded);
  const std::vector<uint8_t> bytes = first->to_bytes();
  EXPECT_EQ(bytes, again->to_bytes());
  EXPECT_EQ(bytes, threaded->to_bytes());
  EXPECT_GT(first->stats().tiles, 4u) << "enough tiles for two threads to share";
}

TEST(NavMesh, ProgressIsReportedUpToEveryTile) {
  const auto world = arena();
  std::size_t last = 0, total = 0;
  BakeOptions options;
  options.tile_cells = 16;
  options.progress = [&](std::size_t done, std::size_t all) {
    EXPECT_GT(done, last);
    last = done;
    total = all;
  };
  const auto mesh = bake(*world, {}, options);
  ASSERT_TRUE(mesh);
  EXPECT_EQ(last, total);
  EXPECT_GE(total, mesh->stats().tiles);
}

TEST(NavMesh, BadTileSizeIsRefused) {
  const auto world = make_world(floor_mesh());
  BakeOptions options;
  options.tile_cells = 8;
  const NavMeshResult r = NavMesh::bake(*world, {}, options);
  EXPECT_FALSE(r.mesh);
  EXPECT_NE(r.error.find("tile_cells 8"), std::string::npos) << r.error;
}

TEST(NavMesh, RandomPointIsAPureFunctionOfTheSeedOnTheMesh) {
  const auto world = make_world(floor_mesh());
  const auto mesh = bake(*world);
  ASSERT_TRUE(mesh);
  NavQuery query(*mesh);
  double min_x = 1e9, max_x = -1e9;
  for (uint64_t seed = 0; seed < 200; ++seed) {
    const Vec3 p = mesh->random_point(seed);
    const Vec3 again = mesh->random_point(seed);
    EXPECT_EQ(p.x, again.x);
    EXPECT_EQ(p.z, again.z);
    EXPECT_NEAR(p.y, 0, 0.1);
    // Inside the floor, kept a radius from its edges.
    EXPECT_LE(std::max(std::fabs(p.x), std::fabs(p.z)), 10 - 0.4 + 0.14) << "seed " << seed;
    Vec3 on;
    ASSERT_TRUE(query.nearest_point(p, on));
    EXPECT_LT(horizontal_distance(p, on), 1e-3);
    min_x = std::min(min_x, p.x);
    max_x = std::max(max_x, p.x);
  }
  EXPECT_LT(min_x, -5) << "points spread over the floor";
  EXPECT_GT(max_x, 5);
}

TEST(NavMesh, RandomPointsAreDrawnFromTheRegionWhosePointsAllReachOneAnother) {
  // A floor and a tower 2.5 m high, 6 m square: too high to jump onto, low enough to drop from. Its
  // top is walkable and joined to the floor by drop links, one way: a region of its own.
  MeshBuilder b;
  b.floor_grid(-10, -10, 10, 10, 0, 2);
  b.box({2, 0, 2}, {8, 2.5, 8});
  const auto world = make_world(b.take());
  const auto mesh = bake(*world);
  ASSERT_TRUE(mesh);
  ASSERT_GT(mesh->stats().links, 0u) << "drop links from the tower's top";
  EXPECT_GE(mesh->regions(), 2u);
  NavQuery query(*mesh);
  const PathResult down = query.find_path({5, 2.5, 5}, {-5, 0, -5});
  EXPECT_EQ(down.status, PathStatus::kFound) << "the top reaches the floor";
  const PathResult up = query.find_path({-5, 0, -5}, {5, 2.5, 5});
  EXPECT_NE(up.status, PathStatus::kFound) << "the floor does not reach the top";
  Vec3 last = mesh->random_point(0);
  for (uint64_t seed = 1; seed < 300; ++seed) {
    const Vec3 p = mesh->random_point(seed);
    ASSERT_NEAR(p.y, 0, 0.1) << "seed " << seed << " drew " << p.x << "," << p.y << "," << p.z;
    if (seed % 30 == 0) {
      EXPECT_EQ(query.find_path(last, p).status, PathStatus::kFound) << "seed " << seed;
      last = p;
    }
  }
}

TEST(NavMesh, ANeverGroundPadAStepHighIsNoPartOfTheMesh) {
  // The arena's pad: 0.1 m high (a step: Recast would let it be walked on) and tagged never_ground,
  // so a character on it never stands. Nothing is drawn on it, and a path goes round it.
  MeshBuilder b;
  b.floor_grid(-10, -10, 10, 10, 0, 2);
  b.box({-3, 0, -3}, {3, 0.1, 3}, SurfaceTag::kNeverGround);
  const auto world = make_world(b.take());
  const auto mesh = bake(*world);
  ASSERT_TRUE(mesh);
  const auto on_pad = [](const Vec3& p) { return std::fabs(p.x) < 3 && std::fabs(p.z) < 3; };
  for (uint64_t seed = 0; seed < 300; ++seed) {
    const Vec3 p = mesh->random_point(seed);
    ASSERT_FALSE(on_pad(p)) << "seed " << seed << " drew " << p.x << "," << p.y << "," << p.z;
  }
  NavQuery query(*mesh);
  const PathResult across = query.find_path({-8, 0, 0.5}, {8, 0, -0.5});
  ASSERT_EQ(across.status, PathStatus::kFound);
  ASSERT_GE(across.corners.size(), 3u) << "it turns round the pad";
  for (std::size_t i = 0; i + 1 < across.corners.size(); ++i) {
    const Vec3 mid = (across.corners[i] + across.corners[i + 1]) * 0.5;
    EXPECT_FALSE(on_pad(mid)) << "leg " << i << " crosses the pad";
  }
}

TEST(NavMesh, GroundAMoverSweepsIsNeverDrawnAndPathsGoRoundItWhereTheyCan) {
  // A lift: a 4 x 4 m slab on the floor's centre, rising 2 m and back over 4 s (driven: the game
  // may hold it anywhere on that way). The mesh does not hold it, but the floor under it is its own
  // area.
  MeshBuilder b;
  b.floor_grid(-10, -10, 10, 10, 0, 2);
  TriangleMesh mesh = b.take();
  mesh.movers.push_back(
      foothold::test::driven_mover("lift", {-2, 0, -2}, {2, 0.2, 2}, {0, 2, 4}, {{0, 0, 0}, {0, 2, 0}, {0, 0, 0}}));
  const auto world = make_world(mesh);
  const std::vector<Aabb> sweeps = mover_sweeps(*world);
  ASSERT_EQ(sweeps.size(), 1u);
  EXPECT_NEAR(sweeps[0].lo.x, -2, 1e-9);
  EXPECT_NEAR(sweeps[0].hi.y, 2.2, 1e-9) << "its top at the peak";
  const auto mesh_baked = bake(*world);
  ASSERT_TRUE(mesh_baked);
  const auto under = [](const Vec3& p) { return std::fabs(p.x) < 2 && std::fabs(p.z) < 2; };
  for (uint64_t seed = 0; seed < 300; ++seed) {
    const Vec3 p = mesh_baked->random_point(seed);
    ASSERT_FALSE(under(p)) << "seed " << seed << " drew " << p.x << "," << p.z;
  }
  NavQuery query(*mesh_baked);
  const PathResult across = query.find_path({-8, 0, 0}, {8, 0, 0});
  ASSERT_EQ(across.status, PathStatus::kFound);
  ASSERT_GE(across.corners.size(), 3u) << "round the lift, not straight under it";
  for (std::size_t i = 0; i + 1 < across.corners.size(); ++i)
    EXPECT_FALSE(under((across.corners[i] + across.corners[i + 1]) * 0.5)) << "leg " << i;
  EXPECT_EQ(query.find_path({-8, 0, 0}, {0, 0, 0}).status, PathStatus::kFound) << "the ground under it is still reached";
}

}  // namespace
}  // namespace foothold::nav::test
