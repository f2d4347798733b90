// Ground contact on harder ground (docs/movement.md §9, §6.2, §5.2): down stairs and over crests
// without leaving the ground, stopping at slope kinks without a hop, sliding along walls whose quads
// are only almost coplanar, and jumps as players expect them.

#include <algorithm>
#include <cmath>
#include <random>
#include <sstream>

#include <gtest/gtest.h>

#include "shared/formats/trace.h"
#include "support/scenario_support.h"
#include "support/test_seed.h"

namespace foothold::test {
namespace {

constexpr double kPi = 3.14159265358979323846;

// Stairs rising toward +X from a floor at y = 0: `count` steps of `rise` and `tread`, then a 4 m
// landing. Each step its own block, as level tools export them.
std::unique_ptr<World> stairs(double rise, int count = 6, double tread = 0.4) {
  MeshBuilder b;
  b.quad({-8, 0, -12}, {-8, 0, 12}, {0, 0, 12}, {0, 0, -12});
  for (int i = 0; i < count; ++i) b.box({i * tread, 0, -12}, {(i + 1) * tread, (i + 1) * rise, 12});
  b.box({count * tread, 0, -12}, {count * tread + 4, count * rise, 12});
  return make_world(b.take(), "stairs");
}

// The fraction of ticks in [from, to) that are grounded.
int airborne_ticks(const replay::ScenarioRun& run, size_t from, size_t to) {
  int n = 0;
  for (size_t i = from; i < to && i < run.rows.size(); ++i) n += !is_grounded(run.rows[i].state.ground);
  return n;
}

// The first row from `from` on whose position is west of x (metres); the row count when none is.
size_t first_row_past(const replay::ScenarioRun& run, size_t from, double x) {
  for (size_t i = from; i < run.rows.size(); ++i)
    if (pos(run.rows[i]).x < x) return i;
  return run.rows.size();
}

// Walks down the stairs from the landing in direction (dx, dz) until on the floor below.
void expect_grounded_down_stairs(double rise, double dx, double dz) {
  SCOPED_TRACE("rise " + std::to_string(rise) + " direction " + std::to_string(dx) + "," + std::to_string(dz));
  const int count = 6;
  const auto world = stairs(rise, count);
  const double top = count * rise;
  const Vec3 spawn{count * 0.4 + 1.5, top + rest_height() + 0.3, -4};
  const auto run = run_script(*world, spawn, "40 0 0 -\n150 " + std::to_string(dx) + " " + std::to_string(dz) + " -\n");
  const int landed = first_grounded(run);
  ASSERT_GE(landed, 0);
  ASSERT_LT(landed, 40);
  // From landing on the top until the character is well past the foot of the stairs.
  const size_t end = first_row_past(run, 40, -1.0);
  ASSERT_LT(end, run.rows.size()) << "never reached the floor below";
  int airborne = 0;
  std::ostringstream where;
  for (size_t i = size_t(landed); i < end; ++i) {
    if (is_grounded(run.rows[i].state.ground)) continue;
    if (++airborne <= 12) where << " " << i << "@x=" << pos(run.rows[i]).x;
  }
  EXPECT_EQ(airborne, 0) << "airborne ticks:" << where.str();
  EXPECT_NEAR(pos(run.rows[end]).y, rest_height(), 1e-3);
  // Its speed along the path it walks (over the treads and down round the nosings): the walk speed.
  const MoveSettings s;
  double path = 0;
  for (size_t i = 42; i <= end; ++i) path += length(pos(run.rows[i]) - pos(run.rows[i - 1]));
  const double speed = path / (double(end - 41) / s.tick_rate);
  std::printf("rise %.2f: path speed %.3f m/s, horizontal %.3f m/s\n", rise, speed,
              length(horizontal(pos(run.rows[end]) - pos(run.rows[41]))) / (double(end - 41) / s.tick_rate));
  // Never slower than the walk speed along the path; the floor lock's few millimetres of settling
  // at each tread add a little vertical distance (measured: 5.0 to 5.3 m/s for 0.15 to 0.35 m rises).
  const double walk = s.walk_speed * std::min(1.0, std::hypot(dx, dz));
  EXPECT_GE(speed, 0.97 * walk);
  EXPECT_LE(speed, 1.10 * walk);
}

TEST(GroundContact, DownStairsStaysGroundedEveryTickStraightAndDiagonal) {
  for (const double rise : {0.15, 0.25, 0.35}) {
    expect_grounded_down_stairs(rise, -1, 0);
    expect_grounded_down_stairs(rise, -0.7071, 0.7071);
  }
}

TEST(GroundContact, DownStairsAtRunningSpeedAndAlongANosingStaysGrounded) {
  MoveSettings fast;
  fast.walk_speed = 9;
  const auto world = stairs(0.25);
  const auto run = run_script(*world, {6 * 0.4 + 1.5, 1.5 + rest_height() + 0.3, -4}, "40 0 0 -\n60 -1 0.3 -\n", fast);
  const int landed = first_grounded(run);
  ASSERT_GE(landed, 0);
  const size_t end = first_row_past(run, 40, -1.0);
  ASSERT_LT(end, run.rows.size());
  EXPECT_EQ(airborne_ticks(run, size_t(landed), end), 0) << "at 9 m/s";
  // Standing with the capsule's base over a nosing (the axis just past the edge), then walking along it.
  const double x = 3 * 0.4 - 0.2;  // 0.2 m past the nosing of the fourth step (its edge at x = 1.2)
  const auto along = run_script(*world, {x, 4 * 0.25 + rest_height() + 0.1, -4}, "20 0 0 -\n60 0 1 -\n");
  const int held = first_grounded(along);
  ASSERT_GE(held, 0);
  EXPECT_EQ(airborne_ticks(along, size_t(held), along.rows.size()), 0) << "walking along the nosings";
}

TEST(GroundContact, WalkingOffTheTopOfARampNeverLaunches) {
  // A 30-degree ramp whose crest falls away at 80 degrees to a floor 2 m below: nothing to snap onto
  // past the crest, so the character leaves the ground there, with its along-slope velocity.
  MeshBuilder b;
  b.quad({-8, 0, -4}, {-8, 0, 4}, {0, 0, 4}, {0, 0, -4});
  const double h = 2 * std::tan(30 * kPi / 180);
  const double foot = 2 + (h + 2) * std::tan(10 * kPi / 180);
  b.quad({0, 0, -4}, {0, 0, 4}, {2, h, 4}, {2, h, -4});
  b.quad_facing({2, h, -4}, {2, h, 4}, {foot, -2, 4}, {foot, -2, -4}, {1, 0.2, 0});
  b.quad({foot, -2, -4}, {foot, -2, 4}, {foot + 8, -2, 4}, {foot + 8, -2, -4});
  const auto world = make_world(b.take(), "ramp and drop");
  MoveSettings fast;  // fast enough to pass the edge within a tick
  fast.walk_speed = 20;
  const auto run = run_script(*world, {-2, rest_height() + 0.2, 0}, "30 0 0 -\n80 1 0 -\n", fast);
  bool left = false;
  for (size_t i = 30; i < run.rows.size(); ++i) {
    if (pos(run.rows[i]).x < 2) continue;
    // Past the edge: never above the height it stood at on the edge, and once airborne, never rising.
    EXPECT_LE(pos(run.rows[i]).y, h + rest_height() + kPositionQuantum) << "tick " << i << ": hopped off the edge";
    if (is_grounded(run.rows[i].state.ground)) continue;
    left = true;
    EXPECT_LE(vel(run.rows[i]).y, 0) << "tick " << i << ": along-slope speed turned into a launch; ground "
                                      << to_string(run.rows[i].state.ground) << " x " << pos(run.rows[i]).x << " y "
                                      << pos(run.rows[i]).y;
  }
  EXPECT_TRUE(left);
}

TEST(GroundContact, ALedgeHigherThanAStepStillFalls) {
  const MoveSettings s;
  const auto world = stairs(s.step_height + 0.05, 1);
  const auto run = run_script(*world, {2.0, s.step_height + 0.05 + rest_height() + 0.2, 0}, "30 0 0 -\n60 -1 0 -\n");
  EXPECT_GT(airborne_ticks(run, 30, run.rows.size()), 0) << "walked off a ledge above step_height: it falls";
  EXPECT_NEAR(pos(run.rows.back()).y, rest_height(), 1e-3);
}

TEST(GroundContact, AJumpIsNeverSnappedBackDown) {
  const auto world = stairs(0.25);
  // Down the stairs, jumping on every sixth tick: every jump leaves the ground.
  const auto run = run_script(*world, {6 * 0.4 + 1.5, 1.5 + rest_height() + 0.3, 0}, "40 0 0 -\n10 -1 0 -\n1 -1 0 jump\n30 -1 0 -\n");
  const size_t jump_tick = 51;  // row of the tick the jump was pressed
  EXPECT_GT(vel(run.rows[jump_tick]).y, 0);
  EXPECT_FALSE(is_grounded(run.rows[jump_tick].state.ground));
  EXPECT_FALSE(is_grounded(run.rows[jump_tick + 1].state.ground));
}

// A ramp of `degrees` rising toward +X from x = 0, with flat ground before it and a flat top after.
std::unique_ptr<World> ramp_with_top(double degrees, double run_len) {
  const double h = run_len * std::tan(degrees * kPi / 180);
  MeshBuilder b;
  b.quad({-8, 0, -4}, {-8, 0, 4}, {0, 0, 4}, {0, 0, -4});
  b.quad({0, 0, -4}, {0, 0, 4}, {run_len, h, 4}, {run_len, h, -4});
  b.quad({run_len, h, -4}, {run_len, h, 4}, {run_len + 8, h, 4}, {run_len + 8, h, -4});
  return make_world(b.take(), "ramp");
}

TEST(GroundContact, OverACrestAndOntoADownwardSlopeStaysGrounded) {
  for (const double deg : {20.0, 30.0, 40.0}) {
    SCOPED_TRACE(deg);
    const auto world = ramp_with_top(deg, 3);
    // Up the ramp and over its crest onto the top.
    auto run = run_script(*world, {-2, rest_height() + 0.2, 0}, "30 0 0 -\n120 1 0 -\n");
    int landed = first_grounded(run);
    ASSERT_GE(landed, 0);
    EXPECT_EQ(airborne_ticks(run, size_t(landed), run.rows.size()), 0);
    // Back: off the top's edge onto the ramp going down, and onto the floor.
    const double h = 3 * std::tan(deg * kPi / 180);
    run = run_script(*world, {7, h + rest_height() + 0.2, 0}, "30 0 0 -\n150 -1 0 -\n");
    landed = first_grounded(run);
    ASSERT_GE(landed, 0);
    EXPECT_EQ(airborne_ticks(run, size_t(landed), run.rows.size()), 0);
    EXPECT_LT(pos(run.rows.back()).x, -1);
  }
}

// A walkable ramp of `a` degrees turning into a steeper one of `b` degrees at x = 3.
std::unique_ptr<World> kink(double a, double b_deg) {
  const double ha = 3 * std::tan(a * kPi / 180);
  const double hb = ha + 3 * std::tan(b_deg * kPi / 180);
  MeshBuilder b;
  b.quad({-8, 0, -4}, {-8, 0, 4}, {0, 0, 4}, {0, 0, -4});
  b.quad({0, 0, -4}, {0, 0, 4}, {3, ha, 4}, {3, ha, -4});
  b.quad({3, ha, -4}, {3, ha, 4}, {6, hb, 4}, {6, hb, -4});
  return make_world(b.take(), "kink");
}

TEST(GroundContact, WalkingIntoASteeperSlopeStopsAtTheKinkWithoutLeavingTheGround) {
  for (const auto& [a, b] : {std::pair{30.0, 60.0}, std::pair{40.0, 50.0}, std::pair{0.0, 70.0}, std::pair{44.0, 46.0}}) {
    SCOPED_TRACE(std::to_string(a) + " into " + std::to_string(b));
    const auto world = kink(a, b);
    const auto run = run_script(*world, {-2, rest_height() + 0.2, 0}, "30 0 0 -\n240 1 0 -\n");
    const int landed = first_grounded(run);
    ASSERT_GE(landed, 0);
    EXPECT_EQ(airborne_ticks(run, size_t(landed), run.rows.size()), 0);
    double max_vy = 0;
    for (size_t i = size_t(landed); i < run.rows.size(); ++i)
      if (pos(run.rows[i]).x > 2.5) max_vy = std::max(max_vy, vel(run.rows[i]).y);
    // Stopped: the last second moves less than a centimetre.
    const size_t n = run.rows.size();
    EXPECT_LT(length(pos(run.rows[n - 1]) - pos(run.rows[n - 61])), 0.01);
    EXPECT_GT(pos(run.rows.back()).x, 2.3) << "reached the kink";
    EXPECT_LT(pos(run.rows.back()).x, 3.5) << "and not beyond it";
  }
}

// A wall along X facing -Z at z = 1, made of unwelded quads `width` long whose vertices are moved off
// the plane by up to `amplitude` (as float32 exports of real levels are).
std::unique_ptr<World> jittered_wall(double amplitude, double length_m, double width, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> j(-amplitude, amplitude);
  MeshBuilder b;
  b.quad({-4, 0, -4}, {-4, 0, 4}, {length_m + 4, 0, 4}, {length_m + 4, 0, -4});
  for (double x = 0; x < length_m; x += width) {
    const Vec3 p0{x, -0.5, 1 + j(rng)}, p1{x + width, -0.5, 1 + j(rng)}, p2{x + width, 3, 1 + j(rng)}, p3{x, 3, 1 + j(rng)};
    b.quad_facing(p0, p1, p2, p3, {0, 0, -1});
  }
  return make_world(b.take(), "jittered wall");
}

TEST(GroundContact, SlidesAlongAWallOfAlmostCoplanarQuadsAtConstantSpeed) {
  const MoveSettings s;
  const uint64_t seed = test_seed(19);
  for (const double amplitude : {1e-6, 1e-5, 1e-4}) {
    for (const double width : {0.5, 1.3}) {
      SCOPED_TRACE("amplitude " + std::to_string(amplitude) + " quad width " + std::to_string(width));
      const double len = 12;
      const auto world = jittered_wall(amplitude, len, width, seed);
      // Walk along the wall, pushing into it at 45 degrees: the along-wall speed is walk_speed/sqrt2.
      const auto run = run_script(*world, {0.5, rest_height() + 0.1, 0.3}, "20 0 0 -\n120 1 1 -\n");
      const double expected = s.walk_speed * std::sqrt(0.5) * 120 / s.tick_rate;
      const double moved = pos(run.rows.back()).x - pos(run.rows[20]).x;
      EXPECT_NEAR(moved, expected, 0.05 * expected) << "stuck or slowed at a seam";
      for (size_t i = 30; i < run.rows.size(); ++i) {
        const double dx = pos(run.rows[i]).x - pos(run.rows[i - 1]).x;
        if (!(dx > 0.5 * s.walk_speed * std::sqrt(0.5) / s.tick_rate)) {
          for (size_t k = i - 3; k < i + 3; ++k) {
            const auto& d = run.diagnostics[k - 1];
            std::printf("DBG tick %zu p=%.6f,%.6f,%.6f v=%.4f,%.4f,%.4f ground=%d slide_it=%d stepped=%d snapped=%d locked=%d po=%d\n", k,
              pos(run.rows[k]).x, pos(run.rows[k]).y, pos(run.rows[k]).z, vel(run.rows[k]).x, vel(run.rows[k]).y, vel(run.rows[k]).z,
              int(run.rows[k].state.ground), d.slide_iterations, d.stepped_up, d.snapped_down, d.locked_to_floor, d.pushout_iterations);
          }
        }
        ASSERT_GT(dx, 0.5 * s.walk_speed * std::sqrt(0.5) / s.tick_rate) << "stalled at tick " << i << " x " << pos(run.rows[i]).x;
        EXPECT_LE(pos(run.rows[i]).z, 1 - s.radius) << "never into the wall";
      }
    }
  }
}


// ---- Jumps (movement.md §5.2) ----------------------------------------------------------------

// Ticks (rows) on which a jump began: the velocity turned upward from not rising.
std::vector<size_t> jumps(const replay::ScenarioRun& run) {
  std::vector<size_t> out;
  for (size_t i = 1; i < run.diagnostics.size() + 1 && i < run.rows.size(); ++i)
    if (run.diagnostics[i - 1].jumped) out.push_back(i);
  return out;
}

TEST(Jump, HoldingTheButtonJumpsOnce) {
  const auto run = run_script(arena_world(), arena::kOpenFloor + Vec3{0, rest_height(), 0}, "10 0 0 -\n180 0 0 jump\n");
  const auto j = jumps(run);
  ASSERT_EQ(j.size(), 1u) << "held through several landings";
  EXPECT_EQ(j[0], 11u);
  // Released and pressed again: a second jump.
  const auto again = run_script(arena_world(), arena::kOpenFloor + Vec3{0, rest_height(), 0},
                                "10 0 0 -\n5 0 0 jump\n80 0 0 -\n1 0 0 jump\n20 0 0 -\n");
  EXPECT_EQ(jumps(again).size(), 2u);
}

// Walks off a 2 m ledge (the arena's) and presses jump `after` ticks after the last grounded tick.
bool coyote_jump(int after, const MoveSettings& s) {
  // From the ledge's middle toward its far edge (+X): find the last grounded tick, then replay with
  // the press placed relative to it.
  const Vec3 start{arena::kLedgeX1 - 1.0, arena::kLedgeHeight + rest_height(), (arena::kStairZ0 + arena::kStairZ1) / 2};
  const auto probe = run_script(arena_world(), start, "10 0 0 -\n60 1 0 -\n", s);
  size_t last_grounded = 0;
  for (size_t i = 10; i < probe.rows.size(); ++i)
    if (is_grounded(probe.rows[i].state.ground)) last_grounded = i;
    else break;
  const int walk_before = int(last_grounded) - 10 + after;  // rows 11.. are walking ticks
  const auto run = run_script(arena_world(), start,
                              "10 0 0 -\n" + std::to_string(walk_before) + " 1 0 -\n1 1 0 jump\n30 1 0 -\n", s);
  return !jumps(run).empty();
}

TEST(Jump, CoyoteTimeAllowsAJumpJustAfterWalkingOffAndNotLater) {
  MoveSettings s;  // coyote_time 0.1 s: 6 ticks at 60 Hz
  EXPECT_TRUE(coyote_jump(1, s)) << "the first airborne tick";
  EXPECT_TRUE(coyote_jump(6, s)) << "the last tick of the window";
  EXPECT_FALSE(coyote_jump(7, s)) << "one tick too late";
  s.coyote_time = 0;
  EXPECT_FALSE(coyote_jump(1, s)) << "coyote_time 0 turns it off";
}

// Falls from `height` above the floor and presses jump `before` ticks before the first grounded tick.
bool buffered_jump(int before, const MoveSettings& s) {
  const Vec3 start = arena::kOpenFloor + Vec3{0, rest_height() + 1.5, 0};
  const int landed = first_grounded(run_script(arena_world(), start, "120 0 0 -\n", s));
  EXPECT_GT(landed, before);
  const int press_row = landed - before;  // the tick whose input holds the press
  const auto run = run_script(arena_world(), start,
                              std::to_string(press_row - 1) + " 0 0 -\n1 0 0 jump\n60 0 0 -\n", s);
  return !jumps(run).empty();
}

TEST(Jump, AJumpPressedJustBeforeLandingHappensOnLanding) {
  MoveSettings s;  // jump_buffer 0.1 s: 6 ticks
  EXPECT_TRUE(buffered_jump(1, s));
  EXPECT_TRUE(buffered_jump(5, s)) << "the oldest press the buffer keeps";
  EXPECT_FALSE(buffered_jump(6, s)) << "one tick too early";
  s.jump_buffer = 0;
  EXPECT_FALSE(buffered_jump(1, s)) << "jump_buffer 0 turns it off";
}

TEST(Jump, APressOnAnyTickOfAStairDescentJumps) {
  const auto world = stairs(0.25);
  const Vec3 spawn{6 * 0.4 + 1.5, 1.5 + rest_height() + 0.3, 0};
  for (int t = 0; t < 40; t += 3) {
    SCOPED_TRACE(t);
    const auto run = run_script(*world, spawn, "40 0 0 -\n" + std::to_string(t + 1) + " -1 0 -\n1 -1 0 jump\n20 -1 0 -\n");
    const auto j = jumps(run);
    ASSERT_EQ(j.size(), 1u);
    EXPECT_EQ(j[0], size_t(40 + t + 2));
  }
}

}  // namespace
}  // namespace foothold::test

namespace foothold::test {
namespace {

// Found by the 3D report of a 10-minute, 64-character run: a character walking along the side of
// the tagged 60° wedge (row A) was thrown to the world's limit, y = 2^20 m, in one tick.
TEST(Regression, WalkingAlongTheTaggedWedgeStaysOnTheFloor) {
  std::string error;
  const auto row = parse_trace_row(
      "10063,35,4.3857421875,0.919921875,-23.58984375,2.598419189453125,0,0,1,walkable,0,1,0,0,255,0,0,0,0,0,0", error);
  ASSERT_TRUE(row) << error;
  const DerivedSettings s = derive(MoveSettings{});
  StepScratch scratch;
  const StepResult r = step(row->state, encode_move(0.52, -0.11, 0, 10064), arena_world(), s, scratch);
  const Vec3 p = to_position(r.state.position);
  const StepDiagnostics& d = r.diagnostics;
  EXPECT_GT(p.y, 0.5);
  EXPECT_LT(p.y, 1.0) << "at (" << p.x << ", " << p.y << ", " << p.z << ") slide " << d.slide_iterations << " stepped "
                      << d.stepped_up << " snapped " << d.snapped_down << " locked " << d.locked_to_floor << " pushout "
                      << d.pushout_iterations << " unresolved " << d.pushout_unresolved << " crushed " << d.crushed;
}

}  // namespace
}  // namespace foothold::test
