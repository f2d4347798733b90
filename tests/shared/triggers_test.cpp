// Trigger volumes (shared/triggers.h, issue #66): when a capsule is in a box, exactly; which of a
// world's triggers a character's state is in, by its posture; and the world's checks and hash.

#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "shared/triggers.h"
#include "support/scenario_support.h"

namespace foothold::test {
namespace {

// A 40 m floor at y = 0 with `triggers`.
World::Build floor_with(std::vector<TriggerBox> triggers) {
  MeshBuilder b;
  b.floor_grid(-20, -20, 20, 20, 0, 40);
  TriangleMesh mesh = b.take();
  mesh.triggers = std::move(triggers);
  return World::create(mesh, "floor");
}

TEST(Triggers, ACapsuleIsInWhenCloserThanItsRadiusAndTouchingIsNotIn) {
  // A unit box, a capsule of radius 0.5 whose core segment is 1 m long: values exact in binary.
  const Vec3 lo{0, 0, 0}, hi{1, 1, 1};
  auto in = [&](const Vec3& c) { return capsule_overlaps_box(c, 0.5, 0.5, lo, hi); };
  EXPECT_TRUE(in({0.5, 0.5, 0.5})) << "centre inside";
  EXPECT_TRUE(in({1.4990234375, 0.5, 0.5})) << "beside, a grid step closer than the radius";
  EXPECT_FALSE(in({1.5, 0.5, 0.5})) << "beside, touching";
  EXPECT_FALSE(in({0.5, 0.5, -0.5})) << "touching the -Z side";
  // Along Y the segment reaches half its length further: above the box by up to 1 m.
  EXPECT_TRUE(in({0.5, 1.9990234375, 0.5}));
  EXPECT_FALSE(in({0.5, 2, 0.5}));
  EXPECT_FALSE(in({0.5, -1, 0.5}));
  // Off a corner: each axis within the radius, the distance (0.3 in each of three axes) not.
  EXPECT_FALSE(in({1.3, 1.8, 1.3}));
  EXPECT_TRUE(in({1.25, 1.75, 1.25})) << "0.25 in each axis: 0.433 m away";
  // A flat box (a plane) is crossed like any other.
  EXPECT_TRUE(capsule_overlaps_box({0.5, 0.5, 0.5}, 0.5, 0.5, {0, 0.25, 0}, {1, 0.25, 1}));
}

TEST(Triggers, ACharactersPostureChoosesItsCapsule) {
  // A box from 1.5 m to 2 m above the floor: a standing character (1.8 m tall) reaches into it, a
  // crouched one (1.2 m) does not; a box at the feet holds both.
  const auto built = floor_with({{"head", {-1, 1.5, -1}, {1, 2, 1}}, {"feet", {-1, 0, -1}, {1, 0.1, 1}}});
  ASSERT_TRUE(built.world) << built.error;
  const DerivedSettings s = derive(MoveSettings{});
  CharacterState standing = spawn_state({0, rest_height(), 0});
  CharacterState crouched = standing;
  crouched.crouched = true;
  crouched.position.y -= int32_t(s.crouch_drop * kPositionScale);
  EXPECT_EQ(triggers_containing(*built.world, standing, s, nullptr).to_ulong(), 0b11u);
  EXPECT_EQ(triggers_containing(*built.world, crouched, s, nullptr).to_ulong(), 0b10u);
  CharacterState away = spawn_state({5, rest_height(), 0});
  EXPECT_TRUE(triggers_containing(*built.world, away, s, nullptr).none());
}

TEST(Triggers, TheWorldChecksThemAndHashesThemOnlyWhenThereAreSome) {
  // A world without triggers keeps the hash it had before they existed (recordings compare it):
  // the arena's, as foothold-replay world printed it before this change.
  EXPECT_EQ(arena_world().hash(), 0x1a9a9f63e2a2a4f3u);
  const auto none = floor_with({});
  const auto one = floor_with({{"a", {0, 0, 0}, {1, 1, 1}}});
  const auto renamed = floor_with({{"b", {0, 0, 0}, {1, 1, 1}}});
  const auto moved = floor_with({{"a", {0, 0, 0}, {1, 1, 1.0009765625}}});
  ASSERT_TRUE(none.world && one.world && renamed.world && moved.world);
  EXPECT_NE(none.world->hash(), one.world->hash());
  EXPECT_NE(one.world->hash(), renamed.world->hash());
  EXPECT_NE(one.world->hash(), moved.world->hash());
  EXPECT_EQ(one.world->hash(), floor_with({{"a", {0, 0, 0}, {1, 1, 1}}}).world->hash());

  struct Case {
    std::vector<TriggerBox> triggers;
    std::string want;
  };
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const Case cases[] = {
      {{{"", {0, 0, 0}, {1, 1, 1}}}, "floor: trigger 0: its name is not 1-32 characters of [A-Za-z0-9_.-]"},
      {{{"a b", {0, 0, 0}, {1, 1, 1}}}, "trigger 0: its name is not"},
      {{{"a", {0, 0, 0}, {1, 1, 1}}, {"a", {0, 0, 0}, {1, 1, 1}}}, "floor: trigger 1: the name 'a' is trigger 0's too"},
      {{{"a", {0, nan, 0}, {1, 1, 1}}}, "trigger 0 'a': its box lies outside the fixed-point range"},
      {{{"a", {0, 0, 0}, {1, 1e9, 1}}}, "trigger 0 'a': its box lies outside the fixed-point range"},
      {{{"a", {0, 2, 0}, {1, 1, 1}}}, "trigger 0 'a': its box's lo exceeds its hi"},
  };
  for (const Case& c : cases) {
    const auto built = floor_with(c.triggers);
    EXPECT_FALSE(built.world) << c.want;
    EXPECT_NE(built.error.find(c.want), std::string::npos) << built.error;
  }
  std::vector<TriggerBox> many(kMaxTriggers + 1);
  for (std::size_t i = 0; i < many.size(); ++i) {
    // Appended, not "t" + std::to_string(i): GCC 12 warns falsely (-Wrestrict) of that inlined.
    std::string name = "t";
    name += std::to_string(i);
    many[i] = {name, {0, 0, 0}, {1, 1, 1}};
  }
  EXPECT_NE(floor_with(many).error.find("257 triggers; at most 256"), std::string::npos);
  many.pop_back();
  EXPECT_TRUE(floor_with(many).world) << "256 are allowed";
}

// A lift: a 2 m slab rising from y = 0 to y = 4 over 2 s and back (a 4 s loop), with the trigger
// "on_lift" riding it (1 m above its top, in its axes) and the still trigger "ground" at its foot.
World::Build lift_world() {
  MeshBuilder b;
  b.floor_grid(-20, -20, 20, 20, 0, 40);
  TriangleMesh mesh = b.take();
  MeshBuilder slab;
  slab.box({-1, -0.2, -1}, {1, 0, 1});
  MoverMesh lift;
  lift.name = "lift";
  Channel rise;
  rise.times = {0, 2, 4};
  rise.values = {0, 0, 0, 0, 4, 0, 0, 0, 0};
  rise.period = 4;
  lift.chain = {Link{{}, {rise}}};
  lift.mesh = slab.take();
  mesh.movers.push_back(std::move(lift));
  mesh.triggers = {{"ground", {-1, 0, -1}, {1, 1, 1}}, {"on_lift", {-1, 0, -1}, {1, 1, 1}, 1}};
  return World::create(mesh, "lift");
}

TEST(Triggers, ATriggerOnAMoverRidesIt) {
  const auto built = lift_world();
  ASSERT_TRUE(built.world) << built.error;
  const World& w = *built.world;
  const DerivedSettings s = derive(MoveSettings{});
  MoverFrame frame;
  frame.build(w, 0, 60);
  const CharacterState foot = spawn_state({0, rest_height(), 0});
  const CharacterState high = spawn_state({0, 2 + rest_height(), 0});
  EXPECT_EQ(triggers_containing(w, foot, s, &frame).to_ulong(), 0b11u) << "at rest the lift's volume is at its foot";
  EXPECT_EQ(triggers_containing(w, high, s, &frame).to_ulong(), 0b00u);
  frame.build(w, 60, 60);  // 1 s: the lift 2 m up
  EXPECT_EQ(triggers_containing(w, foot, s, &frame).to_ulong(), 0b01u);
  EXPECT_EQ(triggers_containing(w, high, s, &frame).to_ulong(), 0b10u) << "its volume went up with it";
  const std::optional<Aabb> box = trigger_box(w.triggers()[1], &frame);
  ASSERT_TRUE(box);
  EXPECT_EQ(box->lo.y, 2);
  EXPECT_EQ(box->hi.y, 3);
  // Without the movers' frame, a riding trigger holds nobody; a still one is where it is.
  EXPECT_EQ(triggers_containing(w, foot, s, nullptr).to_ulong(), 0b01u);
  EXPECT_FALSE(trigger_box(w.triggers()[1], nullptr));
  // A trigger riding a mover the world does not have is refused.
  MeshBuilder b;
  b.floor_grid(-20, -20, 20, 20, 0, 40);
  TriangleMesh mesh = b.take();
  mesh.triggers = {{"a", {0, 0, 0}, {1, 1, 1}, 1}};
  EXPECT_NE(World::create(mesh, "floor").error.find("floor: trigger 0 'a': it rides mover 0 of 0"), std::string::npos);
}

}  // namespace
}  // namespace foothold::test
