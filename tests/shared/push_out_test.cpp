// Push-out (docs/movement.md §8): a character placed inside geometry comes out, the way §8 asks.

#include <cmath>

#include <gtest/gtest.h>

#include "shared/contact_queries.h"
#include "shared/push_out.h"
#include "shared/step.h"
#include "support/scenario_support.h"

namespace foothold::test {
namespace {

// A floor and one wall facing -X whose face leans back by `lean_deg` from vertical (0 = upright).
std::unique_ptr<World> wall_world(double lean_deg) {
  MeshBuilder b;
  b.floor_grid(-10, -10, 10, 10, 0, 2);
  const double shift = 4 * std::tan(lean_deg * 3.14159265358979 / 180);
  b.hexahedron({Vec3{0, 0, -5}, {0, 0, 5}, {2, 0, 5}, {2, 0, -5}},
               {Vec3{shift, 4, -5}, {shift, 4, 5}, {2 + shift, 4, 5}, {2 + shift, 4, -5}});
  return make_world(b.take(), "wall");
}

TEST(PushOut, CapsuleInsideUprightWallComesOutSideways) {
  const auto world = wall_world(0);
  const DerivedSettings s = derive(MoveSettings{});
  std::vector<uint32_t> scratch;
  ContactQueries q(*world, s, scratch);
  const Vec3 inside{-0.2, rest_height(), 0};  // 0.2 m into the wall
  const PushOutResult r = push_out(q, inside, /*grounded=*/true);
  EXPECT_TRUE(r.resolved);
  EXPECT_GT(r.iterations, 0);
  EXPECT_NEAR(r.position.x, -s.radius - s.contact_distance / 2, 1e-9);
  EXPECT_EQ(r.position.y, inside.y) << "no vertical drift";
  EXPECT_EQ(r.position.z, inside.z);
}

TEST(PushOut, SlantedWallPushesSidewaysNotUp) {
  // A wall leaning back 30 degrees: its normal points up by 30 degrees, so the shortest way out of
  // it rises. §8.2's extra rounds trade that rise for a sideways move.
  const auto world = wall_world(30);
  const DerivedSettings s = derive(MoveSettings{});
  std::vector<uint32_t> scratch;
  ContactQueries q(*world, s, scratch);
  const double deg = 30 * 3.14159265358979 / 180;
  const Vec3 n{-std::cos(deg), std::sin(deg), 0};
  const Vec3 inside{0.3, 1.5, 0};  // the lower sphere (0.3, 1.0) is 0.24 m in front of the face
  const double depth = s.radius - dot(inside - Vec3{0, s.half_segment, 0}, n);
  ASSERT_GT(depth, 0.1);
  const double naive_rise = (depth + s.contact_distance / 2) * n.y;
  const PushOutResult r = push_out(q, inside, /*grounded=*/false);
  ASSERT_TRUE(r.resolved);
  EXPECT_LT(r.position.y - inside.y, 0.25 * naive_rise) << "rose " << r.position.y - inside.y;
  EXPECT_LT(r.position.x, inside.x - depth) << "moved out sideways";
  ContactList overlapping;
  q.contacts(r.position, 0.0, overlapping);
  EXPECT_EQ(overlapping.size(), 0) << "no contact within the surface";
}

TEST(PushOut, GroundedCharacterSunkIntoSlopeSnapsStraightUp) {
  // A 30-degree ramp rising toward +X. Shortest-way-out would push the character back down the
  // slope; snapping lifts it in place (§8.1: snapping takes precedence when grounded).
  MeshBuilder b;
  b.prism_z({{-10, 0, 0}, {10, 0, 0}, {10, 20 * std::tan(30 * 3.14159265358979 / 180), 0}}, -5, 5);
  const auto world = make_world(b.take(), "ramp");
  const DerivedSettings s = derive(MoveSettings{});
  std::vector<uint32_t> scratch;
  ContactQueries q(*world, s, scratch);
  const double surface = 10 * std::tan(30 * 3.14159265358979 / 180);
  const Vec3 sunk{0, surface + 0.7, 0};
  const PushOutResult r = push_out(q, sunk, /*grounded=*/true);
  ASSERT_TRUE(r.resolved);
  EXPECT_EQ(r.position.x, sunk.x);
  EXPECT_EQ(r.position.z, sunk.z);
  EXPECT_GT(r.position.y, sunk.y);
}

TEST(PushOut, StepResolvesASpawnInsideTheFloor) {
  const auto world = wall_world(0);
  const DerivedSettings s = derive(MoveSettings{});
  StepScratch scratch;
  CharacterState state = spawn_state({-5, 0.5, 0});  // the lower 0.4 m below the floor
  const StepResult r = step(state, encode_move(0, 0, 0, 1), *world, s, scratch);
  EXPECT_GT(r.diagnostics.pushout_iterations, 0);
  EXPECT_FALSE(r.diagnostics.pushout_unresolved);
  EXPECT_NEAR(to_position(r.state.position).y, rest_height(), 2 * kPositionQuantum);
  EXPECT_EQ(r.state.ground, GroundKind::kWalkable);
}

TEST(PushOut, BoxedInCharacterStopsAtTheIterationCapWithoutHarm) {
  // A sealed cell smaller than the capsule: there is no way out.
  MeshBuilder b;
  b.quad_facing({-0.3, 0, -0.3}, {-0.3, 0, 0.3}, {0.3, 0, 0.3}, {0.3, 0, -0.3}, kUp);
  b.quad_facing({-0.3, 1, -0.3}, {-0.3, 1, 0.3}, {0.3, 1, 0.3}, {0.3, 1, -0.3}, {0, -1, 0});
  b.quad_facing({-0.3, 0, -0.3}, {-0.3, 1, -0.3}, {-0.3, 1, 0.3}, {-0.3, 0, 0.3}, {1, 0, 0});
  b.quad_facing({0.3, 0, -0.3}, {0.3, 1, -0.3}, {0.3, 1, 0.3}, {0.3, 0, 0.3}, {-1, 0, 0});
  const auto world = make_world(b.take(), "cell");
  const DerivedSettings s = derive(MoveSettings{});
  StepScratch scratch;
  CharacterState state = spawn_state({0, 0.5, 0});
  for (int t = 1; t <= 10; ++t) {
    const StepResult r = step(state, encode_move(1, 0, kButtonJump, uint32_t(t)), *world, s, scratch);
    EXPECT_TRUE(std::isfinite(r.diagnostics.position.y));
    EXPECT_LE(r.diagnostics.pushout_iterations, 2 * s.max_pushout_iterations * (s.max_pushout_iterations + 1));
    state = r.state;
  }
  EXPECT_LT(std::fabs(to_position(state.position).x), 5.0) << "not flung away";
}

}  // namespace
}  // namespace foothold::test
