// The touch list step() reports (docs/movement.md §12): the floor, what blocked the character, and
// the list's own rules (unique, sorted, bounded).

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace foothold::test
