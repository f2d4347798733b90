// A frozen character (CharacterState::frozen, a game's freeze command): step() takes its input as
// neutral, while gravity and everything else still act on it.

#include <gtest/gtest.h>

#include "shared/step.h"
#include "support/scenario_support.h"

namespace foothold::test {
namespace {

std::unique_ptr<World> flat_world() {
  MeshBuilder b;
  b.floor_grid(-20, -20, 20, 20, 0, 4);
  return make_world(b.take(), "flat");
}

// A character at rest on the floor at the origin, after a few idle ticks.
CharacterState landed(const World& w, const DerivedSettings& s, StepScratch& scratch, uint8_t buttons = 0) {
  CharacterState st = spawn_state({0, rest_height(), 0});
  for (uint32_t t = 1; t <= 10; ++t) st = step(st, encode_move(0, 0, buttons, t), w, s, scratch).state;
  return st;
}

TEST(Frozen, IgnoresTheStickAndTheJumpButtonAndStaysFrozen) {
  const auto w = flat_world();
  const DerivedSettings s = derive(MoveSettings{});
  StepScratch scratch;
  CharacterState st = landed(*w, s, scratch);
  ASSERT_TRUE(is_grounded(st.ground));
  st.frozen = true;
  const CharacterState start = st;
  for (uint32_t t = 11; t <= 70; ++t) {
    st = step(st, encode_move(1, 1, t % 2 ? kButtonJump : 0, t), *w, s, scratch).state;
    ASSERT_TRUE(st.frozen) << "the step keeps what the game set";
    EXPECT_TRUE(is_grounded(st.ground)) << "no jump, tick " << t;
    EXPECT_EQ(st.jump_buffer, 255) << "no press buffered";
  }
  EXPECT_EQ(st.position, start.position) << "no move";
  EXPECT_EQ(st.velocity, FixedVec3{});
  // The same inputs unfrozen walk and jump: the test above could have failed.
  CharacterState free = start;
  free.frozen = false;
  for (uint32_t t = 11; t <= 70; ++t) free = step(free, encode_move(1, 1, t % 2 ? kButtonJump : 0, t), *w, s, scratch).state;
  EXPECT_GT(to_position(free.position).x, 1.0);
}

TEST(Frozen, APressBufferedBeforeTheFreezeNeverJumps) {
  const auto w = flat_world();
  const DerivedSettings s = derive(MoveSettings{});
  StepScratch scratch;
  // Pressed in the air just before landing: unfrozen, it would jump on landing (the jump buffer).
  CharacterState st = spawn_state({0, rest_height() + 0.05, 0});
  st = step(st, encode_move(0, 0, kButtonJump, 1), *w, s, scratch).state;
  ASSERT_FALSE(is_grounded(st.ground));
  ASSERT_NE(st.jump_buffer, 255);
  CharacterState frozen = st;
  frozen.frozen = true;
  bool jumped = false, frozen_jumped = false;
  for (uint32_t t = 2; t <= 30; ++t) {
    const StepResult a = step(st, encode_move(0, 0, 0, t), *w, s, scratch);
    const StepResult b = step(frozen, encode_move(0, 0, 0, t), *w, s, scratch);
    jumped |= a.diagnostics.jumped;
    frozen_jumped |= b.diagnostics.jumped;
    st = a.state;
    frozen = b.state;
  }
  EXPECT_TRUE(jumped) << "the buffered press jumps an unfrozen character";
  EXPECT_FALSE(frozen_jumped);
  EXPECT_TRUE(is_grounded(frozen.ground));
}

TEST(Frozen, FallsUnderGravityAsAnyCharacterDoes) {
  const auto w = flat_world();
  const DerivedSettings s = derive(MoveSettings{});
  StepScratch scratch;
  CharacterState frozen = spawn_state({0, 5, 0});
  frozen.frozen = true;
  CharacterState idle = spawn_state({0, 5, 0});
  for (uint32_t t = 1; t <= 20; ++t) {
    frozen = step(frozen, encode_move(1, 0, kButtonJump, t), *w, s, scratch).state;
    idle = step(idle, encode_move(0, 0, 0, t), *w, s, scratch).state;
  }
  EXPECT_LT(to_position(frozen.position).y, 5 - 1.0) << "it fell";
  EXPECT_LT(frozen.velocity.y, 0);
  // Exactly as one given no input falls (the flag aside).
  frozen.frozen = false;
  EXPECT_EQ(frozen, idle);
  // And it lands.
  frozen.frozen = true;
  for (uint32_t t = 21; t <= 120; ++t) frozen = step(frozen, encode_move(0, 0, 0, t), *w, s, scratch).state;
  EXPECT_TRUE(is_grounded(frozen.ground));
}

TEST(Frozen, KeepsItsPostureWhateverTheCrouchButtonSays) {
  const auto w = flat_world();
  const DerivedSettings s = derive(MoveSettings{});
  StepScratch scratch;
  CharacterState crouched = landed(*w, s, scratch, kButtonCrouch);
  ASSERT_TRUE(crouched.crouched);
  crouched.frozen = true;
  CharacterState standing = landed(*w, s, scratch);
  ASSERT_FALSE(standing.crouched);
  standing.frozen = true;
  for (uint32_t t = 11; t <= 30; ++t) {
    crouched = step(crouched, encode_move(0, 0, 0, t), *w, s, scratch).state;  // released
    standing = step(standing, encode_move(0, 0, kButtonCrouch, t), *w, s, scratch).state;  // pressed
    EXPECT_TRUE(crouched.crouched) << t;
    EXPECT_FALSE(standing.crouched) << t;
  }
  // Unfrozen, the released button stands it up: the posture was the freeze's doing.
  crouched.frozen = false;
  crouched = step(crouched, encode_move(0, 0, 0, 31), *w, s, scratch).state;
  EXPECT_FALSE(crouched.crouched);
}

}  // namespace
}  // namespace foothold::test
