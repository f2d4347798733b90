// Crouching (docs/movement.md §5.3): the shorter capsule keeps its feet, walks at crouch_speed, fits
// under a low roof, and stands up only where there is room.

#include <gtest/gtest.h>

#include "shared/step.h"
#include "support/scenario_support.h"

namespace foothold::test {
namespace {

// A flat floor with a roof whose underside is 1.5 m up over x in [2, 6]: too low to stand (1.8 m),
// high enough to crouch (1.2 m).
std::unique_ptr<World> low_roof_world() {
  MeshBuilder b;
  b.floor_grid(-10, -10, 10, 10, 0, 2);
  b.box({2, 1.5, -3}, {6, 2, 3});
  return make_world(b.take(), "low roof");
}

TEST(Crouch, KeepsTheFeetWhereTheyAreAndWalksAtCrouchSpeed) {
  const auto w = low_roof_world();
  const MoveSettings ms;
  const DerivedSettings s = derive(ms);
  StepScratch scratch;
  CharacterState st = spawn_state({-5, rest_height(), 0});
  for (uint32_t t = 1; t <= 5; ++t) st = step(st, encode_move(0, 0, 0, t), *w, s, scratch).state;
  const double feet = to_position(st.position).y - s.half_segment - s.radius;
  const double x0 = to_position(st.position).x;
  for (uint32_t t = 6; t <= 65; ++t) st = step(st, encode_move(0, 1, kButtonCrouch, t), *w, s, scratch).state;
  ASSERT_TRUE(st.crouched);
  EXPECT_TRUE(is_grounded(st.ground));
  const double crouched_feet = to_position(st.position).y - s.crouch_half_segment - s.radius;
  EXPECT_NEAR(crouched_feet, feet, 0.001);
  // 1 s at crouch_speed; each of the 60 positions rounds to the 1/1024 m grid (half a quantum each).
  EXPECT_NEAR(to_position(st.position).z, ms.crouch_speed, 60 * kPositionQuantum / 2);
  EXPECT_NEAR(to_position(st.position).x, x0, 0.001);
}

TEST(Crouch, FitsUnderALowRoofAndStaysCrouchedThereUntilThereIsRoom) {
  const auto w = low_roof_world();
  const DerivedSettings s = derive(MoveSettings{});
  StepScratch scratch;
  CharacterState st = spawn_state({0, rest_height(), 0});
  for (uint32_t t = 1; t <= 5; ++t) st = step(st, encode_move(0, 0, 0, t), *w, s, scratch).state;
  // Standing, the roof stops it at its edge.
  CharacterState standing = st;
  for (uint32_t t = 6; t <= 65; ++t) standing = step(standing, encode_move(1, 0, 0, t), *w, s, scratch).state;
  EXPECT_LT(to_position(standing.position).x, 2 - s.radius + 0.01);
  // Crouched, it goes under (1 s at 2.5 m/s from x = 0 ends at about 2.5).
  for (uint32_t t = 6; t <= 125; ++t) st = step(st, encode_move(t <= 65 ? 1 : 0, 0, kButtonCrouch, t), *w, s, scratch).state;
  ASSERT_GT(to_position(st.position).x, 2.2);
  ASSERT_TRUE(st.crouched);
  // Releasing crouch under the roof: it stays crouched, grounded, and never enters the roof.
  const double y = to_position(st.position).y;
  for (uint32_t t = 126; t <= 140; ++t) {
    const StepResult r = step(st, encode_move(0, 0, 0, t), *w, s, scratch);
    st = r.state;
    EXPECT_TRUE(st.crouched) << "tick " << t;
    EXPECT_EQ(to_position(st.position).y, y);
  }
  // Walking out from under it (crouch released) it stands up where there is room.
  for (uint32_t t = 141; t <= 300 && st.crouched; ++t) st = step(st, encode_move(1, 0, 0, t), *w, s, scratch).state;
  EXPECT_FALSE(st.crouched);
  EXPECT_GT(to_position(st.position).x, 6 + s.radius - 0.05);
  EXPECT_NEAR(to_position(st.position).y, rest_height(), 0.001);
}

TEST(Crouch, ACrouchedCharacterStaysCrouchedWhileTheButtonIsHeld) {
  const auto w = low_roof_world();
  const DerivedSettings s = derive(MoveSettings{});
  StepScratch scratch;
  CharacterState st = spawn_state({-5, rest_height(), 0});
  for (uint32_t t = 1; t <= 3; ++t) st = step(st, encode_move(0, 0, kButtonCrouch, t), *w, s, scratch).state;
  EXPECT_TRUE(st.crouched);
  st = step(st, encode_move(0, 0, 0, 4), *w, s, scratch).state;
  EXPECT_FALSE(st.crouched) << "open sky: released, it stands at once";
}

}  // namespace
}  // namespace foothold::test
