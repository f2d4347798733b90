// A game's push (CharacterState::push, GameControl::push: knockback, movement.md §5.5): an external
// velocity that moves a grounded character too, slides along walls and dies at its friction.

#include <gtest/gtest.h>

#include "shared/game_command.h"
#include "shared/step.h"
#include "support/scenario_support.h"

namespace foothold::test {
namespace {

// A flat floor, and (with_wall) a wall facing -x whose face is at x = 2.
std::unique_ptr<World> floor_world(bool with_wall) {
  MeshBuilder b;
  b.floor_grid(-20, -20, 20, 20, 0, 4);
  if (with_wall) b.box({2, 0, -20}, {3, 4, 20});
  return make_world(b.take(), with_wall ? "wall" : "flat");
}

// A character at rest on the floor at `x`, 0, after a few idle ticks.
CharacterState landed(const World& w, const DerivedSettings& s, StepScratch& scratch, double x = 0) {
  CharacterState st = spawn_state({x, rest_height(), 0});
  for (uint32_t t = 1; t <= 10; ++t) st = step(st, encode_move(0, 0, 0, t), w, s, scratch).state;
  return st;
}

GameCommand push_of(const Vec3& v) {
  GameCommand c;
  c.kind = GameCommandKind::kPush;
  c.vector = quantize_velocity(v);
  return c;
}

struct Travel {
  double distance = 0;  // metres from where it was pushed to where it stopped
  int ticks = 0;        // ticks until the push was gone
  bool always_grounded = true;
  CharacterState end;
};

// Pushes a landed character by `v` and steps it idle until its push is gone and then 30 more ticks.
Travel push_and_watch(const World& w, const DerivedSettings& s, const Vec3& v, double x = 0) {
  StepScratch scratch;
  CharacterState st = landed(w, s, scratch, x);
  const Vec3 from = to_position(st.position);
  apply_command(push_of(v), st);
  Travel out;
  uint32_t t = 11;
  for (; st.push != FixedVec3{} && out.ticks < 1000; ++t, ++out.ticks) {
    st = step(st, encode_move(0, 0, 0, t), w, s, scratch).state;
    out.always_grounded = out.always_grounded && is_grounded(st.ground);
  }
  const CharacterState stopped = st;
  for (int k = 0; k < 30; ++k, ++t) st = step(st, encode_move(0, 0, 0, t), w, s, scratch).state;
  EXPECT_EQ(st.position, stopped.position) << "it stays where the push left it";
  out.distance = length(to_position(st.position) - from);
  out.end = st;
  return out;
}

TEST(Push, OnFlatGroundGoesAboutVSquaredOverTwiceTheFrictionAndStops) {
  const auto w = floor_world(false);
  const DerivedSettings s = derive(MoveSettings{});
  const Travel t = push_and_watch(*w, s, {6, 0, 0});
  // u^2 / (2 f) = 0.9 m, plus half a tick of u (the first tick moves at full speed): 0.95 m.
  EXPECT_NEAR(t.distance, 6.0 * 6.0 / (2 * s.push_friction), 0.07);
  EXPECT_NEAR(t.ticks, 6.0 / s.push_friction * s.tick_rate, 1.0) << "u / f seconds";
  EXPECT_TRUE(t.always_grounded) << "a horizontal push keeps the character on its floor";
  EXPECT_EQ(t.end.velocity, FixedVec3{});
  // A velocity command (what set_velocity does) of the same speed dies at the next step on the
  // ground: the test above could have failed.
  StepScratch scratch;
  CharacterState st = landed(*w, s, scratch);
  const Vec3 from = to_position(st.position);
  GameCommand c = push_of({6, 0, 0});
  c.kind = GameCommandKind::kVelocity;
  apply_command(c, st);
  for (uint32_t k = 11; k < 70; ++k) st = step(st, encode_move(0, 0, 0, k), *w, s, scratch).state;
  EXPECT_LT(length(to_position(st.position) - from), 0.2);
}

TEST(Push, FrictionSettingsSetHowFar) {
  const auto w = floor_world(false);
  MoveSettings slippery;
  slippery.push_friction = 5;
  const Travel t = push_and_watch(*w, derive(slippery), {0, 0, -6});
  EXPECT_NEAR(t.distance, 36 / 10.0, 0.1);
  MoveSettings none;
  none.push_friction = 0;
  StepScratch scratch;
  CharacterState st = landed(*w, derive(none), scratch);
  apply_command(push_of({0, 0, 3}), st);
  for (uint32_t k = 11; k < 71; ++k) st = step(st, encode_move(0, 0, 0, k), *w, derive(none), scratch).state;
  EXPECT_EQ(st.push.z, int32_t(3 * kVelocityScale)) << "no friction: the push stays";
  EXPECT_NEAR(to_position(st.position).z, 3.0, 0.02) << "a second at 3 m/s";
}

TEST(Push, WalksBesideTheInput) {
  const auto w = floor_world(false);
  const DerivedSettings s = derive(MoveSettings{});
  StepScratch scratch;
  CharacterState pushed = landed(*w, s, scratch), walker = pushed;
  apply_command(push_of({0, 0, 6}), pushed);
  for (uint32_t k = 11; k < 41; ++k) {
    pushed = step(pushed, encode_move(1, 0, 0, k), *w, s, scratch).state;
    walker = step(walker, encode_move(1, 0, 0, k), *w, s, scratch).state;
  }
  EXPECT_EQ(pushed.push, FixedVec3{});
  EXPECT_NEAR(to_position(pushed.position).x, to_position(walker.position).x, 0.01) << "its own walk is unchanged";
  EXPECT_GT(to_position(pushed.position).z, 0.85);
}

TEST(Push, AgainstAWallItSlidesAlongIt) {
  const auto w = floor_world(true);
  const DerivedSettings s = derive(MoveSettings{});
  // 0.5 m from the wall's face, pushed at 45 degrees into it at 8.5 m/s (6 m/s each way).
  const double x0 = 2 - s.radius - 0.5;
  const Travel t = push_and_watch(*w, s, {6, 0, 6}, x0);
  const Vec3 end = to_position(t.end.position);
  EXPECT_LT(end.x, 2 - s.radius) << "the wall stops it";
  EXPECT_GT(end.x, 2 - s.radius - 0.05) << "at the wall";
  // Along the wall it goes on: farther than the 0.5 m it had to the wall, less than the 1.8 m of a
  // 8.5 m/s push with nothing in its way.
  EXPECT_GT(end.z, 0.7);
  EXPECT_LT(end.z, 1.8);
  EXPECT_TRUE(t.always_grounded);
  // Once at the wall, the push points along it: its x is gone while its z still runs.
  StepScratch scratch;
  CharacterState st = landed(*w, s, scratch, x0);
  apply_command(push_of({6, 0, 6}), st);
  // 0.5 m at under 6 m/s: at the wall after 6 ticks; 12 to be sure.
  for (uint32_t k = 11; k < 23; ++k) st = step(st, encode_move(0, 0, 0, k), *w, s, scratch).state;
  EXPECT_EQ(st.push.x, 0);
  EXPECT_GT(st.push.z, 0);
  EXPECT_EQ(st.push.y, 0);
}

TEST(Push, InTheAirItDiesAtTheAirFrictionAndItsUpwardPartLaunches) {
  const auto w = floor_world(false);
  const DerivedSettings s = derive(MoveSettings{});
  StepScratch scratch;
  CharacterState st = landed(*w, s, scratch);
  apply_command(push_of({6, 5, 0}), st);
  EXPECT_EQ(st.ground, GroundKind::kNone) << "an upward push lifts the character off its floor";
  EXPECT_EQ(st.velocity.y, int32_t(5 * kVelocityScale));
  EXPECT_EQ(st.push.y, 0) << "the push is horizontal";
  st = step(st, encode_move(0, 0, 0, 11), *w, s, scratch).state;
  EXPECT_FALSE(is_grounded(st.ground));
  EXPECT_NEAR(to_velocity(st.push).x, 6 - s.push_air_friction / s.tick_rate, 1e-4);
  // Pushes add up, each axis held to what one command may set.
  CharacterState twice = landed(*w, s, scratch);
  for (int k = 0; k < 3; ++k) apply_command(push_of({150, 0, -150}), twice);
  EXPECT_EQ(twice.push.x, int32_t(kMaxCommandSpeed * kVelocityScale));
  EXPECT_EQ(twice.push.z, -int32_t(kMaxCommandSpeed * kVelocityScale));
  EXPECT_TRUE(is_grounded(twice.ground)) << "no upward part: it stays on its floor";
}

TEST(Push, IsHashedOnlyWhileThereIsOne) {
  CharacterState a;
  CharacterState b = a;
  b.push = {65536, 0, 0};
  EXPECT_NE(a.hash(), b.hash());
  EXPECT_NE(a.digest(), b.digest());
  CharacterState c = a;
  c.push = {0, 0, 65536};
  EXPECT_NE(b.hash(), c.hash());
  CharacterState frozen = a;
  frozen.frozen = true;
  CharacterState frozen_pushed = frozen;
  frozen_pushed.push = {1, 0, 0};
  EXPECT_NE(frozen.hash(), frozen_pushed.hash());
  // A range check as a recording's reader applies it.
  EXPECT_EQ(command_problem(push_of({201, 0, 0}), Aabb{}), "a push over the most a command may set");
  EXPECT_TRUE(command_problem(push_of({200, -200, 0}), Aabb{}).empty());
}

}  // namespace
}  // namespace foothold::test
