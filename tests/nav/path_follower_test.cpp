// The path follower (follow/path_follower.h) on small worlds, through the real tick: corners, stairs,
// jumps and drops, a blocked way re-planned, a push off the path, and each way it gives up.

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

#include <gtest/gtest.h>

#include "follow_support.h"
#include "shared/formats/world_file.h"

namespace foothold::nav::test {
namespace {

double horizontal_distance(const Vec3& a, const Vec3& b) { return std::hypot(a.x - b.x, a.z - b.z); }

// Seconds a goal took over its first path's length at walk speed (5 m/s).
double time_ratio(const FollowRun& run, std::size_t k) {
  const follow::PathFollower& f = run.follower(k);
  const double seconds = double(run.events(k).ended - f.goal_tick()) / 60;
  return seconds / (f.first_length() / 5);
}

// A 20 x 20 m floor with a wall from the north edge to z = -6: the way round is south of it.
TriangleMesh wall_world() {
  MeshBuilder b;
  b.floor_grid(-10, -10, 10, 10, 0, 2);
  b.box({-0.5, 0, -6}, {0.5, 3, 10});
  return b.take();
}

// A corridor along x from -half_length to half_length, 2 half_width wide, walled each side.
TriangleMesh corridor_world(double half_length, double half_width) {
  MeshBuilder b;
  b.floor_grid(-half_length, -3, half_length, 3, 0, 2);
  b.box({-half_length, 0, -3}, {half_length, 3, -half_width});
  b.box({-half_length, 0, half_width}, {half_length, 3, 3});
  return b.take();
}

// Stairs of 0.3 m risers up to a platform 1.5 m high; a block 0.6 m high (a jump up); a block 1.5 m
// high (out of a jump's reach, dropped from); a block 3 m high (nothing reaches its top).
TriangleMesh levels_world() {
  MeshBuilder b;
  b.floor_grid(-10, -10, 10, 10, 0, 2);
  for (int k = 0; k < 5; ++k) b.box({-4 + 0.5 * k, 0, -8}, {2, 0.3 * (k + 1), -5});
  b.box({2, 0, -8}, {6, 1.5, -5});
  b.box({2, 0, 3}, {6, 0.6, 7});
  b.box({-6, 0, 3}, {-2, 1.5, 7});
  b.box({-9, 0, -3}, {-6, 3, 0});
  return b.take();
}

TEST(PathFollower, CutsTheCornersRoundAWallAsTheCapsuleCan) {
  const auto world = make_world(wall_world());
  FollowRun run(*world);
  const std::size_t k = run.add({-5, 0, 0});
  run.go(k, {5, 0, 0});
  run.run(600);
  ASSERT_TRUE(run.events(k).arrived) << follow::to_string(run.events(k).gave_up);
  EXPECT_LT(horizontal_distance(run.feet(k), {5, 0, 0}), run.follow_settings().arrive_reach + 0.01);
  // Round the wall's end (z = -6) and no slower than the path at walk speed, give or take the turns.
  double south = 0;
  for (const Vec3& p : run.events(k).positions) {
    south = std::min(south, p.z);
    EXPECT_FALSE(std::fabs(p.x) < 0.5 + 0.4 - 0.02 && p.z > -6) << "inside the wall's capsule margin at " << p.x << ", " << p.z;
  }
  EXPECT_LT(south, -6.2);
  EXPECT_LE(time_ratio(run, k), 1.1);
  EXPECT_TRUE(run.events(k).replans.size() == 1) << "one path, walked to its end";
  // The path's corners are a radius from the wall's corners; it turns for the next a radius before
  // each, its capsule sliding round the wall's corner: a shorter way than the corners', and each
  // corner passed within that radius.
  const follow::Path path = to_follow_path(run.query().find_path({-5, 0.05, 0}, {5, 0, 0}));
  ASSERT_GE(path.corners.size(), 3u);
  double walked = 0;
  const auto& at = run.events(k).positions;
  for (std::size_t t = 1; t < at.size(); ++t) walked += horizontal_distance(at[t], at[t - 1]);
  EXPECT_LT(walked, path.length());
  for (std::size_t c = 1; c + 1 < path.corners.size(); ++c) {
    double nearest = 1e9;
    for (const Vec3& p : at) nearest = std::min(nearest, horizontal_distance(p, path.corners[c].point));
    EXPECT_LT(nearest, run.follow_settings().corner_reach + 0.1) << "corner " << c;
  }
}

TEST(PathFollower, WalksUpStairsAndDownThem) {
  const auto world = make_world(levels_world());
  FollowRun run(*world);
  const std::size_t k = run.add({-8, 0, -6.5});
  run.go(k, {4, 1.5, -6.5});
  run.run(600);
  ASSERT_TRUE(run.events(k).arrived) << follow::to_string(run.events(k).gave_up);
  EXPECT_NEAR(run.feet(k).y, 1.5, 0.1);
  EXPECT_LE(time_ratio(run, k), 1.2);
  EXPECT_EQ(run.follower(k).counts().jumps, 0u) << "stairs are walked";
  run.go(k, {-8, 0, -6.5});
  run.run(600);
  ASSERT_TRUE(run.events(k).arrived) << follow::to_string(run.events(k).gave_up);
  EXPECT_NEAR(run.feet(k).y, 0, 0.1);
}

TEST(PathFollower, JumpsUpALedgeWithinItsReach) {
  const auto world = make_world(levels_world());
  FollowRun run(*world);
  const std::size_t k = run.add({8, 0, 5});
  run.go(k, {4, 0.6, 5});
  run.run(600);
  ASSERT_TRUE(run.events(k).arrived) << follow::to_string(run.events(k).gave_up);
  EXPECT_NEAR(run.feet(k).y, 0.6, 0.1);
  EXPECT_EQ(run.follower(k).counts().jumps, 1u);
  EXPECT_LE(time_ratio(run, k), 1.3);
}

TEST(PathFollower, DropsOffALedgeOutOfItsReach) {
  const auto world = make_world(levels_world());
  FollowRun run(*world);
  const std::size_t k = run.add({-4, 1.5, 5});
  run.go(k, {-8, 0, 5});
  run.run(600);
  ASSERT_TRUE(run.events(k).arrived) << follow::to_string(run.events(k).gave_up);
  EXPECT_NEAR(run.feet(k).y, 0, 0.1);
  EXPECT_EQ(run.follower(k).counts().jumps, 0u) << "a drop is walked off";
}

// A character stands in the door for three seconds: the follower is stuck, backs off, asks for a new
// path, and walks through once the door is clear.
TEST(PathFollower, ABlockedWayIsReplannedAndWalkedOnceClear) {
  const auto world = make_world(door_world());
  FollowRun run(*world);
  const std::size_t k = run.add({-6, 0, 0});
  const std::size_t blocker = run.add({0, 0, 0});
  run.go(k, {6, 0, 0});
  // It waits by the door for the one in it (give_way_ticks), then goes in and is stuck against it;
  // backed off, on a new path, it waits again.
  const uint32_t leaves = uint32_t(run.follow_settings().give_way_ticks) + 5 * 60;
  run.run(1200, [&](uint32_t tick) {
    if (tick == leaves) run.state(blocker) = spawn_state({0, 0.93, 8});  // it leaves the door
  });
  ASSERT_TRUE(run.events(k).arrived) << follow::to_string(run.events(k).gave_up);
  const auto& replans = run.events(k).replans;
  EXPECT_GE(std::count(replans.begin(), replans.end(), follow::Replan::kStuck), 1);
  EXPECT_GE(run.follower(k).counts().stuck, 1u);
  // It waits for the one in the door at first, and again on each new path that meets it there: a
  // wait at most for each try at the door.
  EXPECT_GE(run.follower(k).counts().gave_way, 1u);
  EXPECT_LE(run.follower(k).counts().gave_way, run.follower(k).counts().stuck + 1);
  EXPECT_GT(run.events(k).ended, leaves);
}

TEST(PathFollower, GivesUpWhenTheWayStaysBlocked) {
  const auto world = make_world(door_world());
  FollowRun run(*world);
  const std::size_t k = run.add({-6, 0, 0});
  run.add({0, 0, 0});  // in the door, for good
  run.go(k, {6, 0, 0});
  run.run(3600);
  EXPECT_FALSE(run.events(k).arrived);
  EXPECT_EQ(run.events(k).gave_up, follow::GiveUp::kStuck);
  EXPECT_EQ(run.follower(k).counts().stuck, uint32_t(run.follow_settings().stuck_replans + 1));
  const follow::FollowSettings& f = run.follow_settings();
  const double deadline = (f.deadline_factor * 12 / f.walk_speed + f.deadline_slack) * f.tick_rate;
  EXPECT_LT(run.events(k).ended, uint32_t(deadline)) << "before its deadline (12 m at walk speed, and its slack)";
}

// The deadline tests: a deadline barely longer than the walk (deadline_factor 1, half a second's
// slack), so that time spent waiting for others shows past it.
void tighten_deadline(FollowRun& run) {
  run.tune().deadline_factor = 1;
  run.tune().deadline_slack = 0.5;
}

// Character k arrived, at least `late` ticks after the deadline a walk of `metres` had: the time it
// waited moved the deadline on.
void expect_arrived_past_deadline(FollowRun& run, std::size_t k, double metres, uint32_t late = 1) {
  ASSERT_TRUE(run.events(k).arrived) << follow::to_string(run.events(k).gave_up);
  const follow::FollowSettings& f = run.tune();
  const uint32_t deadline = uint32_t((metres / f.walk_speed + f.deadline_slack) * f.tick_rate);
  EXPECT_GE(run.events(k).ended, deadline + late) << "it arrives after the deadline it would have had";
}

// Its time at a door, giving way to one in it, is the crowd's, not the path's: the deadline moves
// on by it. With a deadline barely longer than the walk (12 m: 174 ticks), it arrives all the same.
TEST(PathFollower, WaitingAtADoorMovesTheDeadlineOn) {
  const auto world = make_world(door_world());
  FollowRun run(*world);
  tighten_deadline(run);
  const std::size_t k = run.add({-6, 0, 0}), other = run.add({0, 0, 0});
  run.go(k, {6, 0, 0});
  // The other stands in the door for a second and a half (less than give_way_ticks), then steps
  // aside into the far room, out of the way.
  run.run(600, [&](uint32_t tick) {
    if (tick == 90) run.state(other) = spawn_state({3, 0.93, 6});
  });
  expect_arrived_past_deadline(run, k, 12);
  EXPECT_EQ(run.follower(k).counts().gave_way, 1u);
  EXPECT_EQ(run.follower(k).counts().stuck, 0u);
}

// One standing on its goal holds it up in the open, where there is no narrow place to give way at:
// that time is the crowd's too, and the deadline (10 m: 150 ticks) moves on by it. (In a crowd at a
// corridor's mouth, one timed out 0.6 m from its goal, another standing on it.)
TEST(PathFollower, OneStandingOnTheGoalMovesTheDeadlineOn) {
  const auto world = make_world(corridor_world(10, 2.5));
  FollowRun run(*world);
  tighten_deadline(run);
  const std::size_t k = run.add({-6, 0, 0}), other = run.add({4, 0, 0});
  run.go(k, {4, 0, 0});
  run.run(600, [&](uint32_t tick) {
    if (tick == 170) run.state(other) = spawn_state({4, 0.93, 2});  // steps aside
  });
  expect_arrived_past_deadline(run, k, 10);
  EXPECT_EQ(run.follower(k).counts().gave_way, 0u) << "no narrow place: it was held up, not giving way";
}

// A crowd across its way in the open (five standing shoulder to shoulder across a corridor 5 m wide)
// holds it up: pressed against them, and backing off to try another way, it waits for the crowd,
// and the deadline moves on by that time. Stuck against them, it does not give up as it would stuck
// against a wall: the crowd will move.
TEST(PathFollower, ACrowdAcrossItsWayMovesTheDeadlineOn) {
  const auto world = make_world(corridor_world(10, 2.5));
  FollowRun run(*world);
  tighten_deadline(run);
  run.tune().stuck_replans = 0;  // stuck against a wall, it would give up at once
  const std::size_t k = run.add({-6, 0, 0});
  std::vector<std::size_t> crowd;
  for (int i = -2; i <= 2; ++i) crowd.push_back(run.add({1, 0, double(i)}));
  run.go(k, {4, 0, 0});
  run.run(600, [&](uint32_t tick) {
    if (tick != 170) return;
    for (std::size_t i = 0; i < crowd.size(); ++i) run.state(crowd[i]) = spawn_state({8, 0.93, -2 + double(i)});  // gone
  });
  expect_arrived_past_deadline(run, k, 10, 50);
  EXPECT_GE(run.follower(k).counts().stuck, 1u) << "it backed off from them";
}

// In a narrow door there is no room to steer round anyone: it walks straight through, and turns
// round the one standing beyond only once out of the door (a turn inside pressed it into a jamb).
TEST(PathFollower, SteersRoundNoOneInANarrowDoor) {
  const auto world = make_world(door_world());
  FollowRun run(*world);
  const std::size_t k = run.add({-4, 0, 0});
  run.add({1.8, 0, 0.3});  // standing a little to the side of its way, past the door
  run.go(k, {5, 0, 0});
  run.run(600);
  ASSERT_TRUE(run.events(k).arrived) << follow::to_string(run.events(k).gave_up);
  const auto& e = run.events(k);
  int in_door = 0, steered_after = 0;
  for (std::size_t i = 1; i < e.inputs.size(); ++i) {
    const Vec3& at = e.positions[i - 1];  // where it was when it chose inputs[i]
    // Straight at its goal (the path's one leg: a stick's rounding off it), or turned off it.
    const double dx = 5 - at.x, dz = -at.z, len = std::sqrt(dx * dx + dz * dz);
    const bool straight = std::fabs(e.inputs[i].move_z - 127 * dz / len) <= 1.5;
    if (at.x >= -0.2 && at.x <= 0.2) {
      ++in_door;
      EXPECT_TRUE(straight) << "at (" << at.x << ", " << at.z << "): input z " << int(e.inputs[i].move_z);
    } else if (at.x > 1 && at.x < 1.8 && !straight) {
      ++steered_after;
    }
  }
  EXPECT_GT(in_door, 0);
  EXPECT_GT(steered_after, 0) << "out of the door it steers round the one standing there";
}

// Pushed through the door into the other room while it walks along the wall: off its path, it asks
// for a new one from where it is.
TEST(PathFollower, PushedOffItsPathItReplans) {
  const auto world = make_world(door_world());
  FollowRun run(*world);
  const std::size_t k = run.add({-6, 0, 6});
  run.go(k, {-6, 0, -6});
  run.run(1200, [&](uint32_t tick) {
    if (tick == 60) run.state(k) = spawn_state({4, 0.93, 2});  // a game's teleport: across the wall
  });
  ASSERT_TRUE(run.events(k).arrived) << follow::to_string(run.events(k).gave_up);
  const auto& replans = run.events(k).replans;
  EXPECT_EQ(std::count(replans.begin(), replans.end(), follow::Replan::kOffPath), 1);
}

TEST(PathFollower, GivesUpSayingSoWhenThereIsNoPath) {
  const auto world = make_world(levels_world());
  FollowRun run(*world);
  const std::size_t k = run.add({8, 0, 8});
  run.go(k, {8, 30, 8});  // far above the mesh
  run.run(600);
  EXPECT_EQ(run.events(k).gave_up, follow::GiveUp::kNoPath);
  EXPECT_EQ(run.events(k).replans.size(), std::size_t(run.follow_settings().no_path_retries + 1));
}

TEST(PathFollower, GivesUpSayingSoWhenTheGoalCannotBeReached) {
  const auto world = make_world(levels_world());
  FollowRun run(*world);
  const std::size_t k = run.add({8, 0, -2});
  run.go(k, {-7.5, 3, -1.5});  // on the 3 m block
  run.run(1200);
  EXPECT_EQ(run.events(k).gave_up, follow::GiveUp::kUnreachable);
  EXPECT_LT(horizontal_distance(run.feet(k), {-7.5, 0, -1.5}), 2.5) << "it went as near as it could first";
}

// Two walking head on at door_world()'s door, one character wide, the west one nearer it, with
// the followers' narrow_width as given. Returns the run, and the east one's least x while the west
// one is in the doorway (infinite if it never is).
struct HeadOn {
  std::unique_ptr<World> world = make_world(door_world());
  FollowRun run{*world};
  std::size_t west = 0, east = 0;
  double east_nearest = std::numeric_limits<double>::infinity();

  explicit HeadOn(double narrow_width) {
    run.tune().narrow_width = narrow_width;
    west = run.add({-4, 0, 0.3});
    east = run.add({4.6, 0, -0.3});
    run.go(west, {5, 0, 0});
    run.go(east, {-5, 0, 0});
    run.run(900);
    const auto& w = run.events(west).positions;
    const auto& e = run.events(east).positions;
    for (std::size_t t = 0; t < w.size() && t < e.size(); ++t)
      if (w[t].x >= -0.2 && w[t].x <= 0.2) east_nearest = std::min(east_nearest, e[t].x);
  }
};

// The nearer goes through first, the other waits beside the door until it is out, and neither is stuck.
TEST(PathFollower, TwoHeadOnAtANarrowDoorTheNearerGoesFirstAndTheOtherWaitsAside) {
  HeadOn h(follow::follow_settings(MoveSettings{}).narrow_width);
  for (const std::size_t k : {h.west, h.east}) {
    ASSERT_TRUE(h.run.events(k).arrived) << k << ": " << follow::to_string(h.run.events(k).gave_up);
    EXPECT_EQ(h.run.follower(k).counts().stuck, 0u) << k;
  }
  EXPECT_EQ(h.run.follower(h.west).counts().gave_way, 0u);
  EXPECT_EQ(h.run.follower(h.east).counts().gave_way, 1u);
  // While the west one is in the doorway, the east one stands clear of it, to its own right (south).
  ASSERT_LT(h.east_nearest, std::numeric_limits<double>::infinity()) << "the west one went through the door";
  EXPECT_GT(h.east_nearest, 0.2 + 0.4 + 0.5);
  EXPECT_LT(h.run.events(h.east).ended, 60u * 6) << "it waited a moment, not its deadline";
}

// Without knowing the door is narrow (no narrow places on their paths), the same two meet at it:
// the east one comes up to the doorway while the west one is in it.
TEST(PathFollower, TwoHeadOnAtANarrowDoorMeetAtItWhenNeitherGivesWay) {
  HeadOn h(0);
  EXPECT_EQ(h.run.follower(h.west).counts().gave_way + h.run.follower(h.east).counts().gave_way, 0u);
  EXPECT_LT(h.east_nearest, 0.2 + 0.4 + 0.5);
}

// Two head on, each as far from a narrow door as the other: the one whose way has the turn
// (FollowSettings::give_way_turn: west to east, along the door's way through, has the first of every
// two) goes first, the other waits; started a turn later, the other way round.
TEST(PathFollower, TwoHeadOnAsFarFromANarrowDoorTakeItInTurn) {
  for (const uint32_t turn : {0u, 1u}) {
    const auto world = make_world(door_world());
    FollowRun run(*world);
    run.skip(turn * uint32_t(run.follow_settings().give_way_turn));
    const std::size_t west = run.add({-4, 0, 0.3}), east = run.add({4, 0, -0.3});
    run.go(west, {5, 0, 0});
    run.go(east, {-5, 0, 0});
    run.run(900);
    for (const std::size_t k : {west, east}) {
      ASSERT_TRUE(run.events(k).arrived) << turn << ", " << k << ": " << follow::to_string(run.events(k).gave_up);
      EXPECT_EQ(run.follower(k).counts().stuck, 0u) << turn << ", " << k;
    }
    const std::size_t first = turn == 0 ? west : east, second = turn == 0 ? east : west;
    EXPECT_EQ(run.follower(first).counts().gave_way, 0u) << turn;
    EXPECT_EQ(run.follower(second).counts().gave_way, 1u) << turn;
    EXPECT_LT(run.events(first).ended, run.events(second).ended) << turn;
  }
}

// Two walking the same way through a narrow door: the one behind follows, it does not wait.
TEST(PathFollower, OneBehindAnotherThroughANarrowDoorDoesNotWait) {
  const auto world = make_world(door_world());
  FollowRun run(*world);
  const std::size_t ahead = run.add({-3, 0, 0}), behind = run.add({-4.5, 0, 0.2});
  run.go(ahead, {5, 0, 0});
  run.go(behind, {5, 0, 1.2});
  run.run(900);
  for (const std::size_t k : {ahead, behind}) {
    ASSERT_TRUE(run.events(k).arrived) << k << ": " << follow::to_string(run.events(k).gave_up);
    EXPECT_EQ(run.follower(k).counts().gave_way, 0u) << k;
    EXPECT_EQ(run.follower(k).counts().stuck, 0u) << k;
  }
}

// Two walking head on along a corridor 2 m wide: each steers to its right round the other.
TEST(PathFollower, TwoHeadOnPassEachOther) {
  const auto world = make_world(corridor_world(10, 1));
  FollowRun run(*world);
  const std::size_t west = run.add({-8, 0, 0}), east = run.add({8, 0, 0});
  run.go(west, {8, 0, 0});
  run.go(east, {-8, 0, 0});
  run.run(600);
  for (const std::size_t k : {west, east}) {
    ASSERT_TRUE(run.events(k).arrived) << k << ": " << follow::to_string(run.events(k).gave_up);
    EXPECT_LE(time_ratio(run, k), 1.2) << k;
  }
}

// A follower weighs the others every avoid_every ticks (the costly part of a crowd) and keeps its
// steering between: given its neighbours only when it wants them, a crowd walks exactly as given
// them every tick, and on the other ticks it does not ask.
TEST(PathFollower, ACrowdGivenItsNeighboursOnlyWhenWantedWalksAsOneGivenThemEveryTick) {
  const auto world = make_world(corridor_world(12, 2));
  std::vector<std::vector<Vec3>> first;
  for (const bool only : {false, true}) {
    FollowRun run(*world);
    run.gather_only_when_wanted(only);
    // Three from each end of a corridor 4 m wide, head on.
    std::vector<std::size_t> crowd;
    for (const double z : {-1.0, 0.0, 1.0}) {
      crowd.push_back(run.add({-10, 0, z}));
      crowd.push_back(run.add({10, 0, z + 0.3}));
    }
    for (const std::size_t k : crowd) run.go(k, {run.feet(k).x < 0 ? 10.0 : -10.0, 0, run.feet(k).z});
    run.run(900);
    for (const std::size_t k : crowd) EXPECT_TRUE(run.events(k).arrived) << k << ": " << follow::to_string(run.events(k).gave_up);
    if (!only) {
      EXPECT_EQ(run.gathers_skipped(), 0u);
      for (const std::size_t k : crowd) first.push_back(run.events(k).positions);
      continue;
    }
    // About every other step skips the gather (avoid_every = 2).
    EXPECT_GT(run.gathers_skipped(), run.tick() * crowd.size() / 4);
    for (std::size_t k = 0; k < crowd.size(); ++k) {
      ASSERT_EQ(run.events(crowd[k]).positions.size(), first[k].size()) << k;
      for (std::size_t t = 0; t < first[k].size(); ++t)
        ASSERT_EQ(quantize_position(run.events(crowd[k]).positions[t]), quantize_position(first[k][t])) << k << " at " << t;
    }
  }
}

// The follower wants its neighbours at the first step of a goal, then once every avoid_every ticks.
TEST(PathFollower, WantsItsNeighboursAtAGoalsStartThenEveryAvoidEveryTicks) {
  const auto world = make_world(levels_world());
  FollowRun run(*world);
  const std::size_t k = run.add({8, 0, 8});
  EXPECT_FALSE(run.follower(k).wants_nearby(1)) << "idle";
  run.go(k, {-8, 0, 8});
  EXPECT_TRUE(run.follower(k).wants_nearby(1));
  run.run(1);
  const uint32_t every = uint32_t(run.follow_settings().avoid_every);
  ASSERT_GE(every, 2u);
  for (uint32_t t = 2; t <= every; ++t) EXPECT_FALSE(run.follower(k).wants_nearby(t)) << t;
  EXPECT_TRUE(run.follower(k).wants_nearby(1 + every));
}

// The same states and paths give the same inputs: two runs, the same positions tick by tick.
TEST(PathFollower, TheSameRunGivesTheSameCharacterEveryTick) {
  const auto world = make_world(levels_world());
  std::vector<Vec3> first;
  for (int run_index = 0; run_index < 2; ++run_index) {
    FollowRun run(*world);
    const std::size_t k = run.add({8, 0, 8});
    run.go(k, {4, 1.5, -6.5});
    run.run(900);
    ASSERT_TRUE(run.events(k).arrived);
    if (run_index == 0) {
      first = run.events(k).positions;
    } else {
      ASSERT_EQ(run.events(k).positions.size(), first.size());
      for (std::size_t t = 0; t < first.size(); ++t) ASSERT_EQ(quantize_position(run.events(k).positions[t]), quantize_position(first[t])) << t;
    }
  }
}

}  // namespace
}  // namespace foothold::nav::test

namespace foothold::nav::test {
namespace {

// The rooms level's balcony, 1 m up in the south-west room, has no stairs: it is reached by a jump
// and left by a drop (tests/nav/levels/make_levels.py).
TEST(PathFollower, ReachesTheRoomsLevelsBalconyByAJump) {
  const WorldLoad level = load_world(std::string(FOOTHOLD_SOURCE_DIR) + "/tests/nav/levels/rooms.gltf");
  ASSERT_TRUE(level.world) << level.error;
  FollowRun run(*level.world);
  const std::size_t k = run.add({-8, 0, 8});
  run.go(k, {-17, 1, 12.5});
  run.run(900);
  ASSERT_TRUE(run.events(k).arrived) << follow::to_string(run.events(k).gave_up);
  EXPECT_NEAR(run.feet(k).y, 1.0, 0.1);
  EXPECT_EQ(run.follower(k).counts().jumps, 1u);
  EXPECT_LE(time_ratio(run, k), 1.3);
  run.go(k, {-8, 0, 8});
  run.run(900);
  ASSERT_TRUE(run.events(k).arrived) << follow::to_string(run.events(k).gave_up);
  EXPECT_NEAR(run.feet(k).y, 0, 0.1);
  EXPECT_EQ(run.follower(k).counts().jumps, 1u) << "down is a drop";
}

// The mesh knows no movers: a goal may lie under a turntable's or a lift's slab. A character standing
// on the slab over it, at the goal's level within a step, has arrived; one carried up far above it
// has not.
TEST(PathFollower, ArrivesOnAMoverStandingOverItsGoalButNotCarriedFarAboveIt) {
  const follow::FollowSettings fs = follow::follow_settings(MoveSettings{});
  const MoveSettings ms;
  const Vec3 goal{4, 0, 0};
  follow::Path path;
  path.status = follow::PathStatus::kComplete;
  path.corners = {{{0, 0, 0}, follow::Leg::kWalk}, {goal, follow::Leg::kWalk}};
  const auto standing_over = [&](double feet_y) {
    CharacterState s = spawn_state(goal + Vec3{0.05, feet_y + ms.height / 2, 0});
    s.ground = GroundKind::kWalkable;
    s.platform = 1;  // on the first mover
    return s;
  };
  for (const auto& [feet_y, arrives] : {std::pair{0.2, true}, std::pair{1.5, false}}) {
    follow::PathFollower f;
    f.go_to(goal, 10);
    EXPECT_EQ(f.step(standing_over(0), 10, fs).event, follow::FollowEvent::kNeedPath);
    f.set_path(path, 10);
    const follow::FollowStep step = f.step(standing_over(feet_y), 11, fs);
    EXPECT_EQ(step.event == follow::FollowEvent::kArrived, arrives) << "feet " << feet_y << " m over the goal";
  }
}

}  // namespace
}  // namespace foothold::nav::test
