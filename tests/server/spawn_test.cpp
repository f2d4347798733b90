// Spawn spots: characters never join inside each other or inside the world.

#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "server/spawn.h"
#include "support/scenario_support.h"

namespace foothold::test {
namespace {

using server::SpawnSpots;

double horizontal(const Vec3& a, const Vec3& b) { return std::hypot(a.x - b.x, a.z - b.z); }

TEST(Spawn, EveryArenaSpotIsClearFloor) {
  // Each spot, on its own: the character falls onto the floor and stands there, untouched by any
  // feature, wall or mover (a spot too near one would be pushed off it, or land on it).
  const SpawnSpots spots(arena_world(), MoveSettings{});
  ASSERT_GE(spots.size(), 1200u);
  for (std::size_t k = 0; k < spots.size(); ++k) {
    const Vec3 at = spots.spot(k);
    ASSERT_TRUE(arena::in_spawn_area(at.x, at.z)) << k;
    const auto run = run_script(arena_world(), at, "40 0 0 -\n");
    const Vec3 end = pos(run.rows.back());
    ASSERT_TRUE(is_grounded(run.rows.back().state.ground)) << "spot " << k << " at " << at.x << ", " << at.z;
    ASSERT_EQ(end.y, rest_height()) << "spot " << k << " at " << at.x << ", " << at.z;
    ASSERT_LT(horizontal(end, at), 1e-3) << "spot " << k << " at " << at.x << ", " << at.z;
  }
}

TEST(Spawn, SpotsGoNearestTheCentreFirst) {
  const SpawnSpots spots(arena_world(), MoveSettings{});
  const Vec3 c = arena::kSpawnCentre;
  for (std::size_t k = 1; k < spots.size(); ++k)
    ASSERT_LE(horizontal(spots.spot(k - 1), c), horizontal(spots.spot(k), c) + 1e-12) << k;
  EXPECT_LT(horizontal(spots.spot(0), c), 1.2);
}

TEST(Spawn, JoinersNeverOverlapUntilEverySpotIsTaken) {
  const MoveSettings settings;
  const SpawnSpots spots(arena_world(), settings);
  std::vector<FixedVec3> occupied;
  for (uint32_t id = 1; id <= spots.size(); ++id) {
    const CharacterState s = spots.choose(id, occupied);
    const Vec3 p = to_position(s.position);
    for (const FixedVec3& o : occupied) ASSERT_GE(horizontal(p, to_position(o)), 2 * settings.radius + 0.2) << "id " << id;
    occupied.push_back(s.position);
  }
  // Every spot taken: the id's own, shared.
  EXPECT_EQ(spots.choose(5, occupied).position, spawn_state(spots.spot(5)).position);
  EXPECT_EQ(spots.choose(uint32_t(spots.size() + 3), occupied).position, spawn_state(spots.spot(3)).position);
}

TEST(Spawn, ASpotFreesWhenItsCharacterWalksAway) {
  const SpawnSpots spots(arena_world(), MoveSettings{});
  std::vector<FixedVec3> occupied{spawn_state(spots.spot(0)).position, spawn_state(spots.spot(1)).position};
  EXPECT_EQ(spots.choose(3, occupied).position, spawn_state(spots.spot(2)).position);
  // Someone standing 0.9 m from spot 2 (closer than two radii and 0.2 m) takes it too.
  occupied.push_back(spawn_state(spots.spot(2) + Vec3{0.9, 0, 0}).position);
  EXPECT_NE(spots.choose(4, occupied).position, spawn_state(spots.spot(2)).position);
  occupied.erase(occupied.begin());  // the first walked off
  EXPECT_EQ(spots.choose(5, occupied).position, spawn_state(spots.spot(0)).position);
}

TEST(Spawn, OtherWorldsSpreadOverTheirBoundsAboveTheTop) {
  MeshBuilder b;
  b.floor_grid(-10, -20, 30, 20, 0, 2);
  b.box({0, 0, 0}, {1, 4, 1});
  const auto world = make_world(b.take());
  const MoveSettings settings;
  const SpawnSpots spots(*world, settings);
  // 40 x 40 m less 0.9 m each side (38.2 m): 26 x 26 points 1.5 m apart.
  EXPECT_EQ(spots.size(), 26u * 26u);
  for (std::size_t k = 0; k < spots.size(); ++k) {
    const Vec3 p = spots.spot(k);
    ASSERT_EQ(p.y, 6.0);
    ASSERT_TRUE(p.x >= -10 + 0.9 && p.x <= 30 - 0.9 && p.z >= -20 + 0.9 && p.z <= 20 - 0.9) << p.x << ", " << p.z;
  }
  EXPECT_LT(horizontal(spots.spot(0), Vec3{10, 0, 0}), 1.5);
  // A world kilometres across: at most 256 points a side.
  MeshBuilder wide;
  wide.floor_grid(-5000, -5000, 5000, 5000, 0, 1000);
  const auto big = make_world(wide.take());
  EXPECT_LE(SpawnSpots(*big, settings).size(), 256u * 256u);
}

}  // namespace
}  // namespace foothold::test
