// Rays and overlaps (shared/ray_query.h): capsules hit where they are, to the bit; the arena's floor,
// walls and movers; exclusions, ties and refusals.

#include <gtest/gtest.h>

#include "shared/arena.h"
#include "shared/mover_frame.h"
#include "shared/ray_query.h"
#include "support/scenario_support.h"

namespace foothold::test {
namespace {

const QueryCapsule kStanding{7, {2, 0.9, 3}, 0.5, 0.4};

TEST(RayQuery, ACapsuleIsHitOnItsSideItsCapsAndFromInside) {
  // Side on, through the centre: the surface at the radius.
  EXPECT_DOUBLE_EQ(ray_capsule({-3, 0.9, 3}, {1, 0, 0}, kStanding), 5 - 0.4);
  // From above, straight down: the top cap (centre + half segment + radius).
  EXPECT_DOUBLE_EQ(ray_capsule({2, 10, 3}, {0, -1, 0}, kStanding), 10 - (0.9 + 0.5 + 0.4));
  // Grazing: exactly the radius away misses not; just outside misses.
  EXPECT_GE(ray_capsule({-3, 0.9, 3.4}, {1, 0, 0}, kStanding), 0);
  EXPECT_LT(ray_capsule({-3, 0.9, 3.4001}, {1, 0, 0}, kStanding), 0);
  // Above the top, level: misses; behind the origin: misses.
  EXPECT_LT(ray_capsule({-3, 1.81, 3}, {1, 0, 0}, kStanding), 0);
  EXPECT_LT(ray_capsule({5, 0.9, 3}, {1, 0, 0}, kStanding), 0);
  // From inside: at once.
  EXPECT_EQ(ray_capsule({2.1, 1.2, 3}, {1, 0, 0}, kStanding), 0);
}

TEST(RayQuery, TheFirstThingMetWinsAndTheShooterIsNeverHit) {
  const World& world = arena_world();
  QueryScratch scratch;
  // Straight down onto the floor: a surface at y = 0, its normal up.
  RayHit h = cast_ray(world, nullptr, {}, {1.5, 5, 1.5}, {0, -1, 0}, 10, 0, scratch);
  ASSERT_EQ(h.kind, RayHit::Kind::kSurface);
  EXPECT_DOUBLE_EQ(h.distance, 5);
  EXPECT_DOUBLE_EQ(h.point.y, 0);
  EXPECT_DOUBLE_EQ(h.normal.y, 1);
  // Too short to reach: nothing.
  EXPECT_EQ(cast_ray(world, nullptr, {}, {1.5, 5, 1.5}, {0, -1, 0}, 4.99, 0, scratch).kind, RayHit::Kind::kNone);
  // Two characters in a row (in the open between rows C and D): the nearer; excluded (the shooter),
  // the one behind.
  const QueryCapsule front{3, {4, 0.9, 8}, 0.5, 0.4}, back{9, {8, 0.9, 8}, 0.5, 0.4};
  const std::vector<QueryCapsule> both{back, front};  // any order
  h = cast_ray(world, nullptr, both, {0, 0.9, 8}, {2, 0, 0}, 20, 0, scratch);
  ASSERT_EQ(h.kind, RayHit::Kind::kCharacter);
  EXPECT_EQ(h.character, 3u);
  EXPECT_DOUBLE_EQ(h.distance, 3.6);
  EXPECT_DOUBLE_EQ(h.normal.x, -1);
  h = cast_ray(world, nullptr, both, {0, 0.9, 8}, {1, 0, 0}, 20, 3, scratch);
  EXPECT_EQ(h.character, 9u);
  // The upright wall of row C (1 m thick, its face at x = -20: from +X the ray meets its back at
  // -19) before a character behind it.
  const std::vector<QueryCapsule> hidden{{5, {-22, 0.9, 0}, 0.5, 0.4}};
  h = cast_ray(world, nullptr, hidden, {-15, 1, 0}, {-1, 0, 0}, 20, 0, scratch);
  ASSERT_EQ(h.kind, RayHit::Kind::kSurface);
  EXPECT_DOUBLE_EQ(h.point.x, arena::kUprightWallX + 1);
  EXPECT_DOUBLE_EQ(h.normal.x, 1);
  // Refused: no direction, a non-finite one, no length.
  EXPECT_EQ(cast_ray(world, nullptr, both, {0, 0.9, 8}, {0, 0, 0}, 20, 0, scratch).kind, RayHit::Kind::kNone);
  EXPECT_EQ(cast_ray(world, nullptr, both, {0, 0.9, 8}, {1, 0.0 / 0.0, 0}, 20, 0, scratch).kind, RayHit::Kind::kNone);
  EXPECT_EQ(cast_ray(world, nullptr, both, {0, 0.9, 8}, {1, 0, 0}, 0, 0, scratch).kind, RayHit::Kind::kNone);
}

TEST(RayQuery, AMoverIsHitWhereItsTickPlacesIt) {
  const World& world = arena_world();
  QueryScratch scratch;
  // The shuttle at z = 26 runs along X; straight down through its path, at two ticks it is in two
  // places: the ray meets its slab at one and the floor at the other.
  int mover_hits = 0, floor_hits = 0;
  for (uint32_t tick = 1; tick < 600; tick += 7) {
    MoverFrame frame;
    frame.build(world, tick, 60);
    const RayHit h = cast_ray(world, &frame, {}, {0, 5, arena::kShuttleZ}, {0, -1, 0}, 10, 0, scratch);
    ASSERT_NE(h.kind, RayHit::Kind::kNone);
    if (h.kind == RayHit::Kind::kMover) {
      ++mover_hits;
      EXPECT_GT(h.point.y, 0.0);
      EXPECT_EQ(frame.mover_of(h.triangle), h.mover);
    } else {
      ++floor_hits;
      EXPECT_DOUBLE_EQ(h.point.y, 0);
    }
  }
  EXPECT_GT(mover_hits, 0);
  EXPECT_GT(floor_hits, 0);
}

TEST(RayQuery, OverlapsFindTheCapsulesTouchedInIdOrder) {
  const std::vector<QueryCapsule> cs{{9, {1, 0.9, 0}, 0.5, 0.4}, {2, {-1, 0.9, 0}, 0.5, 0.4}, {5, {0, 5, 0}, 0.5, 0.4}};
  std::vector<uint32_t> out;
  overlap_characters(cs, {0, 0.9, 0}, 0, 0.6, 0, out);
  EXPECT_EQ(out, (std::vector<uint32_t>{2, 9}));
  overlap_characters(cs, {0, 0.9, 0}, 0, 0.6, 2, out);
  EXPECT_EQ(out, (std::vector<uint32_t>{9}));
  // A tall capsule reaches the one above: segments 0.9 +- 3.2 and 5 +- 0.5 are 0.4 apart vertically,
  // within 0.1 + 0.4; the two beside it are 1 m away horizontally, beyond that.
  overlap_characters(cs, {0, 0.9, 0}, 3.2, 0.1, 0, out);
  EXPECT_EQ(out, (std::vector<uint32_t>{5}));
  overlap_characters(cs, {0, 0.9, 0}, 3.0, 0.1, 0, out);
  EXPECT_TRUE(out.empty()) << "0.6 apart vertically";
  overlap_characters(cs, {0, 0.9, 0}, 3.2, 0.1, 0, out);
  EXPECT_EQ(out, (std::vector<uint32_t>{5}));
  overlap_characters(cs, {0, 0.9, 0}, 0, 0.59, 0, out);
  EXPECT_TRUE(out.empty()) << "0.59 + 0.4 < 1";
}

}  // namespace
}  // namespace foothold::test
