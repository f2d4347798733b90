// Randomised stress: random walks with jumps through random clutter. Whatever the inputs, no tick
// ends with the capsule inside geometry deeper than the safety margin, nothing falls through the
// floor, and the ground state stored in the state is what grounding finds at the rounded position.
//
// Seeds are printed on failure; FOOTHOLD_TEST_SEED=N runs seed N alone, FOOTHOLD_STRESS_SEEDS=N
// runs N seeds (the soak suite runs many more).

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <random>

#include <gtest/gtest.h>

#include "shared/contact_queries.h"
#include "shared/ground.h"
#include "shared/step.h"
#include "shared/tick.h"
#include "shared/workers/worker_pool.h"
#include "support/scenario_support.h"

namespace foothold::test {
namespace {

constexpr double kHalf = 20;

// Appends a builder's mesh to `out`, rotated about Y by `yaw` and moved by `offset`.
void append(TriangleMesh& out, TriangleMesh piece, double yaw, const Vec3& offset) {
  const double c = std::cos(yaw), s = std::sin(yaw);
  const uint32_t base = uint32_t(out.vertices.size());
  for (const Vec3& v : piece.vertices) out.vertices.push_back(Vec3{v.x * c - v.z * s, v.y, v.x * s + v.z * c} + offset);
  for (auto f : piece.faces) {
    for (auto& i : f.v) i += base;
    out.faces.push_back(f);
  }
}

std::unique_ptr<World> clutter_world(std::mt19937& rng) {
  auto uni = [&](double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng); };
  TriangleMesh mesh;
  {
    MeshBuilder b;
    b.floor_grid(-kHalf, -kHalf, kHalf, kHalf, 0, 2);
    b.box({-kHalf - 1, 0, -kHalf - 1}, {-kHalf, 4, kHalf + 1});
    b.box({kHalf, 0, -kHalf - 1}, {kHalf + 1, 4, kHalf + 1});
    b.box({-kHalf, 0, -kHalf - 1}, {kHalf, 4, -kHalf});
    b.box({-kHalf, 0, kHalf}, {kHalf, 4, kHalf + 1});
    append(mesh, b.take(), 0, {});
  }
  for (int i = 0; i < 40; ++i) {
    MeshBuilder b;
    const double kind = uni(0, 1);
    if (kind < 0.4) {  // boxes and steps
      const double sx = uni(0.2, 3), sz = uni(0.2, 3), h = uni(0.05, 2.5);
      b.box({-sx / 2, 0, -sz / 2}, {sx / 2, h, sz / 2});
    } else if (kind < 0.7) {  // ramps from gentle to far too steep
      const double run = uni(0.5, 4), deg = uni(5, 80), h = run * std::tan(deg * 3.14159265358979 / 180);
      b.prism_z({{0, 0, 0}, {run, 0, 0}, {run, std::min(h, 4.0), 0}}, -uni(0.5, 2), uni(0.5, 2));
    } else if (kind < 0.78) {  // a flat wall of unwelded quads, each corner off the plane by up to 0.1 mm
      const double amp = uni(1e-6, 1e-4), width = uni(0.3, 1.5), len = uni(2, 8);
      std::uniform_real_distribution<double> j(-amp, amp);
      for (double x = 0; x < len; x += width)
        b.quad_facing({x, -0.2, j(rng)}, {x + width, -0.2, j(rng)}, {x + width, 3, j(rng)}, {x, 3, j(rng)}, {0, 0, -1});
    } else if (kind < 0.85) {  // leaning and overhanging walls
      const double lean = uni(-1.2, 1.2), h = uni(1, 3.5), w = uni(1, 4);
      b.hexahedron({Vec3{0, 0, 0}, {0, 0, w}, {0.6, 0, w}, {0.6, 0, 0}},
                   {Vec3{lean, h, 0}, {lean, h, w}, {lean + 0.6, h, w}, {lean + 0.6, h, 0}});
    } else {  // V wedges
      const double deg = uni(50, 85), hh = uni(0.5, 2.5), w = hh / std::tan(deg * 3.14159265358979 / 180);
      b.prism_z({{0, 0, 0}, {-w, hh, 0}, {-w - 0.3, hh, 0}, {-w - 0.3, 0, 0}}, 0, uni(1, 4));
      b.prism_z({{0, 0, 0}, {w + 0.3, 0, 0}, {w + 0.3, hh, 0}, {w, hh, 0}}, 0, uni(1, 4));
    }
    append(mesh, b.take(), uni(0, 6.283), {uni(-kHalf + 3, kHalf - 3), 0, uni(-kHalf + 3, kHalf - 3)});
  }
  return make_world(std::move(mesh), "clutter");
}

// The deepest overlap of the capsule with any triangle whose front faces its centre (metres, >= 0).
double deepest_overlap(const World& world, const DerivedSettings& s, const Vec3& center, std::vector<uint32_t>& scratch) {
  const double r = s.radius, h = s.half_segment + s.radius;
  world.collect({{center.x - r, center.y - h, center.z - r}, {center.x + r, center.y + h, center.z + r}}, scratch);
  double deepest = 0;
  for (uint32_t i : scratch) {
    const auto c = capsule_triangle_contact({center, s.half_segment, s.radius}, world.triangle(i).tri, 0.0);
    if (c && -c->gap > deepest) deepest = -c->gap;
  }
  return deepest;
}

void run_seed(uint32_t seed, int ticks) {
  SCOPED_TRACE("seed " + std::to_string(seed) + " (rerun with FOOTHOLD_TEST_SEED=" + std::to_string(seed) + ")");
  std::mt19937 rng(seed);
  const auto world = clutter_world(rng);
  const MoveSettings settings;
  const DerivedSettings s = derive(settings);
  StepScratch scratch;
  std::vector<uint32_t> check_scratch;
  std::uniform_real_distribution<double> uni(-1, 1);
  CharacterState state = spawn_state({uni(rng) * (kHalf - 2), 7, uni(rng) * (kHalf - 2)});
  InputCmd input;
  int worst_tick = -1;
  double worst = 0;
  for (int t = 1; t <= ticks; ++t) {
    if (t % 45 == 1) input = encode_move(uni(rng), uni(rng), 0, 0);
    input.buttons = (uni(rng) > 0.9) ? kButtonJump : 0;
    input.tick = uint32_t(t);
    const StepResult r = step(state, input, *world, s, scratch);
    state = r.state;
    const Vec3 p = to_position(state.position);
    ASSERT_TRUE(std::isfinite(r.diagnostics.position.x) && std::isfinite(r.diagnostics.position.y) &&
                std::isfinite(r.diagnostics.position.z))
        << "tick " << t;
    ASSERT_GT(p.y, 0.0) << "fell through the floor at tick " << t;
    ASSERT_LT(std::fabs(p.x), kHalf) << "left the walled area at tick " << t;
    ASSERT_LT(std::fabs(p.z), kHalf) << "left the walled area at tick " << t;
    const double overlap = deepest_overlap(*world, s, p, check_scratch);
    if (overlap > worst) {
      worst = overlap;
      worst_tick = t;
    }
    ASSERT_LE(overlap, s.safety_margin) << "penetrating at tick " << t << " at (" << p.x << ", " << p.y << ", " << p.z << ")";
    // Grounding at the rounded position agrees with the state (a rising character is airborne).
    ContactQueries q(*world, s, check_scratch);
    const GroundKind found = evaluate_ground(q, p).kind;
    if (!r.diagnostics.rising) {
      ASSERT_EQ(state.ground, found) << "ground flipped by rounding at tick " << t;
    }
  }
  ::testing::Test::RecordProperty("worst_overlap_m_seed_" + std::to_string(seed),
                                  std::to_string(worst) + " at tick " + std::to_string(worst_tick));
}

// A random staircase (rise up to step_height) walked down in a random direction, and a random
// near-coplanar wall pushed along at a random angle: the character is grounded on every tick of the
// descent and never stalls against the wall.
void run_ground_contact_seed(uint32_t seed) {
  SCOPED_TRACE("seed " + std::to_string(seed) + " (rerun with FOOTHOLD_TEST_SEED=" + std::to_string(seed) + ")");
  std::mt19937 rng(seed);
  auto uni = [&](double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng); };
  const MoveSettings settings;
  const DerivedSettings s = derive(settings);
  StepScratch scratch;
  {
    const double rise = uni(0.05, settings.step_height), tread = uni(0.28, 0.6);
    const int count = 5;
    MeshBuilder b;
    b.floor_grid(-10, -10, 0, 10, 0, 1);
    for (int i = 0; i < count; ++i) b.box({i * tread, 0, -10}, {(i + 1) * tread, (i + 1) * rise, 10});
    b.box({count * tread, 0, -10}, {count * tread + 4, count * rise, 10});
    TriangleMesh mesh;
    append(mesh, b.take(), 0, {});
    const auto world = make_world(std::move(mesh), "stairs");
    const double angle = uni(-1.0, 1.0);  // radians off straight down the stairs
    const InputCmd walk = encode_move(-std::cos(angle), std::sin(angle), 0, 0);
    CharacterState state = spawn_state({count * tread + 2, count * rise + s.height / 2 + s.rest_gap, 0});
    for (int t = 1; t <= 20; ++t) state = step(state, encode_move(0, 0, 0, uint32_t(t)), *world, s, scratch).state;
    ASSERT_TRUE(is_grounded(state.ground));
    for (int t = 21; t <= 200 && to_position(state.position).x > -1; ++t) {
      InputCmd in = walk;
      in.tick = uint32_t(t);
      state = step(state, in, *world, s, scratch).state;
      ASSERT_TRUE(is_grounded(state.ground)) << "airborne at tick " << t << " going down stairs of rise " << rise
                                             << ", tread " << tread << ", at x " << to_position(state.position).x;
    }
  }
  {
    const double amp = uni(1e-6, 1e-4), width = uni(0.3, 1.5), push = uni(0.2, 1.2);
    std::uniform_real_distribution<double> j(-amp, amp);
    MeshBuilder b;
    b.floor_grid(-2, -4, 16, 4, 0, 2);
    for (double x = -2; x < 16; x += width)
      b.quad_facing({x, -0.2, 1 + j(rng)}, {x + width, -0.2, 1 + j(rng)}, {x + width, 3, 1 + j(rng)}, {x, 3, 1 + j(rng)},
                    {0, 0, -1});
    TriangleMesh mesh;
    append(mesh, b.take(), 0, {});
    const auto world = make_world(std::move(mesh), "wall");
    CharacterState state = spawn_state({0, s.height / 2 + s.rest_gap, 0.5});
    const InputCmd walk = encode_move(std::cos(push), std::sin(push), 0, 0);
    double last_x = 0;
    for (int t = 1; t <= 150; ++t) {
      InputCmd in = walk;
      in.tick = uint32_t(t);
      state = step(state, in, *world, s, scratch).state;
      const double x = to_position(state.position).x;
      if (t > 20) {
        ASSERT_GT(x - last_x, 0.5 * s.walk_speed * std::cos(push) * s.dt) << "stalled at tick " << t << ", x " << x;
      }
      last_x = x;
    }
  }
}

// A character stepped with its own candidate cache and one stepped without: the same state on every
// tick of a long random walk through clutter (the cache refills many times on the way).
void run_cache_seed(uint32_t seed) {
  SCOPED_TRACE("seed " + std::to_string(seed) + " (rerun with FOOTHOLD_TEST_SEED=" + std::to_string(seed) + ")");
  std::mt19937 rng(seed);
  const auto world = clutter_world(rng);
  const DerivedSettings s = derive(MoveSettings{});
  StepScratch plain, cached;
  CandidateCache cache;
  cached.cache = &cache;
  std::uniform_real_distribution<double> uni(-1, 1);
  CharacterState a = spawn_state({uni(rng) * (kHalf - 2), 7, uni(rng) * (kHalf - 2)});
  CharacterState b = a;
  InputCmd input;
  for (int t = 1; t <= 600; ++t) {
    if (t % 45 == 1) input = encode_move(uni(rng), uni(rng), 0, 0);
    input.buttons = (uni(rng) > 0.9) ? kButtonJump : 0;
    input.tick = uint32_t(t);
    a = step(a, input, *world, s, plain).state;
    b = step(b, input, *world, s, cached).state;
    ASSERT_EQ(a, b) << "the cache changed the result at tick " << t;
  }
}

int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v ? std::atoi(v) : fallback;
}

// Runs `run` for FOOTHOLD_TEST_SEED alone when it is set, else for seeds 1..FOOTHOLD_STRESS_SEEDS
// (default 24), stopping at the first fatal failure.
template <typename Run>
void for_each_seed(Run run) {
  const int only = env_int("FOOTHOLD_TEST_SEED", -1);
  if (only >= 0) {
    run(uint32_t(only));
    return;
  }
  const int seeds = env_int("FOOTHOLD_STRESS_SEEDS", 24);
  for (int seed = 1; seed <= seeds && !::testing::Test::HasFatalFailure(); ++seed) run(uint32_t(seed));
}

// Movement.md §15, §16: sixteen characters crowding on the arena's shuttle and turntable with random
// walks, jumps and crouches. No tick leaves one inside a mover or the world, no two overlap beyond the
// safety margin, and the whole run is the same stepped in any order, with or without a shared frame.
void run_crowd_seed(uint32_t seed) {
  SCOPED_TRACE("seed " + std::to_string(seed) + " (FOOTHOLD_TEST_SEED=" + std::to_string(seed) + " runs it alone)");
  std::mt19937 rng(seed);
  const World& w = arena_world();
  const DerivedSettings s = derive(MoveSettings{});
  auto uni = [&](double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng); };
  constexpr int kCharacters = 16, kTicks = 300;
  // Metres: the most a point of the shuttle or the turntable moves in a tick (3 m/s; 45°/s at the
  // table's corner, 2.83 m out).
  constexpr double kMoverTravel = 0.05;
  std::vector<CharacterState> forward, backward;
  for (int i = 0; i < kCharacters; ++i) {
    // Half on the shuttle's run, half on the turntable, each on or beside its mover at tick 0.
    const Vec3 centre = i % 2 ? Vec3{arena::kShuttleX0, 0, arena::kShuttleZ} : Vec3{arena::kTurntableX, 0, arena::kTurntableZ};
    forward.push_back(spawn_state(centre + Vec3{uni(-2.5, 2.5), 0.2 + rest_height() + uni(0, 1), uni(-2.5, 2.5)}));
  }
  backward = forward;
  std::vector<std::vector<InputCmd>> inputs(kCharacters);
  for (auto& in : inputs)
    for (uint32_t t = 1; t <= kTicks; ++t) {
      const double r = uni(0, 1);
      const uint8_t buttons = uint8_t((r < 0.03 ? kButtonJump : 0) | (r > 0.9 ? kButtonCrouch : 0));
      in.push_back(encode_move(uni(-1, 1), uni(-1, 1), buttons, t));
    }
  // The same tick twice: the characters handed in forward on the calling thread, and backward on two
  // threads (shared/tick.h promises the same bytes).
  TickRunner runner_f, runner_b;
  WorkerPool two(2);
  std::vector<TickCharacter> given(kCharacters);
  // The last tick a mover pushed each character (movement.md §15.3): a mover may press one character
  // into another by up to its travel in a tick, which the push apart of §16 undoes next.
  std::vector<uint32_t> pushed(kCharacters, 0);
  auto tick_all = [&](std::vector<CharacterState>& st, uint32_t t, bool reverse, TickRunner& runner, ParallelFor* threads) {
    for (int k = 0; k < kCharacters; ++k) {
      const int i = reverse ? kCharacters - 1 - k : k;
      given[size_t(k)] = {uint32_t(i), st[size_t(i)], inputs[size_t(i)][t - 1], nullptr};
    }
    runner.run(t, given, w, s, threads);
    for (int i = 0; i < kCharacters; ++i) {
      st[size_t(i)] = runner.results()[size_t(i)].state;  // ids are the indices
      if (runner.results()[size_t(i)].diagnostics.pushed_by_mover) pushed[size_t(i)] = t;
    }
  };
  std::vector<uint32_t> candidates;
  for (uint32_t t = 1; t <= kTicks; ++t) {
    tick_all(forward, t, false, runner_f, nullptr);
    tick_all(backward, t, true, runner_b, &two);
    ASSERT_EQ(forward, backward) << "tick " << t;
    ContactList contacts;
    for (int i = 0; i < kCharacters; ++i) {
      const CharacterState& c = forward[size_t(i)];
      ASSERT_TRUE(std::isfinite(to_velocity(c.velocity).y));
      const DerivedSettings posture = [&] {
        DerivedSettings p = s;
        if (c.crouched) p.half_segment = s.crouch_half_segment;
        return p;
      }();
      ContactQueries qp(w, posture, candidates, &runner_f.movers());
      qp.contacts(to_position(c.position), 0, contacts);
      if (contacts.size() > 0) {
        ASSERT_GE(contacts[0].gap, -s.safety_margin) << "tick " << t << " character " << i;
      }
      for (int j = i + 1; j < kCharacters; ++j) {
        const CharacterState& o = forward[size_t(j)];
        const Vec3 a = to_position(c.position), b = to_position(o.position);
        const double ha = c.crouched ? s.crouch_half_segment : s.half_segment;
        const double hb = o.crouched ? s.crouch_half_segment : s.half_segment;
        const double lo = std::fmax(a.y - ha, b.y - hb), hi = std::fmin(a.y + ha, b.y + hb);
        const double dy = lo <= hi ? 0 : lo - hi;
        const double d = std::sqrt(length_sq(horizontal(a - b)) + dy * dy);
        // Overlaps come only from spawns (pushed apart within a few ticks: none past the first second)
        // and from movers pressing one character into another (no deeper than a mover's travel in a
        // tick, gone within a few ticks).
        const bool pressed = t - std::max(pushed[size_t(i)], pushed[size_t(j)]) <= 4;
        if (t > 60 && pressed) {
          ASSERT_GE(d, 2 * s.radius - s.safety_margin - kMoverTravel) << "tick " << t << " characters " << i << ", " << j;
        } else if (t > 60) {
          ASSERT_GE(d, 2 * s.radius - s.safety_margin) << "tick " << t << " characters " << i << ", " << j << " platforms "
                                                      << c.platform << "," << o.platform << " crouched " << c.crouched << "," << o.crouched;
        }
      }
    }
  }
}

TEST(Stress, CrowdsOnMovingPlatformsNeverOverlapOrPenetrateAndAreOrderFree) {
  for_each_seed([](uint32_t seed) { run_crowd_seed(seed); });
}

TEST(Stress, RandomWalksThroughClutterNeverPenetrateOrFallThrough) {
  for_each_seed([](uint32_t seed) { run_seed(seed, 600); });
}

TEST(Stress, RandomStairsAreWalkedDownGroundedAndRandomSeamedWallsNeverStall) {
  for_each_seed([](uint32_t seed) { run_ground_contact_seed(seed); });
}

TEST(Stress, ACandidateCacheNeverChangesAResult) {
  for_each_seed([](uint32_t seed) { run_cache_seed(seed); });
}

}  // namespace
}  // namespace foothold::test
