// Scenario tests of the movement step: one per mechanism of the design documents, each on a real
// (small or arena) world, asserting on the trace a player would see.

#include <algorithm>
#include <cmath>

#include <gtest/gtest.h>

#include "shared/det_math.h"
#include "shared/formats/obj_loader.h"
#include "support/scenario_support.h"

namespace foothold::test {
namespace {

namespace A = arena;

double surface_y(const A::Slope& s, double x) {
  const double r = det_radians(s.degrees);
  return (x - s.foot_x) * det_sin(r) / det_cos(r);
}
constexpr double kSlopeZ = (A::kSlopeZ0 + A::kSlopeZ1) / 2;
constexpr double kStairZ = (A::kStairZ0 + A::kStairZ1) / 2;

double max_displacement(const replay::ScenarioRun& run, size_t from, size_t to) {
  double m = 0;
  for (size_t i = from; i <= to; ++i) m = std::max(m, length(pos(run.rows[i]) - pos(run.rows[from])));
  return m;
}

TEST(Step, RestsOnFlatFloorAtTheLockHeight) {
  const auto run = run_script(arena_world(), A::kOpenFloor + Vec3{0, 2, 0}, "120 0 0 -\n");
  const int landed = first_grounded(run);
  ASSERT_GT(landed, 0);
  for (size_t i = size_t(landed); i < run.rows.size(); ++i) {
    EXPECT_EQ(run.rows[i].state.ground, GroundKind::kWalkable) << "tick " << i;
    EXPECT_EQ(pos(run.rows[i]).y, rest_height()) << "tick " << i;
    EXPECT_EQ(vel(run.rows[i]), Vec3{}) << "tick " << i;
  }
}

TEST(Step, IdleOnFortyDegreeSlopeDoesNotMove) {
  const double x = A::kSlope40.foot_x + A::kSlope40.run / 2;
  const auto run = run_script(arena_world(), {x, surface_y(A::kSlope40, x) + 2, kSlopeZ}, "400 0 0 -\n");
  const int landed = first_grounded(run);
  ASSERT_GT(landed, 0);
  ASSERT_LT(size_t(landed) + 300, run.rows.size());
  for (size_t i = size_t(landed); i < run.rows.size(); ++i) EXPECT_EQ(run.rows[i].state.ground, GroundKind::kWalkable);
  EXPECT_LE(max_displacement(run, size_t(landed), size_t(landed) + 300), 0.001);
  // It stands on the slope, not in it (Bullet's controller sinks about 4 cm into slopes): the lower
  // sphere's centre is radius plus the rest gap from the slope's plane, within the grid's rounding.
  const MoveSettings ms;
  const Vec3 p = pos(run.rows.back());
  const double a = det_radians(40);
  const Vec3 n{-det_sin(a), det_cos(a), 0};  // the slope rises toward +X
  const Vec3 foot{A::kSlope40.foot_x, 0, 0};
  const double gap = dot(p - Vec3{0, ms.height / 2 - ms.radius, 0} - foot, n) - ms.radius;
  EXPECT_NEAR(gap, ms.contact_distance / 2, 2 * kPositionQuantum);
}

TEST(Step, IdleOnFiftyDegreeSlopeSlidesDown) {
  const double x = A::kSlope50.foot_x + A::kSlope50.run / 2;
  const auto run = run_script(arena_world(), {x, surface_y(A::kSlope50, x) + 1.5, kSlopeZ}, "240 0 0 -\n");
  // It never stands on the slope: airborne until it reaches the floor at the foot.
  const int landed = first_grounded(run);
  ASSERT_GT(landed, 0);
  EXPECT_LT(pos(run.rows[size_t(landed)]).x, A::kSlope50.foot_x) << "grounded before reaching the foot";
  // It comes to rest on the floor in the corner at the foot (grounded characters keep no momentum).
  EXPECT_LT(pos(run.rows.back()).x, A::kSlope50.foot_x - 0.1);
  EXPECT_NEAR(pos(run.rows.back()).y, rest_height(), 1e-3);
  EXPECT_EQ(run.rows.back().state.ground, GroundKind::kWalkable);
}

TEST(Step, DroppedIntoVOfSeventyDegreeFacesIsGroundedInCreviceAndStill) {
  const auto run = run_script(arena_world(), {A::kCreviceX, 4, (A::kCreviceZ0 + A::kCreviceZ1) / 2}, "240 0 0 -\n");
  const int landed = first_grounded(run);
  ASSERT_GT(landed, 0);
  for (size_t i = size_t(landed); i < run.rows.size(); ++i) ASSERT_EQ(run.rows[i].state.ground, GroundKind::kCrevice) << i;
  EXPECT_EQ(max_displacement(run, size_t(landed), run.rows.size() - 1), 0.0);
  EXPECT_GT(pos(run.rows.back()).y, 1.0) << "wedged between the faces, above the crease";
}

TEST(Step, DroppedIntoThreeFacedSeventyDegreePitIsGroundedInPitAndStill) {
  const auto run = run_script(arena_world(), {A::kPitX, 4, A::kPitZ}, "240 0 0 -\n");
  const int landed = first_grounded(run);
  ASSERT_GT(landed, 0);
  for (size_t i = size_t(landed); i < run.rows.size(); ++i) ASSERT_EQ(run.rows[i].state.ground, GroundKind::kPit) << i;
  EXPECT_EQ(max_displacement(run, size_t(landed), run.rows.size() - 1), 0.0);
}

// A V crease along Z of two faces at 70 degrees, tilted so that the crease descends toward +Z by
// `tilt_deg`, above a floor that catches whatever slides out.
std::unique_ptr<World> tilted_crease(double tilt_deg) {
  const double w = 3 / (det_sin(det_radians(70)) / det_cos(det_radians(70)));  // 3 m tall faces
  const double c = det_cos(det_radians(tilt_deg)), s = det_sin(det_radians(tilt_deg));
  auto tilt = [&](Vec3 p) { return Vec3{p.x, p.y * c - p.z * s + 20, p.y * s + p.z * c}; };
  MeshBuilder b;
  b.quad_facing(tilt({0, 0, -6}), tilt({0, 0, 6}), tilt({-w, 3, 6}), tilt({-w, 3, -6}), {1, 1, 0});
  b.quad_facing(tilt({0, 0, -6}), tilt({w, 3, -6}), tilt({w, 3, 6}), tilt({0, 0, 6}), {-1, 1, 0});
  b.floor_grid(-40, -40, 40, 40, 0, 4);
  return make_world(b.take(), "tilted crease");
}

TEST(Step, CreaseThatDescendsGentlyHolds) {
  const auto world = tilted_crease(10);
  const auto run = run_script(*world, {0, 23, 0}, "240 0 0 -\n");
  const int landed = first_grounded(run);
  ASSERT_GT(landed, 0);
  EXPECT_EQ(run.rows.back().state.ground, GroundKind::kCrevice);
  EXPECT_LE(max_displacement(run, size_t(landed), run.rows.size() - 1), 0.001);
}

TEST(Step, CreaseThatDescendsSteeplySlides) {
  const auto world = tilted_crease(60);
  const auto run = run_script(*world, {0, 24, 0}, "60 0 0 -\n");
  // Airborne along the crease, moving down it (toward +Z) faster and faster.
  for (size_t i = 1; i < run.rows.size(); ++i) EXPECT_EQ(run.rows[i].state.ground, GroundKind::kNone) << i;
  const Vec3 mid = pos(run.rows[30]), end = pos(run.rows.back());
  EXPECT_GT(end.z - mid.z, 0.5);
  EXPECT_LT(end.y - mid.y, -1.0);
}

TEST(Step, ClimbsStairsOfQuarterMetreRiseWithStepHeightPointThreeFive) {
  const auto run = run_script(arena_world(), {A::kStairX0 - 2, 1.5, kStairZ}, "30 0 0 -\n90 1 0 -\n");
  const Vec3 end = pos(run.rows.back());
  EXPECT_GT(end.x, A::kLedgeX0) << "reached the ledge";
  EXPECT_NEAR(end.y, A::kLedgeHeight + rest_height(), 1e-3);
  EXPECT_EQ(run.rows.back().state.ground, GroundKind::kWalkable);
  int stepped = 0;
  for (const auto& d : run.diagnostics) stepped += d.stepped_up;
  EXPECT_GE(stepped, A::kStairCount - 1) << "climbed by stepping, not by sliding up";
}

TEST(Step, StairsOfQuarterMetreRiseBlockWithStepHeightPointTwo) {
  MoveSettings s;
  s.step_height = 0.2;
  const auto run = run_script(arena_world(), {A::kStairX0 - 2, 1.5, kStairZ}, "30 0 0 -\n90 1 0 -\n", s);
  for (const auto& row : run.rows) EXPECT_LT(pos(row).x, A::kStairX0) << "tick " << row.tick;
  EXPECT_NEAR(pos(run.rows.back()).y, rest_height(s), 1e-3);
  EXPECT_EQ(run.rows.back().state.ground, GroundKind::kWalkable);
}

TEST(Step, SlidingAlongWallNeverPenetratesAndKeepsTangentialSpeed) {
  const MoveSettings s;
  const auto run = run_script(arena_world(), {A::kUprightWallX - 2, 1.5, A::kWallZ0 + 1}, "30 0 0 -\n60 1 1 -\n");
  const double tangential = s.walk_speed * std::sqrt(0.5) / s.tick_rate;  // per tick along Z
  int sliding = 0;
  for (size_t i = 31; i < run.rows.size(); ++i) {
    const Vec3 p = pos(run.rows[i]);
    EXPECT_LE(p.x, A::kUprightWallX - s.radius) << "tick " << i;
    const double dz = p.z - pos(run.rows[i - 1]).z;
    // The input's Z component survives the wall untouched (within the grid's rounding).
    EXPECT_NEAR(dz, tangential, 2 * kPositionQuantum) << "tick " << i;
    if (p.x > A::kUprightWallX - s.radius - 2 * s.safety_margin) ++sliding;
  }
  EXPECT_GT(sliding, 20) << "slid along the wall";
}

// A floor falling 10 degrees toward +X, and along its side (z = 1) a 60-degree face rising toward +Z
// whose foot follows the floor down.
std::unique_ptr<World> falling_floor_beside_steep_face() {
  const double fall = det_sin(det_radians(10)) / det_cos(det_radians(10));  // metres down per metre along +X
  const double up = 3 * det_sin(det_radians(60)), back = 3 * det_cos(det_radians(60));
  MeshBuilder b;
  b.quad_facing({-10, 10 * fall, -5}, {10, -10 * fall, -5}, {10, -10 * fall, 1}, {-10, 10 * fall, 1}, {0, 1, 0});
  b.quad_facing({-10, 10 * fall, 1}, {10, -10 * fall, 1}, {10, -10 * fall + up, 1 + back}, {-10, 10 * fall + up, 1 + back},
                {0, 1, -1});
  return make_world(b.take(), "falling floor beside a steep face");
}

TEST(Step, WalkingDownhillAlongTheFootOfASteepFaceKeepsGoing) {
  // §6.3: the face is met as an upright wall, and the floor carries the velocity down along it. Down
  // here is into the face (it leans back), so the velocity follows the line where floor and face
  // meet. Before, every sweep stopped at once against the face: the character stood still for good.
  const MoveSettings s;
  const auto world = falling_floor_beside_steep_face();
  const auto run = run_script(*world, {-6, 2.5, 0.3}, "30 0 0 -\n120 1 0.3 -\n");
  const double along = s.walk_speed / std::sqrt(1 + 0.3 * 0.3) / s.tick_rate;  // the input's X part, per tick
  int pressed = 0;
  for (size_t i = 61; i < run.rows.size(); ++i) {
    const Vec3 p = pos(run.rows[i]);
    EXPECT_EQ(run.rows[i].state.ground, GroundKind::kWalkable) << "tick " << i;
    EXPECT_GT(p.x - pos(run.rows[i - 1]).x, 0.9 * along) << "tick " << i;
    if (p.z > 1 - s.radius) ++pressed;
  }
  EXPECT_GT(pressed, 60) << "walked along the face, pressed against it";
  EXPECT_GT(pos(run.rows.back()).x, 3.0);
}

TEST(Step, PressingOffTheStairsSideIntoTheNextRiserMovesOn) {
  // The arena's stair: standing on the second step's side edge (the capsule's centre past it), a
  // character presses toward the third step's corner and off the side. The edge is its floor, which
  // falls away off the side and carries it down into that corner. Before, it stood there for good
  // (a path follower gave up there); now it slides round the corner and off the side to the floor.
  const double x = A::kStairX0 + 1.1 * A::kStairTread, z = A::kStairZ0 - 0.14;
  const auto run = run_script(arena_world(), {x, 2 * A::kStairRise + rest_height() + 0.05, z}, "30 0 0 -\n60 0.91 -0.42 -\n");
  ASSERT_EQ(run.rows[30].state.ground, GroundKind::kWalkable) << "standing on the edge";
  ASSERT_GT(pos(run.rows[30]).y, A::kStairRise + rest_height()) << "on the second step's edge";
  for (size_t i = 32; i < run.rows.size(); ++i) EXPECT_GT(length(pos(run.rows[i]) - pos(run.rows[i - 1])), 0.02) << "tick " << i;
  const Vec3 end = pos(run.rows.back());
  EXPECT_LT(end.z, A::kStairZ0 - 0.5) << "off the side";
  EXPECT_EQ(end.y, rest_height()) << "down on the floor";
}

TEST(Step, WalkingDownThirtyDegreeSlopeStaysGroundedEveryTick) {
  const double x = A::kSlope30.foot_x + A::kSlope30.run - 0.6;
  const auto run = run_script(arena_world(), {x, surface_y(A::kSlope30, x) + 1.5, kSlopeZ}, "60 0 0 -\n50 -1 0 -\n");
  const int landed = first_grounded(run);
  ASSERT_GT(landed, 0);
  ASSERT_LT(landed, 60);
  for (size_t i = size_t(landed); i < run.rows.size(); ++i) EXPECT_TRUE(is_grounded(run.rows[i].state.ground)) << "tick " << i;
  EXPECT_LT(pos(run.rows.back()).x, A::kSlope30.foot_x) << "reached the floor below";
}

TEST(Step, SpeedAlongThirtyDegreeSlopeEqualsWalkSpeed) {
  const MoveSettings s;
  const double x = A::kSlope30.foot_x + 0.6;
  for (double dir : {1.0, -1.0}) {
    const double start = dir > 0 ? x : A::kSlope30.foot_x + A::kSlope30.run - 0.6;
    const auto run = run_script(arena_world(), {start, surface_y(A::kSlope30, start) + 1, kSlopeZ},
                                "60 0 0 -\n30 " + std::to_string(dir) + " 0 -\n");
    for (size_t i = 62; i < run.rows.size(); ++i) {
      const double speed = length(pos(run.rows[i]) - pos(run.rows[i - 1])) * s.tick_rate;
      EXPECT_NEAR(speed, s.walk_speed, 0.05 * s.walk_speed) << "direction " << dir << " tick " << i;
    }
  }
}

std::string tessellated_floor_obj(bool welded) {
  const int n = 80;  // 0.25 m cells over 20 m: 12,800 triangles
  const double cell = 0.25, x0 = -10;
  std::string obj = "# tessellated floor\n";
  auto v = [&](int i, int k) {
    return "v " + std::to_string(x0 + i * cell) + " 0 " + std::to_string(x0 + k * cell) + "\n";
  };
  if (welded) {
    for (int i = 0; i <= n; ++i)
      for (int k = 0; k <= n; ++k) obj += v(i, k);
    auto id = [&](int i, int k) { return std::to_string(i * (n + 1) + k + 1); };
    for (int i = 0; i < n; ++i)
      for (int k = 0; k < n; ++k) {
        obj += "f " + id(i, k) + " " + id(i, k + 1) + " " + id(i + 1, k + 1) + "\n";
        obj += "f " + id(i, k) + " " + id(i + 1, k + 1) + " " + id(i + 1, k) + "\n";
      }
  } else {
    int next = 1;
    for (int i = 0; i < n; ++i)
      for (int k = 0; k < n; ++k) {
        obj += v(i, k) + v(i, k + 1) + v(i + 1, k + 1) + v(i, k) + v(i + 1, k + 1) + v(i + 1, k);
        for (int t = 0; t < 2; ++t, next += 3)
          obj += "f " + std::to_string(next) + " " + std::to_string(next + 1) + " " + std::to_string(next + 2) + "\n";
      }
  }
  return obj;
}

TEST(Step, WalkingAcrossTessellatedFloorKeepsHeightWithinHalfMillimetre) {
  for (bool welded : {true, false}) {
    const auto loaded = parse_obj(tessellated_floor_obj(welded), welded ? "welded" : "unwelded");
    ASSERT_TRUE(loaded.ok()) << loaded.error;
    const auto world = make_world(loaded.mesh);
    ASSERT_EQ(world->triangle_count(), 12800u);
    const auto run = run_script(*world, {-8, 1.5, -8}, "40 0 0 -\n180 1 0.37 -\n");
    const int landed = first_grounded(run);
    ASSERT_GT(landed, 0);
    double lo = 1e9, hi = -1e9;
    for (size_t i = size_t(landed); i < run.rows.size(); ++i) {
      EXPECT_EQ(run.rows[i].state.ground, GroundKind::kWalkable) << (welded ? "welded" : "unwelded") << " tick " << i;
      lo = std::min(lo, pos(run.rows[i]).y);
      hi = std::max(hi, pos(run.rows[i]).y);
    }
    EXPECT_LE(hi - lo, 0.0005) << (welded ? "welded" : "unwelded");
    EXPECT_GT(pos(run.rows.back()).x, 5.0) << "walked across";
  }
}

void expect_no_flicker(const replay::ScenarioRun& run, int from, const char* what) {
  const double y = pos(run.rows[size_t(from)]).y;
  for (size_t i = size_t(from); i < run.rows.size(); ++i) {
    EXPECT_EQ(run.rows[i].state.ground, GroundKind::kWalkable) << what << " tick " << i;
    EXPECT_EQ(pos(run.rows[i]).y, y) << what << " tick " << i;
  }
}

TEST(Step, PushingIntoSeventyDegreeSlopeDoesNotFlicker) {
  const auto run = run_script(arena_world(), {A::kSlope70.foot_x - 1.5, 1.5, kSlopeZ}, "40 0 0 -\n120 1 0 -\n");
  expect_no_flicker(run, 40, "70-degree slope");
  EXPECT_GT(pos(run.rows.back()).x, A::kSlope70.foot_x - 0.5) << "pressed against the slope";
}

TEST(Step, PushingIntoOverhangDoesNotFlicker) {
  const auto run = run_script(arena_world(), {A::kOverhangX - 2.5, 1.5, 0}, "40 0 0 -\n120 1 0 -\n");
  expect_no_flicker(run, 40, "overhang");
}

double jump_peak(const World& world, const Vec3& spawn, const std::string& script) {
  const auto run = run_script(world, spawn, script);
  double peak = -1e9;
  for (const auto& row : run.rows) peak = std::max(peak, pos(row).y);
  return peak;
}

TEST(Step, JumpGivesJumpSpeedUpward) {
  const MoveSettings s;
  const auto run = run_script(arena_world(), A::kOpenFloor + Vec3{0, 1, 0}, "30 0 0 -\n1 0 0 jump\n90 0 0 -\n");
  EXPECT_NEAR(vel(run.rows[31]).y, s.jump_speed - s.gravity / s.tick_rate, 1e-4);
  EXPECT_EQ(run.rows[31].state.ground, GroundKind::kNone);
  double peak = -1e9;
  for (const auto& row : run.rows) peak = std::max(peak, pos(row).y);
  EXPECT_NEAR(peak - rest_height(), s.jump_speed * s.jump_speed / (2 * s.gravity), 0.02);
  EXPECT_EQ(pos(run.rows.back()).y, rest_height());
}

TEST(Step, JumpIntoSteepWallPeaksNoHigherThanOnFlatGround) {
  const double flat = jump_peak(arena_world(), A::kOpenFloor + Vec3{0, 1, 0}, "30 0 0 -\n1 1 0 jump\n60 1 0 -\n") - rest_height();
  const double slope = jump_peak(arena_world(), {A::kSlope70.foot_x - 1.0, 1.5, kSlopeZ}, "30 0 0 -\n15 1 0 -\n1 1 0 jump\n60 1 0 -\n") - rest_height();
  const double leaning = jump_peak(arena_world(), {A::kLeaningWallX - 1.0, 1.5, 0}, "30 0 0 -\n15 1 0 -\n1 1 0 jump\n60 1 0 -\n") - rest_height();
  EXPECT_GT(flat, 1.0);
  EXPECT_LE(slope, flat);
  EXPECT_LE(leaning, flat);
}

TEST(Step, WalkingOffLedgeFalls) {
  const auto run = run_script(arena_world(), {A::kLedgeX1 - 1, A::kLedgeHeight + 1.5, kStairZ}, "30 0 0 -\n60 1 0 -\n");
  bool fell = false;
  for (size_t i = 30; i < run.rows.size(); ++i) {
    if (pos(run.rows[i]).x > A::kLedgeX1 + 0.5 && run.rows[i].state.ground == GroundKind::kNone) fell = true;
  }
  EXPECT_TRUE(fell);
  EXPECT_NEAR(pos(run.rows.back()).y, rest_height(), 1e-3);
  EXPECT_EQ(run.rows.back().state.ground, GroundKind::kWalkable);
}

TEST(Step, AlwaysGroundTagHoldsCharacterOnSteepSlope) {
  const double x = A::kTaggedSlope60.foot_x + A::kTaggedSlope60.run / 2;
  const auto run = run_script(arena_world(), {x, surface_y(A::kTaggedSlope60, x) + 2, kSlopeZ}, "300 0 0 -\n");
  const int landed = first_grounded(run);
  ASSERT_GT(landed, 0);
  EXPECT_EQ(run.rows.back().state.ground, GroundKind::kTagged);
  EXPECT_LE(max_displacement(run, size_t(landed), run.rows.size() - 1), 0.001);
}

TEST(Step, NeverGroundTagLeavesCharacterAirborneOnFlatPad) {
  const double x = (A::kNeverPadX0 + A::kNeverPadX1) / 2;
  const auto run = run_script(arena_world(), {x, 2, kSlopeZ}, "120 0 0 -\n30 0 0 jump\n");
  for (const auto& row : run.rows) EXPECT_EQ(row.state.ground, GroundKind::kNone) << "tick " << row.tick;
  // It rests on the pad (it does not sink into it) but can neither walk nor jump.
  EXPECT_NEAR(pos(run.rows[120]).y, A::kNeverPadHeight + MoveSettings{}.height / 2, 0.02);
  EXPECT_NEAR(pos(run.rows.back()).y, pos(run.rows[120]).y, 1e-3);
}

TEST(Step, IdenticalInputsGiveIdenticalTraces) {
  const std::string script = "20 0 0 -\n60 1 0.3 -\n1 0.2 1 jump\n80 -0.7 1 -\n40 0 -1 jump\n";
  const Vec3 spawn{A::kStairX0 - 2, 2, kStairZ};
  const auto a = run_script(arena_world(), spawn, script);
  const auto b = run_script(arena_world(), spawn, script);
  EXPECT_EQ(a.rows, b.rows);
}

}  // namespace
}  // namespace foothold::test
