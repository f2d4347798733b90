// The touch list step() reports (docs/movement.md §12): the floor, what blocked the character, and
// the list's own rules (unique, sorted, bounded).

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "shared/step.h"
#include "support/scenario_support.h"

namespace foothold::test {
namespace {

TEST(Touches, StandingOnTheFloorReportsItAsTheFloor) {
  const DerivedSettings s = derive(MoveSettings{});
  StepScratch scratch;
  CharacterState st = spawn_state(arena::kOpenFloor + Vec3{0, rest_height(), 0});
  StepResult r;
  for (uint32_t t = 1; t <= 5; ++t) {
    r = step(st, encode_move(0, 0, 0, t), arena_world(), s, scratch);
    st = r.state;
  }
  ASSERT_TRUE(is_grounded(st.ground));
  int floors = 0;
  for (int i = 0; i < r.touches.size(); ++i) {
    EXPECT_FALSE(r.touches[i].blocked) << "standing still blocks nothing";
    if (r.touches[i].floor) {
      ++floors;
      EXPECT_EQ(r.touches[i].normal, (Vec3{0, 1, 0}));
      EXPECT_EQ(r.touches[i].kind, TouchKind::kSurface);
    }
  }
  EXPECT_EQ(floors, 1);
  EXPECT_EQ(r.touches.dropped(), 0);
}

TEST(Touches, RunningIntoAWallReportsItBlockedAndTaggedSurfacesCarryTheirTag) {
  const DerivedSettings s = derive(MoveSettings{});
  StepScratch scratch;
  // Walk into the upright wall (its face at x = -20, facing +X... the character comes from +X).
  CharacterState st = spawn_state({arena::kUprightWallX + 1.5, rest_height(), 0});
  bool blocked_by_wall = false;
  for (uint32_t t = 1; t <= 40 && !blocked_by_wall; ++t) {
    const StepResult r = step(st, encode_move(-1, 0, 0, t), arena_world(), s, scratch);
    st = r.state;
    for (int i = 0; i < r.touches.size(); ++i)
      if (r.touches[i].blocked && std::abs(r.touches[i].normal.x - 1) < 1e-6) blocked_by_wall = true;
  }
  EXPECT_TRUE(blocked_by_wall);
  // On the never_ground pad, the floor contact carries its tag, and nothing is the floor.
  st = spawn_state({(arena::kNeverPadX0 + arena::kNeverPadX1) / 2, arena::kNeverPadHeight + rest_height(),
                    (arena::kSlopeZ0 + arena::kSlopeZ1) / 2});
  StepResult r;
  for (uint32_t t = 1; t <= 3; ++t) {
    r = step(st, encode_move(0, 0, 0, t), arena_world(), s, scratch);
    st = r.state;
  }
  bool saw_tag = false;
  for (int i = 0; i < r.touches.size(); ++i) {
    saw_tag |= r.touches[i].tag == SurfaceTag::kNeverGround;
    EXPECT_FALSE(r.touches[i].floor);
  }
  EXPECT_TRUE(saw_tag);
}

TEST(Touches, TheListIsUniqueSortedAndBounded) {
  TouchList list;
  for (uint32_t i = 0; i < 40; ++i) {
    Touch t;
    t.triangle = (i * 7) % 40;  // every index once, out of order
    t.blocked = i % 2 == 0;
    list.add(t);
  }
  Touch again;
  again.triangle = 0;
  again.floor = true;
  list.add(again);  // merges its flags into the existing entry
  ASSERT_EQ(list.size(), TouchList::kCapacity);
  EXPECT_EQ(list.dropped(), 40 - TouchList::kCapacity);
  for (int i = 0; i < list.size(); ++i) EXPECT_EQ(list[i].triangle, uint32_t(i)) << "the lowest indices are kept";
  EXPECT_TRUE(list[0].floor);
  EXPECT_TRUE(list[0].blocked);
}

// Every field of a step's diagnostics alike (a field missed here would let a leak through).
void expect_same_diagnostics(const StepDiagnostics& a, const StepDiagnostics& b, const std::string& where) {
  EXPECT_EQ(a.ground_at_start, b.ground_at_start) << where;
  EXPECT_EQ(a.jumped, b.jumped) << where;
  EXPECT_EQ(a.rising, b.rising) << where;
  EXPECT_EQ(a.slide_iterations, b.slide_iterations) << where;
  EXPECT_EQ(a.stepped_up, b.stepped_up) << where;
  EXPECT_EQ(a.snapped_down, b.snapped_down) << where;
  EXPECT_EQ(a.locked_to_floor, b.locked_to_floor) << where;
  EXPECT_EQ(a.pushout_iterations, b.pushout_iterations) << where;
  EXPECT_EQ(a.pushout_unresolved, b.pushout_unresolved) << where;
  EXPECT_EQ(a.pushed_by_mover, b.pushed_by_mover) << where;
  EXPECT_EQ(a.crushed, b.crushed) << where;
  EXPECT_EQ(a.characters_near, b.characters_near) << where;
  EXPECT_EQ(a.pushed_apart, b.pushed_apart) << where;
  EXPECT_EQ(a.position, b.position) << where;
}

// TickRunner steps every character into one StepResult per thread; whatever the last character left
// in it (touches, a jump, a crouch, a climb) must not reach the next one.
TEST(Touches, AStepIntoAReusedResultGivesWhatANewResultGives) {
  const DerivedSettings s = derive(MoveSettings{});
  StepScratch scratch;
  struct Walker {
    CharacterState state;
    double x, z;
    uint8_t buttons;
  };
  std::vector<Walker> walkers = {
      {spawn_state({arena::kUprightWallX + 1.5, rest_height(), 0}), -1, 0, 0},            // into the wall
      {spawn_state(arena::kOpenFloor + Vec3{0, rest_height(), 0}), 0, 0, kButtonJump},   // jumping
      {spawn_state(arena::kOpenFloor + Vec3{4, rest_height(), 0}), 0, 0, 0},             // standing
      {spawn_state({arena::kStairX0 - 1, rest_height(), (arena::kStairZ0 + arena::kStairZ1) / 2}), 1, 0, 0},  // up the stairs
      {spawn_state(arena::kOpenFloor + Vec3{-4, rest_height(), 0}), 0, 1, kButtonCrouch},  // crouching
  };
  StepResult reused;
  int touches = 0, jumps = 0, climbs = 0, crouched = 0;
  for (uint32_t t = 1; t <= 60; ++t) {
    for (std::size_t i = 0; i < walkers.size(); ++i) {
      Walker& w = walkers[i];
      const InputCmd in = encode_move(w.x, w.z, w.buttons, t);
      const StepResult fresh = step(w.state, in, arena_world(), s, scratch);
      step(w.state, in, arena_world(), s, scratch, {}, reused);
      const std::string where = "walker " + std::to_string(i) + ", tick " + std::to_string(t);
      ASSERT_EQ(reused.state, fresh.state) << where;
      expect_same_diagnostics(reused.diagnostics, fresh.diagnostics, where);
      ASSERT_EQ(reused.touches.size(), fresh.touches.size()) << where;
      EXPECT_EQ(reused.touches.dropped(), fresh.touches.dropped()) << where;
      for (int k = 0; k < fresh.touches.size(); ++k) {
        EXPECT_EQ(reused.touches[k].triangle, fresh.touches[k].triangle) << where;
        EXPECT_EQ(reused.touches[k].kind, fresh.touches[k].kind) << where;
        EXPECT_EQ(reused.touches[k].normal, fresh.touches[k].normal) << where;
        EXPECT_EQ(reused.touches[k].floor, fresh.touches[k].floor) << where;
        EXPECT_EQ(reused.touches[k].blocked, fresh.touches[k].blocked) << where;
        EXPECT_EQ(reused.touches[k].tag, fresh.touches[k].tag) << where;
      }
      touches += fresh.touches.size();
      jumps += fresh.diagnostics.jumped;
      climbs += fresh.diagnostics.stepped_up;
      crouched += fresh.state.crouched;
      w.state = fresh.state;
    }
  }
  // The cases that leave something behind did happen.
  EXPECT_GT(touches, 0);
  EXPECT_GT(jumps, 0);
  EXPECT_GT(climbs, 0);
  EXPECT_GT(crouched, 0);
}

}  // namespace
}  // namespace foothold::test
