// The own character as a game draws it (client/drawing.h): steady walking moves the same distance
// every frame at any frame rate; a correction is taken in no faster than its bound and a large one
// snaps; the smoothing never draws the character through a wall.

#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "client/drawing.h"
#include "shared/animation.h"
#include "shared/arena.h"
#include "shared/predictor.h"
#include "support/scenario_support.h"

namespace foothold::test {
namespace {

constexpr proto::Nanos kS = proto::kSecond;

// A predictor walking from `from` with `move` every tick, ticking on a 60 Hz clock from time 0, and
// a drawing told of each tick as a session tells it.
struct Walker {
  explicit Walker(const Vec3& from, double move_x = 1, double move_z = 0, client::DrawOptions o = {})
      : x(move_x), z(move_z) {
    drawing.set_options(o);
    p.reset(0, spawn_state(from));
  }
  DerivedSettings s = derive(MoveSettings{});
  Predictor p{arena_world(), s};
  client::LocalDrawing drawing{arena_world(), s};
  double x, z;
  proto::Nanos period = kS / 60;
  // Runs the ticks due by `now`.
  void run_until(proto::Nanos now) {
    while (proto::Nanos(p.latest_tick() + 1) * period <= now) {
      const uint32_t t = p.latest_tick() + 1;
      p.predict(encode_move(x, z, 0, t));
      drawing.on_tick(t, proto::Nanos(t) * period, proto::Nanos(t + 1) * period);
    }
  }
};

TEST(Drawing, CausesAreNamedByTheirTokensJoinedInOrder) {
  EXPECT_EQ(client::draw_cause_text(0), "interpolated");
  EXPECT_EQ(client::draw_cause_text(client::kCauseViewDelay | client::kCauseCorrection), "correction+view_delay");
  EXPECT_EQ(client::draw_cause_text(client::kCauseReAdded | client::kCauseKeptUnsaid | client::kCauseMoverCarry |
                                    client::kCauseExtrapolating | client::kCauseExtrapolationEnd | client::kCauseSnap |
                                    client::kCauseNeighbourRestep),
            "snap+neighbour_restep+re_added+kept_unsaid+mover_carry+extrapolating+extrapolation_end");
}

TEST(Drawing, SteadyWalkingMovesTheSameDistanceEveryFrameAtAnyFrameRate) {
  for (const int rate : {30, 60, 144, 240}) {
    Walker w(arena::kOpenFloor + Vec3{-6, rest_height(), 0});
    const proto::Nanos frame = kS / rate;
    std::vector<double> steps;
    Vec3 last;
    for (int f = 0; f < rate * 2; ++f) {
      const proto::Nanos now = w.period + frame * f + kS / 1000;  // from the first tick on; frames need not fall on ticks
      w.run_until(now);
      const auto d = w.drawing.draw(w.p, now);
      ASSERT_TRUE(d) << rate << " Hz, frame " << f;
      if (f > 0 && now > kS) steps.push_back(std::sqrt(length_sq(d->position - last)));  // at full speed after a second
      last = d->position;
    }
    ASSERT_FALSE(steps.empty());
    const double expected = w.s.walk_speed / rate;
    for (double step : steps) EXPECT_NEAR(step, expected, 0.001) << rate << " Hz";
  }
}

TEST(Drawing, InterpolationIsATickBehindAndExtrapolationIsNot) {
  Walker interp(arena::kOpenFloor + Vec3{-6, rest_height(), 0});
  client::DrawOptions ahead;
  ahead.extrapolate = true;
  Walker extrap(arena::kOpenFloor + Vec3{-6, rest_height(), 0}, 1, 0, ahead);
  const proto::Nanos now = kS + kS / 120;  // half way between two ticks
  interp.run_until(now);
  extrap.run_until(now);
  const auto a = interp.drawing.draw(interp.p, now), b = extrap.drawing.draw(extrap.p, now);
  ASSERT_TRUE(a && b);
  EXPECT_NEAR(a->tick, 59.5, 1e-4);
  EXPECT_NEAR(b->tick, 60.5, 1e-4);
  EXPECT_NEAR(b->position.x - a->position.x, interp.s.walk_speed / 60, 1e-3) << "one tick's walk apart";
}

TEST(Drawing, ACorrectionIsTakenInNoFasterThanItsBoundAndALargeOneSnaps) {
  Walker w(arena::kOpenFloor + Vec3{0, rest_height(), 0}, 0, 0);
  const proto::Nanos frame = kS / 144;
  proto::Nanos now = kS / 2;
  w.run_until(now);
  auto last = w.drawing.draw(w.p, now);
  ASSERT_TRUE(last);
  // A correction moved the prediction 0.5 m along +X (the session says so; here the prediction
  // stays, so the drawing is 0.5 m behind it): what is drawn keeps its place, then follows at most
  // max_release_mps.
  w.drawing.corrected({0.5, 0, 0});
  auto d = w.drawing.draw(w.p, now);
  EXPECT_NEAR(d->position.x, last->position.x - 0.5, 1e-12);
  EXPECT_NEAR(d->error.x, -0.5, 1e-12);
  double released = 0;
  for (int f = 1; f <= 144; ++f) {
    now += frame;
    w.run_until(now);
    const auto next = w.drawing.draw(w.p, now);
    const double step = std::abs(next->error.x - d->error.x);
    EXPECT_LE(step, w.drawing.options().max_release_mps / 144 + 1e-9) << "frame " << f;
    released += step;
    d = next;
  }
  EXPECT_NEAR(released, 0.5 - std::abs(d->error.x), 1e-9);
  EXPECT_LT(std::abs(d->error.x), 0.01) << "a second takes in half a metre";
  EXPECT_EQ(w.drawing.smoothed(), 1u);
  // Corrections that pile up past snap_m snap too: the drawing never strays that far.
  const double most = w.drawing.options().snap_m;
  w.drawing.corrected({0.6 * most, 0, 0});
  EXPECT_EQ(w.drawing.snaps(), 0u);
  w.drawing.corrected({0.6 * most, 0, 0});
  EXPECT_EQ(w.drawing.snaps(), 1u);
  EXPECT_EQ(w.drawing.draw(w.p, now)->error.x, 0);
  // A 3 m teleport snaps: drawn where the prediction is, at once.
  w.drawing.corrected({3, 0, 0});
  const auto snapped = w.drawing.draw(w.p, now);
  EXPECT_EQ(w.drawing.snaps(), 2u);
  EXPECT_EQ(snapped->error.x, 0);
  // Smoothing off: every correction shows at once.
  client::DrawOptions off;
  off.smoothing_s = 0;
  w.drawing.set_options(off);
  w.drawing.corrected({0.2, 0, 0});
  EXPECT_EQ(w.drawing.draw(w.p, now)->error.x, 0);
}

TEST(Drawing, SmoothingNeverDrawsTheCharacterThroughAWall) {
  // Standing against row C's upright wall (its face at x = -20, facing -X): a correction that moved
  // the prediction 0.6 m away from the wall leaves an offset pointing into it.
  const double radius = derive(MoveSettings{}).radius;
  Walker w({arena::kUprightWallX - radius - 0.05, rest_height(), 0}, 0, 0);
  proto::Nanos now = kS / 2;
  w.run_until(now);
  const auto before = w.drawing.draw(w.p, now);
  ASSERT_TRUE(before);
  w.drawing.corrected({-0.6, 0, 0});  // as if the prediction had been 0.6 m inside the wall
  const auto d = w.drawing.draw(w.p, now);
  EXPECT_LE(d->position.x, arena::kUprightWallX - radius + 1e-9) << "drawn inside the wall";
  EXPECT_LT(std::abs(d->error.x), 0.6) << "the offset was cut";
}

// Riding a mover through a correction: the offset is added to where the prediction has the
// character now, and the prediction rides the mover, so the drawn character moves with the mover
// every frame (no smoothing lag behind it) while the offset alone decays.
TEST(Drawing, AMoverCarriesTheDrawnCharacterThroughACorrectionWithoutLag) {
  const World& world = arena_world();
  ASSERT_FALSE(world.movers().empty());
  const auto& mover = world.movers()[0];
  Vec3 lo = mover.local[0].lo, hi = mover.local[0].hi;
  for (const auto& t : mover.local) {
    lo = {std::min(lo.x, t.lo.x), std::min(lo.y, t.lo.y), std::min(lo.z, t.lo.z)};
    hi = {std::max(hi.x, t.hi.x), std::max(hi.y, t.hi.y), std::max(hi.z, t.hi.z)};
  }
  // Dropped onto the middle of its deck from just above, then standing still.
  const Vec3 deck = apply(chain_pose(mover.chain, 1, 60), Vec3{(lo.x + hi.x) / 2, hi.y, (lo.z + hi.z) / 2});
  Walker w(deck + Vec3{0, rest_height() + 0.05, 0}, 0, 0);
  proto::Nanos now = kS;
  w.run_until(now);
  ASSERT_EQ(w.p.latest_state().platform, 1) << "aboard the mover";
  const proto::Nanos frame = kS / 144;
  ASSERT_TRUE(w.drawing.draw(w.p, now));
  // The prediction moved 0.3 m (as the session would say; here it stays, so the drawing is 0.3 m
  // behind it from this moment).
  w.drawing.corrected({0.3, 0, 0});
  auto last = w.drawing.draw(w.p, now);
  EXPECT_NEAR(last->error.x, -0.3, 1e-12);
  double carried = 0;
  for (int f = 0; f < 144; ++f) {
    now += frame;
    w.run_until(now);
    const auto d = w.drawing.draw(w.p, now);
    const auto p = w.drawing.predicted(w.p, now), p0 = w.drawing.predicted(w.p, now - frame);
    ASSERT_TRUE(d && p && p0);
    EXPECT_EQ(d->position, p->position + d->error) << "drawn: the prediction now, plus the offset";
    // The frame's motion is the mover's (the prediction's) plus what the offset released.
    const Vec3 moved = d->position - last->position, rode = p->position - p0->position;
    EXPECT_LE(std::sqrt(length_sq(moved - rode)), w.drawing.options().max_release_mps / 144 + 1e-9) << "frame " << f;
    carried += std::sqrt(length_sq(rode));
    last = d;
  }
  EXPECT_GT(carried, 0.1) << "the mover carried it in that second";
  EXPECT_LT(std::sqrt(length_sq(last->error)), 0.01) << "and the correction was taken in";
}

}  // namespace
}  // namespace foothold::test
