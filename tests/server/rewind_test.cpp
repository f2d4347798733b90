// Lag compensation (server/rewind.h, GameControl::ray and overlap) on the simulated network: a ray
// meets a moving character exactly where the shooter's client drew it, at every fraction between
// two ticks; view times a client cannot have had are clamped and counted; characters that joined or
// left inside the window are there only when they were; the answers are the same on four threads.

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>
#include <vector>

#include <gtest/gtest.h>

#include "server/game.h"
#include "shared/arena.h"
#include "shared/mover_frame.h"
#include "shared/ray_query.h"
#include "support/scenario_support.h"
#include "support/sim_harness.h"
#include "support/test_seed.h"

namespace foothold::test {
namespace {

using server::Counter;
constexpr proto::Nanos kS = proto::kSecond;

// Runs `hook` after every tick.
struct HookGame final : server::Game {
  std::function<void(server::GameControl&, const server::TickReport&)> hook;
  void after_tick(server::GameControl& g, const server::TickReport& r) override {
    if (hook) hook(g, r);
  }
};

HookGame& install_hook(SimHarness& h) {
  auto owned = std::make_unique<HookGame>();
  HookGame& g = *owned;
  h.server().set_game(std::move(owned));
  return g;
}

struct Shot {
  double view = 0;
  RayHit hit, wide;
  Vec3 drawn;
};

// Two characters walking circles; two seconds in, client 0 shoots at client 1 as client 0 draws it,
// at each quarter between two ticks, from 3 m away along +X, and 0.41 m beside it. Snapshots every
// `interval` ticks, on client 0's phase (its id, 1, modulo the interval).
std::vector<Shot> shoot(int threads, int interval = 1) {
  HarnessOptions o = with_clients(2);
  o.core.threads = threads;
  o.core.snapshot_interval = interval;
  o.pattern = bots::Pattern::kCircle;
  o.seed = test_seed(39);
  SimHarness h(arena_world(), o);
  HookGame& game = install_hook(h);
  h.start_all();
  h.run_for(2 * kS);
  std::vector<Shot> shots;
  const uint32_t shooter = h.client(0).character_id(), target = h.client(1).character_id();
  game.hook = [&](server::GameControl& g, const server::TickReport&) {
    if (!shots.empty()) return;
    const uint32_t newest = g.newest_snapshot(shooter);
    for (const double f : {0.0, 0.25, 0.5, 0.75}) {
      Shot s;
      s.view = double(newest - 4) + f;
      const auto drawn = h.client(0).remotes().sample(target, s.view);
      if (!drawn) continue;
      s.drawn = drawn->position;
      s.hit = g.ray(shooter, s.view, g.tick(), s.drawn + Vec3{3, 0, 0}, {-1, 0, 0}, 10);
      s.wide = g.ray(shooter, s.view, g.tick(), s.drawn + Vec3{3, 0, 0.41}, {-1, 0, 0}, 10);
      shots.push_back(s);
    }
  };
  h.run_for(kS / 30);
  return shots;
}

// Each of four shots met the target where the shooter's client drew it, and not 0.41 m beside it;
// the target moved between the quarters, so the shots were not all at one place.
void expect_met_where_drawn(const std::vector<Shot>& shots) {
  ASSERT_EQ(shots.size(), 4u);
  for (const Shot& s : shots) {
    SCOPED_TRACE("view " + std::to_string(s.view));
    ASSERT_EQ(s.hit.kind, RayHit::Kind::kCharacter);
    // The capsule's side, 0.4 m from the centre the client drew (to the arithmetic's last bits: a
    // centre off by the smallest position step, 1/1024 m, would be a million times further off).
    EXPECT_NEAR(s.hit.distance, 3 - 0.4, 1e-12);
    EXPECT_EQ(s.hit.point.z, s.drawn.z);
    EXPECT_EQ(s.hit.point.y, s.drawn.y);
    EXPECT_NE(s.wide.kind, RayHit::Kind::kCharacter) << "0.41 m beside it, beyond the radius";
  }
  EXPECT_NE(shots.front().drawn, shots.back().drawn);
}

TEST(Rewind, ARayMeetsAMovingCharacterWhereTheShootersClientDrewItAtEveryFraction) {
  const std::vector<Shot> shots = shoot(1);
  expect_met_where_drawn(shots);
  // Four threads: the same answers, to the bit.
  const std::vector<Shot> four = shoot(4);
  ASSERT_EQ(four.size(), shots.size());
  for (std::size_t i = 0; i < shots.size(); ++i) {
    EXPECT_EQ(four[i].hit, shots[i].hit);
    EXPECT_EQ(four[i].wide, shots[i].wide);
  }
}

// With snapshots every few ticks the clients take turns (server/snapshot_phase.h), so the shooter's
// snapshot ticks are not the interval's multiples: the server interpolates between the two of its
// ticks around the view, as its client did. (Interpolated between the multiples instead, every one
// of these shots met the capsule somewhere else, at both intervals.)
TEST(Rewind, ARayMeetsTheCharacterWhereTheShootersClientDrewItWhenClientsTakeTurnsAtSnapshots) {
  for (const int interval : {2, 3}) {
    SCOPED_TRACE("interval " + std::to_string(interval));
    expect_met_where_drawn(shoot(1, interval));
  }
}

TEST(Rewind, ViewTimesAClientCannotHaveHadAreClampedAndCounted) {
  HarnessOptions o = with_clients(2);
  o.core.rewind_window_ms = 250;  // 15 ticks at 60 Hz
  o.pattern = bots::Pattern::kCircle;
  SimHarness h(arena_world(), o);
  HookGame& game = install_hook(h);
  h.start_all();
  h.run_for(2 * kS);
  const uint32_t a = h.client(0).character_id();
  std::vector<uint32_t> oldest, newest, lying, nan;
  uint64_t clamped_before = 0, clamped_after = 0, queries = 0;
  bool asked = false;
  game.hook = [&](server::GameControl& g, const server::TickReport& r) {
    if (asked) return;
    asked = true;
    clamped_before = h.server().counters().get(Counter::kRewindClamped);
    const uint32_t sent = g.newest_snapshot(a);
    ASSERT_GT(sent, 15u);
    ASSERT_LE(sent, r.tick);
    const Vec3 c{0, 0.9, 0};
    g.overlap(a, double(r.tick - 15), c, 0, 100, oldest);   // the window's first tick: not clamped
    g.overlap(a, double(r.tick - 200), c, 0, 100, lying);   // far older: clamped to the window
    g.overlap(a, double(sent), c, 0, 100, newest);          // the newest it was sent: not clamped
    std::vector<uint32_t> future;
    g.overlap(a, double(r.tick + 30), c, 0, 100, future);   // later than it was sent: clamped
    g.overlap(a, std::nan(""), c, 0, 100, nan);             // nonsense: clamped to its newest
    EXPECT_EQ(future, newest);
    clamped_after = h.server().counters().get(Counter::kRewindClamped);
    queries = h.server().counters().get(Counter::kRewindQueries);
  };
  h.run_for(kS / 30);
  ASSERT_TRUE(asked);
  EXPECT_EQ(clamped_after - clamped_before, 3u);
  EXPECT_EQ(queries, 5u);
  EXPECT_EQ(oldest, lying);
  EXPECT_EQ(nan, newest);
  EXPECT_EQ(newest.size(), 1u) << "the other character, never the viewer";
}

TEST(Rewind, ACharacterThatJoinedOrLeftInsideTheWindowIsThereOnlyWhenItWas) {
  HarnessOptions o = with_clients(3);
  o.core.rewind_window_ms = 1000;
  o.pattern = bots::Pattern::kCircle;
  SimHarness h(arena_world(), o);
  HookGame& game = install_hook(h);
  h.start_client(0);
  h.start_client(1);
  h.run_for(kS);
  const uint32_t joined_after = h.server().current_tick();
  h.start_client(2);
  h.run_for(kS / 2);
  const uint32_t left_after = h.server().current_tick();
  const uint32_t leaver = h.client(1).character_id(), joiner = h.client(2).character_id();
  h.client(1).disconnect();
  h.run_for(kS / 4);
  const uint32_t viewer = h.client(0).character_id();
  std::vector<std::pair<uint32_t, std::vector<uint32_t>>> seen;  // view tick -> characters there
  game.hook = [&](server::GameControl& g, const server::TickReport& r) {
    if (!seen.empty()) return;
    for (uint32_t t = r.tick - 55; t <= g.newest_snapshot(viewer); t += 5) {
      std::vector<uint32_t> out;
      g.overlap(viewer, double(t), {0, 0.9, 0}, 0, 200, out);
      seen.push_back({t, out});
    }
  };
  h.run_for(kS / 30);
  ASSERT_GT(seen.size(), 5u);
  bool saw_joiner = false, saw_leaver = false;
  for (const auto& [t, ids] : seen) {
    const bool has_joiner = std::count(ids.begin(), ids.end(), joiner) == 1;
    const bool has_leaver = std::count(ids.begin(), ids.end(), leaver) == 1;
    EXPECT_EQ(has_joiner, t > joined_after) << "tick " << t;
    saw_joiner |= has_joiner;
    if (t <= left_after) {
      EXPECT_TRUE(has_leaver) << "tick " << t;
      saw_leaver = true;
    }
    if (t > left_after + 30) {
      EXPECT_FALSE(has_leaver) << "tick " << t;
    }
  }
  EXPECT_TRUE(saw_joiner);
  EXPECT_TRUE(saw_leaver);
}

// The movers stand where the shooter's client drew them: at the tick it names (its own predicted
// tick), exactly as MoverFrame places them there; a tick the server has not simulated yet, or one
// older than the window, is clamped. Straight down through the shuttle's path, the ray meets the
// shuttle at some ticks and the floor at others, the same as a frame built for that tick.
TEST(Rewind, ARayMeetsAMoverWhereItWasAtTheTickTheShooterDrewIt) {
  HarnessOptions o = with_clients(1);
  o.core.rewind_window_ms = 1000;
  SimHarness h(arena_world(), o);
  HookGame& game = install_hook(h);
  h.start_all();
  h.run_for(3 * kS);
  const uint32_t viewer = h.client(0).character_id();
  int movers = 0, floors = 0, compared = 0, changes = 0;
  game.hook = [&](server::GameControl& g, const server::TickReport& r) {
    if (compared > 0) return;
    QueryScratch scratch;
    MoverFrame frame;
    for (double x = arena::kShuttleX0 - 1; x <= arena::kShuttleX1 + 1; x += 1) {
      const Vec3 origin{x, 5, arena::kShuttleZ};
      std::optional<RayHit::Kind> first;
      for (uint32_t t = r.tick - 59; t <= r.tick + 20; ++t) {
        const RayHit got = g.ray(viewer, double(g.newest_snapshot(viewer)), t, origin, {0, -1, 0}, 10);
        frame.build(arena_world(), std::min(t, r.tick), g.settings().tick_rate);
        const RayHit want = cast_ray(arena_world(), &frame, {}, origin, {0, -1, 0}, 10, 0, scratch);
        EXPECT_EQ(got, want) << "x " << x << " tick " << t;
        ++(got.kind == RayHit::Kind::kMover ? movers : floors);
        ++compared;
        if (!first) first = got.kind;
        changes += got.kind != *first;
      }
    }
    const Vec3 origin{0, 5, arena::kShuttleZ};
    // Older than the window: the window's first tick.
    frame.build(arena_world(), r.tick - 60, g.settings().tick_rate);
    EXPECT_EQ(g.ray(viewer, 0, r.tick - 500, origin, {0, -1, 0}, 10),
              cast_ray(arena_world(), &frame, {}, origin, {0, -1, 0}, 10, 0, scratch));
  };
  h.run_for(kS / 30);
  EXPECT_EQ(compared, 80 * 21);
  EXPECT_GT(movers, 0);
  EXPECT_GT(floors, 0);
  EXPECT_GT(changes, 0) << "the shuttle passed no ray inside the window: the tick made no difference";
}

}  // namespace
}  // namespace foothold::test
