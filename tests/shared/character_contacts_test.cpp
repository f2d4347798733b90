// Characters against characters (docs/movement.md §16): two walking head-on stop at touching
// distance, a crowd pushing into one spot never overlaps beyond the safety margin, overlaps are
// pushed apart symmetrically, and nothing depends on the order the characters are stepped in.

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "shared/step.h"
#include "shared/tolerances.h"
#include "support/scenario_support.h"

namespace foothold::test {
namespace {

using InputFn = std::function<InputCmd(uint32_t tick, std::size_t who)>;

// One tick for every character, as the server runs it: each steps against the others as they were
// at the start of the tick (Crowd), in the order `order` gives.
std::vector<StepResult> tick_all(const World& w, const DerivedSettings& s, std::vector<CharacterState>& states,
                                 uint32_t t, const InputFn& input, const std::vector<std::size_t>& order) {
  std::vector<OtherCharacter> all;
  for (std::size_t i = 0; i < states.size(); ++i) all.push_back(as_other(uint32_t(i + 1), states[i]));
  MoverFrame frame;
  frame.build(w, t, s.tick_rate);
  Crowd crowd;
  crowd.build(all, &frame);
  std::vector<CharacterState> next(states.size());
  std::vector<StepResult> results(states.size());
  StepScratch scratch;
  std::vector<OtherCharacter> near;
  for (std::size_t i : order) {
    crowd.neighbours(i, near);
    results[i] = step(states[i], input(t, i), w, s, scratch, {nullptr, near, uint32_t(i + 1)});
    next[i] = results[i].state;
  }
  states = next;
  return results;
}

std::vector<std::size_t> in_order(std::size_t n) {
  std::vector<std::size_t> o(n);
  for (std::size_t i = 0; i < n; ++i) o[i] = i;
  return o;
}

// The deepest overlap between any two capsules (metres; 0 when none overlaps).
double worst_overlap(const std::vector<CharacterState>& states, const DerivedSettings& s) {
  double worst = 0;
  for (std::size_t i = 0; i < states.size(); ++i)
    for (std::size_t j = i + 1; j < states.size(); ++j) {
      const Vec3 a = to_position(states[i].position), b = to_position(states[j].position);
      const double ha = states[i].crouched ? s.crouch_half_segment : s.half_segment;
      const double hb = states[j].crouched ? s.crouch_half_segment : s.half_segment;
      const double lo = std::fmax(a.y - ha, b.y - hb), hi = std::fmin(a.y + ha, b.y + hb);
      const double dy = lo <= hi ? 0 : lo - hi;
      const double d = std::sqrt(length_sq(horizontal(a - b)) + dy * dy);
      worst = std::fmax(worst, 2 * s.radius - d);
    }
  return worst;
}

TEST(CharacterContacts, TwoWalkingHeadOnStopAtTouchingDistance) {
  const DerivedSettings s = derive(MoveSettings{});
  const Vec3 o = arena::kOpenFloor;
  std::vector<CharacterState> st{spawn_state(o + Vec3{-1.5, rest_height(), 0}), spawn_state(o + Vec3{1.5, rest_height(), 0})};
  const InputFn walk = [](uint32_t t, std::size_t i) { return encode_move(i == 0 ? 1 : -1, 0, 0, t); };
  double worst = 0;
  int near_ticks = 0;
  for (uint32_t t = 1; t <= 120; ++t) {
    const auto r = tick_all(arena_world(), s, st, t, walk, in_order(2));
    worst = std::fmax(worst, worst_overlap(st, s));
    near_ticks += r[0].diagnostics.characters_near > 0;
  }
  EXPECT_LE(worst, s.safety_margin);
  const double d = length(horizontal(to_position(st[0].position) - to_position(st[1].position)));
  EXPECT_GE(d, 2 * s.radius - s.safety_margin);
  EXPECT_LE(d, 2 * s.radius + s.contact_distance) << "they end touching, not short of each other";
  EXPECT_GT(near_ticks, 0);
  // Symmetric: the same distance from the spot they started either side of.
  EXPECT_NEAR(to_position(st[0].position).x - o.x, o.x - to_position(st[1].position).x, 2 * kPositionQuantum);
}

TEST(CharacterContacts, ACrowdOfSixteenPushingIntoOneSpotNeverOverlapsBeyondTheMargin) {
  const DerivedSettings s = derive(MoveSettings{});
  const Vec3 o = arena::kOpenFloor;
  std::vector<CharacterState> st;
  for (int i = 0; i < 16; ++i) {
    const double a = i * (2 * 3.14159265358979 / 16);
    st.push_back(spawn_state(o + Vec3{4 * std::cos(a), rest_height(), 4 * std::sin(a)}));
  }
  const std::vector<CharacterState> start = st;
  const InputFn to_centre = [&](uint32_t t, std::size_t i) {
    const Vec3 d = o - to_position(start[i].position);
    return encode_move(d.x, d.z, 0, t);
  };
  double worst = 0;
  for (uint32_t t = 1; t <= 180; ++t) {
    tick_all(arena_world(), s, st, t, to_centre, in_order(16));
    worst = std::fmax(worst, worst_overlap(st, s));
  }
  EXPECT_LE(worst, s.safety_margin);
  // They did crowd in from 4 m: sixteen capsules of 0.8 m side by side close a ring of 12.8 m, whose
  // radius is 2.04 m; they jam within a few centimetres of it.
  for (const auto& c : st) EXPECT_LT(length(horizontal(to_position(c.position) - o)), 2.2);
}

TEST(CharacterContacts, TheResultDoesNotDependOnTheOrderCharactersAreSteppedIn) {
  const DerivedSettings s = derive(MoveSettings{});
  const Vec3 o = arena::kOpenFloor;
  std::vector<CharacterState> a;
  for (int i = 0; i < 8; ++i) a.push_back(spawn_state(o + Vec3{0.5 * i, rest_height(), 0.3 * (i % 3)}));
  std::vector<CharacterState> b = a;
  const InputFn jostle = [](uint32_t t, std::size_t i) {
    return encode_move(((t / 20 + i) % 3) - 1.0, ((t / 30 + 2 * i) % 3) - 1.0, (t + i) % 47 == 0 ? kButtonJump : 0, t);
  };
  std::vector<std::size_t> reversed = in_order(8);
  std::reverse(reversed.begin(), reversed.end());
  for (uint32_t t = 1; t <= 240; ++t) {
    tick_all(arena_world(), s, a, t, jostle, in_order(8));
    tick_all(arena_world(), s, b, t, jostle, reversed);
    ASSERT_EQ(a, b) << "tick " << t;
  }
}

TEST(CharacterContacts, TwoSpawnedOnTheSameSpotArePushedApartSymmetrically) {
  const DerivedSettings s = derive(MoveSettings{});
  const Vec3 p = arena::kOpenFloor + Vec3{0, rest_height(), 0};
  std::vector<CharacterState> st{spawn_state(p), spawn_state(p)};
  const InputFn idle_input = [](uint32_t t, std::size_t) { return encode_move(0, 0, 0, t); };
  for (uint32_t t = 1; t <= 30; ++t) tick_all(arena_world(), s, st, t, idle_input, in_order(2));
  EXPECT_LE(worst_overlap(st, s), s.safety_margin);
  const Vec3 a = to_position(st[0].position), b = to_position(st[1].position);
  EXPECT_NEAR(a.x - p.x, p.x - b.x, 2 * kPositionQuantum);
  EXPECT_GT(b.x, a.x) << "the higher id (2, the second) goes toward +X";
}

TEST(CharacterContacts, TouchingAnotherCharacterIsReportedAsACharacterTouch) {
  const DerivedSettings s = derive(MoveSettings{});
  const Vec3 o = arena::kOpenFloor;
  std::vector<CharacterState> st{spawn_state(o + Vec3{-1, rest_height(), 0}), spawn_state(o + Vec3{1, rest_height(), 0})};
  const InputFn walk = [](uint32_t t, std::size_t i) { return encode_move(i == 0 ? 1 : 0, 0, 0, t); };
  bool touched = false;
  for (uint32_t t = 1; t <= 60; ++t) {
    const auto r = tick_all(arena_world(), s, st, t, walk, in_order(2));
    for (int k = 0; k < r[0].touches.size(); ++k)
      touched |= r[0].touches[k].kind == TouchKind::kCharacter && r[0].touches[k].character == 2;
  }
  EXPECT_TRUE(touched);
}

// A fence is one triangle that sweeps take as its whole plane; its bounds decide which queries see
// it, and a sweep's stop is measured to it. Found while making it one triangle: half the square (its
// diagonal through the character) had bounds that missed a tilted fence's far corner, so a query
// box beside the character could leave it out. Every point of the plane within kFenceHalfSize of
// the centre must lie inside the triangle and inside its bounds, whatever the tilt.
TEST(CharacterContacts, AFenceTriangleHoldsEveryPointWithinItsHalfSizeWhateverItsTilt) {
  std::mt19937 rng(7);
  auto uni = [&](double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng); };
  const double h = tolerance::kFenceHalfSize;
  for (int k = 0; k < 2000; ++k) {
    // Upright, tilted, nearly flat and flat normals, either way up.
    Vec3 n{uni(-1, 1), k % 4 == 0 ? uni(-0.05, 0.05) : k % 4 == 1 ? uni(-1, 1) : (k % 2 ? 1.0 : -1.0) * uni(0.995, 1), uni(-1, 1)};
    if (k % 97 == 0) n = {0, 1, 0};
    n = normalized_or_zero(n);
    const Vec3 centre{uni(-100, 100), uni(-10, 10), uni(-100, 100)};
    const WorldTriangle t = fence_triangle(centre, n);
    ASSERT_GT(dot(t.tri.normal, n), 1 - 1e-12) << "faces the character";
    ASSERT_EQ(t.tag, SurfaceTag::kNeverGround);
    // Any in-plane direction: the part of a random vector across the normal.
    for (int j = 0; j < 8; ++j) {
      const Vec3 d = normalized_or_zero(reject(Vec3{uni(-1, 1), uni(-1, 1), uni(-1, 1)}, n));
      const Vec3 p = centre + d * (h * uni(0, 0.999));
      ASSERT_LT(length(closest_point_on_triangle(p, t.tri.a, t.tri.b, t.tri.c) - p), 1e-9) << "inside the triangle";
      ASSERT_TRUE(p.x >= t.lo.x && p.x <= t.hi.x && p.y >= t.lo.y && p.y <= t.hi.y && p.z >= t.lo.z && p.z <= t.hi.z)
          << "inside its bounds";
    }
  }
}

// The Crowd gives each step only the characters near it; a client passes every character of its
// snapshot. Both must step alike, or a prediction parts from the server's step. So must a step that
// asks the Crowd itself, for only those within its own reach (the server's tick does that).
// Exercised where the
// Crowd's cut is closest to mattering: characters falling fast (whose reach makes the step keep
// others almost kNeighbourRange away), pairs spaced across kNeighbourRange, and riders of the
// shuttle and the turntable (whose carry the Crowd allows 1 m for).
TEST(CharacterContacts, TheCrowdsNeighboursStepExactlyAsEveryCharacterWould) {
  const World& w = arena_world();
  const DerivedSettings s = derive(MoveSettings{});
  std::mt19937 rng(20261124);
  auto uni = [&](double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng); };
  const Vec3 o = arena::kOpenFloor;
  std::vector<CharacterState> st;
  for (int i = 0; i < 8; ++i) {
    // Standing in pairs 2.95 to 3.05 m apart, and above each pair one falling from up to 12 m, a
    // little under kNeighbourRange to the side.
    const Vec3 base = o + Vec3{4.0 * (i % 4) - 6, rest_height(), 8.0 * (i / 4) - 4};
    const double apart = 2.95 + 0.1 * uni(0, 1);
    st.push_back(spawn_state(base));
    st.push_back(spawn_state(base + Vec3{apart, 0, 0}));
    st.push_back(spawn_state(base + Vec3{uni(2.5, 2.95), uni(4, 12), uni(-0.5, 0.5)}));
  }
  for (int i = 0; i < 12; ++i) {
    const Vec3 centre = i % 2 ? Vec3{arena::kShuttleX0, 0, arena::kShuttleZ} : Vec3{arena::kTurntableX, 0, arena::kTurntableZ};
    st.push_back(spawn_state(centre + Vec3{uni(-2.5, 2.5), 0.2 + rest_height() + uni(0, 1), uni(-2.5, 2.5)}));
  }
  const std::size_t n = st.size();
  MoverFrame frame;
  StepScratch scratch;
  Crowd crowd;
  std::vector<OtherCharacter> all, near, everyone;
  int cut = 0, cut_by_reach = 0, fast_near = 0, riders = 0;
  for (uint32_t t = 1; t <= 240; ++t) {
    frame.build(w, t, s.tick_rate);
    all.clear();
    for (std::size_t i = 0; i < n; ++i) all.push_back(as_other(uint32_t(i + 1), st[i]));
    crowd.build(all, &frame);
    std::vector<CharacterState> next(n);
    for (std::size_t i = 0; i < n; ++i) {
      const double r = uni(0, 1);
      const InputCmd in = encode_move(uni(-1, 1), uni(-1, 1), uint8_t(r < 0.03 ? kButtonJump : 0), t);
      crowd.neighbours(i, near);
      everyone.clear();
      for (std::size_t j = 0; j < n; ++j)
        if (j != i) everyone.push_back(all[j]);
      const StepResult by_crowd = step(st[i], in, w, s, scratch, {&frame, near, uint32_t(i + 1)});
      const StepResult by_all = step(st[i], in, w, s, scratch, {&frame, everyone, uint32_t(i + 1)});
      ASSERT_EQ(by_crowd.state, by_all.state) << "tick " << t << " character " << i + 1;
      ASSERT_EQ(by_crowd.diagnostics.characters_near, by_all.diagnostics.characters_near) << "tick " << t;
      ASSERT_EQ(by_crowd.touches.size(), by_all.touches.size()) << "tick " << t;
      const StepResult by_reach = step(st[i], in, w, s, scratch, {&frame, {}, uint32_t(i + 1), &crowd, i});
      ASSERT_EQ(by_reach.state, by_all.state) << "tick " << t << " character " << i + 1;
      ASSERT_EQ(by_reach.diagnostics.characters_near, by_all.diagnostics.characters_near) << "tick " << t;
      ASSERT_EQ(by_reach.touches.size(), by_all.touches.size()) << "tick " << t;
      for (int k = 0; k < by_reach.touches.size(); ++k)
        ASSERT_EQ(by_reach.touches[k].character, by_all.touches[k].character) << "tick " << t;
      cut += near.size() < everyone.size();
      cut_by_reach += scratch.near.size() < near.size();
      fast_near += by_all.diagnostics.characters_near > 0 && to_velocity(st[i].velocity).y < -5;
      riders += st[i].platform != 0;
      next[i] = by_crowd.state;
    }
    st = next;
  }
  // The run did reach what it is for: the Crowd left characters out, fast fallers met others, and
  // characters rode the movers.
  EXPECT_GT(cut, 1000);
  EXPECT_GT(cut_by_reach, 1000);
  EXPECT_GT(fast_near, 10);
  EXPECT_GT(riders, 500);
}

// The Crowd sorts its index starting from the last build's order (only the speed depends on it): a
// crowd rebuilt tick after tick, characters crossing cells, joining and leaving, must index and
// answer exactly as one built afresh each tick.
TEST(CharacterContacts, ACrowdRebuiltEachTickIndexesAsANewOne) {
  std::mt19937 rng(11);
  auto uni = [&](double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng); };
  std::vector<Vec3> at;
  for (int i = 0; i < 300; ++i) at.push_back({uni(-20, 20), 1, uni(-20, 20)});
  Crowd reused;
  std::vector<OtherCharacter> all, from_reused, from_fresh;
  int crossed = 0;
  for (uint32_t t = 1; t <= 60; ++t) {
    if (t % 20 == 0) at.resize(at.size() - 7);                               // some leave
    if (t % 20 == 10) for (int k = 0; k < 5; ++k) at.push_back({uni(-20, 20), 1, uni(-20, 20)});  // some join
    for (Vec3& p : at) {
      const Vec3 was = p;
      p += Vec3{uni(-0.4, 0.4), 0, uni(-0.4, 0.4)};
      crossed += std::floor(was.x / 4) != std::floor(p.x / 4) || std::floor(was.z / 4) != std::floor(p.z / 4);
    }
    all.clear();
    for (uint32_t i = 0; i < at.size(); ++i) all.push_back(as_other(i + 1, spawn_state(at[i])));
    reused.build(all, nullptr);
    Crowd fresh;
    fresh.build(all, nullptr);
    for (std::size_t i = 0; i < all.size(); ++i) {
      ASSERT_EQ(reused.in_cell_order(i), fresh.in_cell_order(i)) << "tick " << t << " entry " << i;
      reused.neighbours(i, from_reused);
      fresh.neighbours(i, from_fresh);
      ASSERT_EQ(from_reused, from_fresh) << "tick " << t << " character " << i + 1;
    }
  }
  EXPECT_GT(crossed, 500) << "characters did cross cells, so the last order was out of date";
}

// A mover may carry its riders any distance in a tick (a STEP sampler jumps). The Crowd once found
// neighbours by published positions with 1 m to spare for the carry, so a rider carried farther
// than that next to another character was left out of its list, while a client, passing every
// character, kept it: the two steps parted (here in characters_near, which marks an interaction).
// The Crowd now indexes where the steps see everyone, after the carry.
TEST(CharacterContacts, TheCrowdFindsARiderWhereAFastMoverCarriesIt) {
  MeshBuilder b;
  b.floor_grid(-30, -30, 30, 30, 0, 2);
  TriangleMesh mesh = b.take();
  MoverMesh slab;
  slab.name = "jumper";
  MeshBuilder sb;
  sb.box({-1.5, 0, -1.5}, {1.5, 0.2, 1.5});
  slab.mesh = sb.take();
  Channel c;
  c.interpolation = Channel::Interpolation::kStep;
  c.times = {0, 0.5};
  c.values = {-10, 0, 0, 10, 0, 0};
  c.period = 1;  // half a second at x = -10, half a second at x = +10
  slab.chain.push_back(Link{Pose{}, {c}});
  mesh.movers.push_back(std::move(slab));
  auto built = World::create(mesh, "jumper");
  ASSERT_TRUE(built.world) << built.error;
  const World& w = *built.world;
  const DerivedSettings s = derive(MoveSettings{});
  // A rider on the slab, and one standing beside where the slab lands.
  std::vector<CharacterState> st{spawn_state({-10, 0.2 + rest_height(), 0}), spawn_state({12, rest_height(), 0})};
  MoverFrame frame;
  StepScratch scratch;
  Crowd crowd;
  std::vector<OtherCharacter> all, near, everyone;
  int carried_far = 0;
  for (uint32_t t = 1; t <= 120; ++t) {
    frame.build(w, t, s.tick_rate);
    all = {as_other(1, st[0]), as_other(2, st[1])};
    crowd.build(all, &frame);
    std::vector<CharacterState> next(2);
    for (std::size_t i = 0; i < 2; ++i) {
      const InputCmd in = encode_move(0, 0, 0, t);
      crowd.neighbours(i, near);
      everyone = {all[1 - i]};
      const StepResult by_crowd = step(st[i], in, w, s, scratch, {&frame, near, uint32_t(i + 1)});
      const StepResult by_all = step(st[i], in, w, s, scratch, {&frame, everyone, uint32_t(i + 1)});
      ASSERT_EQ(by_crowd.state, by_all.state) << "tick " << t << " character " << i + 1;
      ASSERT_EQ(by_crowd.diagnostics.characters_near, by_all.diagnostics.characters_near) << "tick " << t;
      next[i] = by_crowd.state;
    }
    // The case the test is for: published far apart, seen within reach after the carry.
    const double published = length(horizontal(to_position(all[0].position) - to_position(all[1].position)));
    const double seen = length(horizontal(seen_centre(all[0], &frame) - seen_centre(all[1], &frame)));
    carried_far += published > kNeighbourRange + 1 && seen < kNeighbourRange;
    st = next;
  }
  EXPECT_GT(carried_far, 0) << "the slab carried its rider next to the other";
  EXPECT_EQ(st[0].platform, 1) << "the rider still rides";
}

// Crowd::neighbours() against every pair: the same characters, ascending id, for crowds dense and
// thin (whose cells the index finds from a table of runs) and for groups of four spread over
// hundreds of kilometres (too many cells for the table: it searches), at every range a step asks with.
TEST(CharacterContacts, TheCrowdsNeighboursAreEveryoneWithinRange) {
  std::mt19937 random(7);
  auto coordinate = [&](int32_t span_m) { return int32_t(random() % uint32_t(span_m * 1024)) - span_m * 512; };
  struct Case {
    int characters;
    int32_t span_m;  // the square their groups stand in, metres
    int group;       // characters to a group, within 4 m of its centre
  };
  for (const Case& c : {Case{600, 30, 1}, Case{300, 200, 1}, Case{40, 4, 1}, Case{120, 400000, 4}}) {
    std::vector<OtherCharacter> all;
    FixedVec3 centre;
    for (int k = 0; k < c.characters; ++k) {
      if (k % c.group == 0) centre = {coordinate(c.span_m), 0, coordinate(c.span_m)};
      const FixedVec3 at = c.group == 1 ? centre : FixedVec3{centre.x + coordinate(4), 0, centre.z + coordinate(4)};
      all.push_back({uint32_t(3 * k + 1), {at.x, int32_t(random() % 4096), at.z}, false, 0});
    }
    Crowd crowd;
    crowd.build(all, nullptr);
    std::vector<OtherCharacter> near;
    std::size_t found = 0;
    for (const double range : {0.5, 1.3, kNeighbourRange, 10.0}) {
      const double within = std::min(range, kNeighbourRange) + 1.0 / 64;
      for (std::size_t i = 0; i < all.size(); ++i) {
        std::vector<OtherCharacter> expected;
        const Vec3 me = to_position(all[i].position);
        for (std::size_t j = 0; j < all.size(); ++j) {
          const Vec3 p = to_position(all[j].position);
          const double ex = p.x - me.x, ez = p.z - me.z;
          if (j != i && ex * ex + ez * ez <= within * within) expected.push_back(all[j]);
        }
        crowd.neighbours(i, near, range);
        ASSERT_EQ(near, expected) << c.characters << " in " << c.span_m << " m, character " << i << ", range " << range;
        found += near.size();
      }
    }
    EXPECT_GT(found, 0u) << "the crowd of " << c.characters << " has neighbours to find";
  }
}

}  // namespace
}  // namespace foothold::test
