// Movers (docs/movement.md §15.1-§15.3): poses as pure functions of the tick, riding each kind of
// arena mover idle and walking, an elevator's reversal, the velocity kept on jumping off, a mover
// pushing a character, and the crush rule.

#include <cmath>
#include <random>
#include <string>

#include <gtest/gtest.h>

#include "shared/step.h"
#include "support/scenario_support.h"

namespace foothold::test {
namespace {

int mover_index(const World& w, const std::string& name) {
  for (std::size_t m = 0; m < w.movers().size(); ++m)
    if (w.movers()[m].name == name) return int(m);
  ADD_FAILURE() << "no mover named " << name;
  return 0;
}

// The deepest overlap of the character (standing capsule) with anything at tick `tick`, metres (0: none).
double overlap_at(const World& w, const DerivedSettings& s, uint32_t tick, const Vec3& p) {
  MoverFrame frame;
  frame.build(w, tick, s.tick_rate);
  std::vector<uint32_t> candidates;
  ContactQueries q(w, s, candidates, &frame);
  ContactList contacts;
  q.contacts(p, 0, contacts);
  return contacts.size() > 0 && contacts[0].gap < 0 ? -contacts[0].gap : 0;
}

// A character placed `local` (its capsule centre, in the mover's axes) on mover m at tick 0.
CharacterState on_mover(const World& w, int m, const Vec3& local) {
  return spawn_state(apply(chain_pose(w.movers()[size_t(m)].chain, 0, 60), local));
}

struct Ride {
  CharacterState state;
  int ungrounded_after_landing = 0;  // ticks after the first grounded one that were not grounded
  int on_platform_ticks = 0;
  FixedVec3 first_offset;            // the offset on the first tick on the platform
  double worst_overlap = 0;
};

// Steps `ticks` ticks with input(t) from `st`, watching grounding, the platform and overlaps.
template <class Input>
Ride ride(const World& w, CharacterState st, int ticks, Input input, const MoveSettings& ms = {}) {
  const DerivedSettings s = derive(ms);
  StepScratch scratch;
  Ride r;
  bool landed = false;
  for (uint32_t t = 1; t <= uint32_t(ticks); ++t) {
    st = step(st, input(t), w, s, scratch).state;
    if (landed && !is_grounded(st.ground)) ++r.ungrounded_after_landing;
    landed |= is_grounded(st.ground);
    if (st.platform != 0 && r.on_platform_ticks++ == 0) r.first_offset = st.platform_offset;
    r.worst_overlap = std::fmax(r.worst_overlap, overlap_at(w, s, t, to_position(st.position)));
  }
  r.state = st;
  return r;
}

auto idle = [](uint32_t t) { return encode_move(0, 0, 0, t); };

double offset_drift(const Ride& r) {
  return length(to_position(r.state.platform_offset) - to_position(r.first_offset));
}

TEST(MoverPose, IsAPureFunctionOfTheTickAndTurnsTheTurntableAt45DegreesASecond) {
  const World& w = arena_world();
  const auto& table = w.movers()[size_t(mover_index(w, "turntable"))];
  const Pose at1s = chain_pose(table.chain, 60, 60);
  const Vec3 x = rotate(at1s.rotation, {1, 0, 0});
  EXPECT_NEAR(x.x, std::sqrt(0.5), 1e-12);
  EXPECT_NEAR(x.z, -std::sqrt(0.5), 1e-12);  // +45° about +Y takes +X toward -Z
  EXPECT_EQ(at1s, chain_pose(table.chain, 60, 60));
  // The loop: 8 s later it is the same rotation (q or -q).
  const Pose later = chain_pose(table.chain, 60 + 8 * 60, 60);
  const Vec3 x2 = rotate(later.rotation, {1, 0, 0});
  EXPECT_NEAR(x2.x, x.x, 1e-12);
  EXPECT_NEAR(x2.z, x.z, 1e-12);
  // Half a tick rate: the same instant is the same pose.
  EXPECT_EQ(chain_pose(table.chain, 30, 30), at1s);
}

TEST(MoverPose, TheShuttleRunsAtThreeMetresASecondAndWaitsAtTheEnds) {
  const World& w = arena_world();
  const auto& shuttle = w.movers()[size_t(mover_index(w, "shuttle"))];
  const double x0 = chain_pose(shuttle.chain, 120, 60).translation.x;
  const double x1 = chain_pose(shuttle.chain, 180, 60).translation.x;
  EXPECT_NEAR(x1 - x0, arena::kShuttleSpeed, 1e-9);
  EXPECT_EQ(chain_pose(shuttle.chain, 10, 60).translation.x, arena::kShuttleX0);
}

TEST(Riding, IdleOnTheShuttleStaysGroundedWithoutDrift) {
  const World& w = arena_world();
  const int m = mover_index(w, "shuttle");
  const Ride r = ride(w, on_mover(w, m, {0.3, arena::kMoverThickness + rest_height(), -0.2}), 600, idle);
  EXPECT_EQ(r.ungrounded_after_landing, 0);
  EXPECT_GE(r.on_platform_ticks, 595);
  EXPECT_EQ(r.state.platform, m + 1);
  EXPECT_LE(offset_drift(r), 0.01);
  EXPECT_LE(r.worst_overlap, 0.0);
}

TEST(Riding, IdleOnTheElevatorThroughItsReversalsStaysGroundedWithoutDrift) {
  const World& w = arena_world();
  const int m = mover_index(w, "elevator");
  // 10 s: up, wait, down (the reversal at the top), back at the bottom, and up again.
  const Ride r = ride(w, on_mover(w, m, {2, arena::kMoverThickness + rest_height(), 1.25}), 600, idle);
  EXPECT_EQ(r.ungrounded_after_landing, 0);
  EXPECT_GE(r.on_platform_ticks, 595);
  EXPECT_LE(offset_drift(r), 0.01);
  EXPECT_LE(r.worst_overlap, 0.0);
}

TEST(Riding, IdleOnTheTurntableTurnsWithItWithoutDrift) {
  const World& w = arena_world();
  const int m = mover_index(w, "turntable");
  const Vec3 local{1.2, arena::kMoverThickness + rest_height(), 0.5};
  const Ride r = ride(w, on_mover(w, m, local), 600, idle);
  EXPECT_EQ(r.ungrounded_after_landing, 0);
  EXPECT_LE(offset_drift(r), 0.01);
  // After 10 s (450°, a quarter turn past a whole one) the world position is the offset turned.
  const Vec3 expect = apply(chain_pose(w.movers()[size_t(m)].chain, 600, 60), to_position(r.state.platform_offset));
  EXPECT_LE(length(to_position(r.state.position) - expect), 0.001);
  // The offset it landed at (the table turned while it fell onto it), turned with the table.
  const Vec3 rotated_landing = apply(chain_pose(w.movers()[size_t(m)].chain, 600, 60), to_position(r.first_offset));
  EXPECT_LE(length(to_position(r.state.position) - rotated_landing), 0.01);
}

TEST(Riding, WalkingOnTheShuttleGoesAtWalkSpeedRelativeToIt) {
  const World& w = arena_world();
  const int m = mover_index(w, "shuttle");
  const MoveSettings ms;
  // Settle for 1 s (the shuttle starts its run), then walk across it (+Z) for 20 ticks.
  const CharacterState start = on_mover(w, m, {0, arena::kMoverThickness + rest_height(), -1.2});
  const Ride settled = ride(w, start, 90, idle);
  ASSERT_EQ(settled.state.platform, m + 1);
  const DerivedSettings s = derive(ms);
  StepScratch scratch;
  CharacterState st = settled.state;
  for (uint32_t t = 91; t <= 110; ++t) st = step(st, encode_move(0, 1, 0, t), w, s, scratch).state;
  ASSERT_EQ(st.platform, m + 1);
  const Vec3 moved = to_position(st.platform_offset) - to_position(settled.state.platform_offset);
  EXPECT_NEAR(moved.z, ms.walk_speed * 20 / 60, 0.01);
  EXPECT_NEAR(moved.x, 0, 0.002);
}

// The same on the elevator (while it rises) and on the turntable (while it turns under the walker):
// the offset in the mover's own axes moves at walk speed, whatever the mover does.
TEST(Riding, WalkingOnTheElevatorAndTheTurntableGoesAtWalkSpeedRelativeToThem) {
  const World& w = arena_world();
  const MoveSettings ms;
  const DerivedSettings s = derive(ms);
  for (const char* name : {"elevator", "turntable"}) {
    SCOPED_TRACE(name);
    const int m = mover_index(w, name);
    const Vec3 local = std::string(name) == "elevator" ? Vec3{1, 0, 0.6} : Vec3{-1, 0, -1};
    const Ride settled = ride(w, on_mover(w, m, local + Vec3{0, arena::kMoverThickness + rest_height(), 0}), 75, idle);
    ASSERT_EQ(settled.state.platform, m + 1);
    StepScratch scratch;
    CharacterState st = settled.state;
    for (uint32_t t = 76; t <= 95; ++t) st = step(st, encode_move(1, 0, 0, t), w, s, scratch).state;
    ASSERT_EQ(st.platform, m + 1);
    ASSERT_TRUE(is_grounded(st.ground));
    const Vec3 moved = to_position(st.platform_offset) - to_position(settled.state.platform_offset);
    // The turntable turns 15° under the walker in those 20 ticks: its path on the table is an arc,
    // whose chord is a little shorter than the distance walked.
    EXPECT_NEAR(length(moved), ms.walk_speed * 20 / 60, 0.02 * ms.walk_speed * 20 / 60);
    EXPECT_NEAR(moved.y, 0, 0.002) << "its height on the mover does not change";
  }
}

TEST(Riding, JumpingOffTheShuttleKeepsItsVelocity) {
  const World& w = arena_world();
  const int m = mover_index(w, "shuttle");
  const Ride settled = ride(w, on_mover(w, m, {0, arena::kMoverThickness + rest_height(), 0}), 120, idle);
  ASSERT_EQ(settled.state.platform, m + 1);
  const DerivedSettings s = derive(MoveSettings{});
  StepScratch scratch;
  const StepResult r = step(settled.state, encode_move(0, 0, kButtonJump, 121), w, s, scratch);
  ASSERT_TRUE(r.diagnostics.jumped);
  EXPECT_EQ(r.state.platform, 0);
  EXPECT_NEAR(to_velocity(r.state.velocity).x, arena::kShuttleSpeed, 0.01);
  // In the air it keeps going with the shuttle: 10 ticks later it is still above it.
  CharacterState st = r.state;
  for (uint32_t t = 122; t <= 131; ++t) st = step(st, encode_move(0, 0, 0, t), w, s, scratch).state;
  const double shuttle_x = chain_pose(w.movers()[size_t(m)].chain, 131, 60).translation.x;
  EXPECT_NEAR(to_position(st.position).x, shuttle_x, 0.05);
}

TEST(MoverPush, TheShuttlePushesACharacterInItsWayAndNeverOverlapsIt) {
  const World& w = arena_world();
  // Standing on the floor just inside the end of the shuttle's run (its edge reaches x1 + 1.5).
  const CharacterState st = spawn_state({arena::kShuttleX1 + 1.5, rest_height(), arena::kShuttleZ});
  const Ride r = ride(w, st, 8 * 60, idle);
  EXPECT_LE(r.worst_overlap, 0.0);
  const Vec3 p = to_position(r.state.position);
  // Pushed clear of the shuttle's end position, or carried on top of it.
  EXPECT_TRUE(p.x >= arena::kShuttleX1 + 1.5 + MoveSettings{}.radius - 0.02 || r.state.platform != 0) << p.x;
}

// The step asks mover_within() before looking for a mover's push (§15.3): a false answer must mean
// that no contact of the character there is a mover's triangle. Points strewn around every arena
// mover's bounds (beyond them by up to a capsule and a third of a metre) at ticks across their runs.
TEST(MoverPush, MoverWithinNeverMissesAMoverContact) {
  const World& w = arena_world();
  const DerivedSettings s = derive(MoveSettings{});
  std::mt19937 random(43);  // integers only: the same points with every standard library
  auto between = [&](double lo, double hi) { return lo + (hi - lo) * double(random() % 10001) / 10000; };
  int with_mover_contact = 0, near_without_contact = 0, far = 0;
  for (uint32_t tick = 0; tick < 8 * 60; tick += 60) {
    MoverFrame frame;
    frame.build(w, tick, s.tick_rate);
    std::vector<uint32_t> candidates;
    ContactQueries q(w, s, candidates, &frame);
    ContactList contacts;
    for (std::size_t m = 0; m < frame.mover_count(); ++m) {
      const Aabb& b = frame.bounds(m);
      const double out = s.radius + 0.33, out_y = s.half_segment + s.radius + 0.33;
      for (int k = 0; k < 1500; ++k) {
        const Vec3 p{between(b.lo.x - out, b.hi.x + out), between(b.lo.y - out_y, b.hi.y + out_y),
                     between(b.lo.z - out, b.hi.z + out)};
        q.contacts(p, s.contact_distance, contacts);
        bool mover_contact = false;
        for (int i = 0; i < contacts.size(); ++i) mover_contact |= q.mover_of(contacts[i].triangle) >= 0;
        const bool within = q.mover_within(p, s.contact_distance);
        if (mover_contact) {
          ASSERT_TRUE(within) << "tick " << tick << " at " << p.x << ", " << p.y << ", " << p.z;
          ++with_mover_contact;
        } else if (within) {
          ++near_without_contact;  // in the box, not in reach (or behind a face): the check is conservative
        } else {
          ++far;
        }
      }
    }
  }
  // The samples cover all three cases: contacts with a mover, its box only, and far from every one.
  EXPECT_GT(with_mover_contact, 200);
  EXPECT_GT(near_without_contact, 200);
  EXPECT_GT(far, 200);
}

// A slab that rises 1.5 m under a low static roof, for the crush rule.
std::unique_ptr<World> crusher_world() {
  MeshBuilder b;
  b.floor_grid(-10, -10, 10, 10, 0, 2);
  b.box({-3, 2.4, -3}, {3, 3, 3});  // the roof: 2.4 m above the floor
  TriangleMesh mesh = b.take();
  MeshBuilder slab;
  slab.box({-1, 0, -1}, {1, 0.2, 1});
  MoverMesh m;
  m.name = "crusher";
  m.mesh = slab.take();
  Channel c;
  c.times = {0, 1, 2};
  c.values = {0, 0, 0, 0, 0, 0, 0, 1.5, 0};
  c.period = 2;
  m.chain.push_back(Link{Pose{}, {c}});
  mesh.movers.push_back(m);
  return make_world(std::move(mesh), "crusher");
}

TEST(MoverCrush, ACharacterPressedIntoTheRoofGoesToTheNearestFreeSpotAbove) {
  const auto w = crusher_world();
  const DerivedSettings s = derive(MoveSettings{});
  StepScratch scratch;
  CharacterState st = spawn_state({0, 0.2 + rest_height(), 0});
  bool crushed = false;
  for (uint32_t t = 1; t <= 120 && !crushed; ++t) {
    const StepResult r = step(st, encode_move(0, 0, 0, t), *w, s, scratch);
    st = r.state;
    crushed = r.diagnostics.crushed;
    EXPECT_LE(overlap_at(*w, s, t, to_position(st.position)), 0.0) << "tick " << t;
  }
  ASSERT_TRUE(crushed);
  // Above the roof (its top at 3 m): the first free spot straight up.
  EXPECT_GT(to_position(st.position).y - s.half_segment - s.radius, 3 - 0.05);
}

TEST(MoverFrame, AGivenFrameAndABuiltOneGiveTheSameStep) {
  const World& w = arena_world();
  const int m = mover_index(w, "turntable");
  CharacterState st = on_mover(w, m, {1, arena::kMoverThickness + rest_height(), 1});
  const DerivedSettings s = derive(MoveSettings{});
  StepScratch a, b;
  MoverFrame frame;
  CharacterState other = st;
  for (uint32_t t = 1; t <= 120; ++t) {
    frame.build(w, t, s.tick_rate);
    st = step(st, encode_move(0.5, 0, 0, t), w, s, a, {&frame, {}, 0}).state;
    other = step(other, encode_move(0.5, 0, 0, t), w, s, b).state;
    ASSERT_EQ(st, other) << "tick " << t;
  }
}

}  // namespace
}  // namespace foothold::test
