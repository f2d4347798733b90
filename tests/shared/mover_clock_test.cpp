// Movers' clocks (shared/mover_clock.h, movement.md §15.2): a driven mover starts still; a game's
// start, stop, reverse and go-to change its clock from the boundary on, continuously; a mover on
// the world's clock poses exactly as before clocks existed; a client's received segments replace
// its own from their tick on; what no tick needs any more is forgotten.

#include <gtest/gtest.h>

#include "shared/mover_clock.h"
#include "shared/mover_frame.h"
#include "shared/step.h"
#include "support/scenario_support.h"

namespace foothold::test {
namespace {

constexpr int kRate = 60;
constexpr std::size_t kLift = 0, kDoor = 1;

GameCommand mover_command(std::size_t m, MoverAction action, int32_t value = 0, int32_t key = 0) {
  GameCommand c;
  c.kind = GameCommandKind::kMover;
  c.character = uint32_t(m);
  c.slot = uint8_t(action);
  c.value = value;
  c.vector.x = key;
  return c;
}

double lift_height(const MoverClocks& clocks, uint32_t tick) {
  return clocks.pose(lift_and_door_world(), kLift, tick, kRate).translation.y;
}

TEST(MoverClock, ADrivenMoverStandsStillUntilTheGameMovesItAndTheOthersRunOnTheWorldsClock) {
  const World& w = lift_and_door_world();
  MoverClocks clocks;
  clocks.reset(w);
  ASSERT_EQ(clocks.size(), 2u);
  for (uint32_t t : {0u, 1u, 77u, 100000u}) {
    EXPECT_EQ(clocks.phase(kLift, t), 0) << t;
    EXPECT_EQ(lift_height(clocks, t), 0.0) << t;
  }
  // A frame built with no clocks poses the driven movers still too.
  MoverFrame without, with;
  without.build(w, 90, kRate);
  with.build(w, 90, kRate, &clocks);
  EXPECT_EQ(without.pose(kLift), with.pose(kLift));
  EXPECT_EQ(with.pose(kDoor).translation.z, 0.0);
  // On the arena (no driven mover) every pose is chain_pose()'s, bit for bit.
  const World& arena = arena_world();
  MoverClocks arena_clocks;
  arena_clocks.reset(arena);
  ASSERT_FALSE(arena.movers().empty());
  for (std::size_t m = 0; m < arena.movers().size(); ++m)
    for (uint32_t t : {0u, 1u, 61u, 1234u, 99999u}) {
      EXPECT_FALSE(arena_clocks.own(m));
      EXPECT_EQ(arena_clocks.pose(arena, m, t, kRate), chain_pose(arena.movers()[m].chain, t, kRate));
    }
}

TEST(MoverClock, GoToRunsToTheKeyAndStopsThereAndReverseGoesBackToWhereTheRunStarted) {
  const World& w = lift_and_door_world();
  ASSERT_EQ(mover_keys(w.movers()[kLift]), (std::vector<double>{0, 2, 4}));
  MoverClocks clocks;
  clocks.reset(w);
  // At the boundary before tick 11: up to key 1 (2 s, 3 m) at the animation's speed.
  ASSERT_TRUE(clocks.apply(w, mover_command(kLift, MoverAction::kGoTo, kRateOne, 1), 11, kRate));
  EXPECT_EQ(clocks.changed(kLift), 11u);
  EXPECT_EQ(lift_height(clocks, 10), 0.0) << "the tick before the boundary is as it was";
  EXPECT_GT(lift_height(clocks, 11), 0.0);
  EXPECT_NEAR(lift_height(clocks, 10 + 60), 1.5, 1e-9) << "half way after a second";
  EXPECT_NEAR(lift_height(clocks, 10 + 120), 3.0, 1e-9);
  EXPECT_EQ(lift_height(clocks, 10 + 121), lift_height(clocks, 10 + 120)) << "held at the key";
  EXPECT_EQ(lift_height(clocks, 5000), lift_height(clocks, 10 + 120));
  // Reversed a second later than the first command's boundary plus a half: back to the start, and held.
  ASSERT_TRUE(clocks.apply(w, mover_command(kLift, MoverAction::kReverse), 101, kRate));
  const double at_reverse = lift_height(clocks, 100);
  EXPECT_NEAR(at_reverse, 2.25, 1e-9);
  EXPECT_LT(lift_height(clocks, 101), at_reverse);
  EXPECT_NEAR(lift_height(clocks, 100 + 90), 0.0, 1e-9);
  EXPECT_EQ(lift_height(clocks, 100 + 200), lift_height(clocks, 100 + 90));
  // The history still poses the past as it was.
  EXPECT_NEAR(lift_height(clocks, 70), 1.5, 1e-9);
  EXPECT_EQ(lift_height(clocks, 5), 0.0);
}

TEST(MoverClock, StartRunsWithoutEndAtAnyRateEitherWayAndStopHolds) {
  const World& w = lift_and_door_world();
  MoverClocks clocks;
  clocks.reset(w);
  ASSERT_TRUE(clocks.apply(w, mover_command(kLift, MoverAction::kStart, 2 * kRateOne), 1, kRate));
  EXPECT_NEAR(lift_height(clocks, 60), 3.0, 1e-9) << "twice the speed: the top after a second";
  EXPECT_NEAR(lift_height(clocks, 120), 0.0, 1e-9) << "and down again: it loops";
  ASSERT_TRUE(clocks.apply(w, mover_command(kLift, MoverAction::kStop), 151, kRate));
  const double held = lift_height(clocks, 150);
  EXPECT_EQ(lift_height(clocks, 400), held);
  ASSERT_TRUE(clocks.apply(w, mover_command(kLift, MoverAction::kStart, -kRateOne / 2), 401, kRate));
  EXPECT_EQ(clocks.phase(kLift, 400 + 60), clocks.phase(kLift, 400) - 30 * int64_t(kRateOne));
  // A mover on the world's clock given a command leaves it there, continuously.
  const World& arena = arena_world();
  MoverClocks arena_clocks;
  arena_clocks.reset(arena);
  const Pose before = arena_clocks.pose(arena, 0, 299, kRate);
  ASSERT_TRUE(arena_clocks.apply(arena, mover_command(0, MoverAction::kStop), 300, kRate));
  EXPECT_EQ(arena_clocks.pose(arena, 0, 299, kRate), before);
  EXPECT_EQ(arena_clocks.pose(arena, 0, 900, kRate), before);
}

TEST(MoverClock, GoToTakesTheNearestTimeTheLoopShowsTheKey) {
  const World& w = lift_and_door_world();
  MoverClocks clocks;
  clocks.reset(w);
  // Three and a bit loops on: going to key 0 does not wind back three loops.
  ASSERT_TRUE(clocks.apply(w, mover_command(kDoor, MoverAction::kStart, kRateOne), 1, kRate));
  const uint32_t later = 60 * 6 + 20;  // 6 s + a third: a third into the fourth loop (2 s each)
  ASSERT_TRUE(clocks.apply(w, mover_command(kDoor, MoverAction::kGoTo, kRateOne, 0), later + 1, kRate));
  const int64_t loop = 2 * kRate * int64_t(kRateOne);
  EXPECT_EQ(clocks.newest(kDoor).target, 3 * loop);
  EXPECT_LT(clocks.newest(kDoor).rate, 0);
  EXPECT_EQ(clocks.phase(kDoor, later + 100), 3 * loop);
}

TEST(MoverClock, CommandsTheWorldCannotTakeAreRefusedAndChangeNothing) {
  const World& w = lift_and_door_world();
  MoverClocks clocks;
  clocks.reset(w);
  const GameCommand bad[] = {
      mover_command(2, MoverAction::kStop),                          // no such mover
      mover_command(kLift, MoverAction(4)),                          // no such action
      mover_command(kLift, MoverAction::kStart, kMaxMoverRate + 1),  // too fast
      mover_command(kLift, MoverAction::kGoTo, 0, 1),                // no speed
      mover_command(kLift, MoverAction::kGoTo, kRateOne, 3),         // no key 3
      mover_command(kLift, MoverAction::kGoTo, kRateOne, -1),
  };
  for (const GameCommand& c : bad) {
    EXPECT_FALSE(mover_command_problem(c, w).empty());
    EXPECT_FALSE(clocks.apply(w, c, 10, kRate));
  }
  EXPECT_EQ(clocks.changed(kLift), 0u);
  EXPECT_EQ(clocks.phase(kLift, 500), 0);
}

TEST(MoverClock, AReceivedSegmentReplacesTheClockFromItsTickOnAndOldOnesAreForgotten) {
  const World& w = lift_and_door_world();
  MoverClocks server, client;
  server.reset(w);
  client.reset(w);
  ASSERT_TRUE(server.apply(w, mover_command(kLift, MoverAction::kGoTo, kRateOne, 1), 50, kRate));
  ASSERT_TRUE(server.apply(w, mover_command(kLift, MoverAction::kReverse), 80, kRate));
  // The client hears only the newest: from its tick on it agrees.
  ASSERT_TRUE(client.receive(kLift, server.newest(kLift)));
  for (uint32_t t = 79; t < 300; ++t) EXPECT_EQ(client.phase(kLift, t), server.phase(kLift, t)) << t;
  // A segment no clock may hold is refused.
  MoverSegment wild = server.newest(kLift);
  wild.phase = kMaxMoverPhase + 1;
  EXPECT_FALSE(client.receive(kLift, wild));
  EXPECT_FALSE(client.receive(7, server.newest(kLift)));
  // Forgetting before tick 100 keeps the segment in force then (the reverse's, from 79).
  server.forget_before(100);
  EXPECT_EQ(server.phase(kLift, 100), client.phase(kLift, 100));
  EXPECT_EQ(server.newest(kLift).from_tick, 79u);
}

}  // namespace
}  // namespace foothold::test
