// The others as a game draws them (client/view_clock.h, client/remote_drawing.h): the view clock's
// delay follows the jitter and loss measured and the clock never jumps to follow it; a late
// snapshot is bridged by carrying a character on for at most its limit, then held; the word that
// comes later is taken in smoothly; the cubic curve passes through every sample.

#include <algorithm>
#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "client/remote_drawing.h"
#include "client/view_clock.h"
#include "shared/animation.h"
#include "shared/arena.h"
#include "support/scenario_support.h"

namespace foothold::test {
namespace {

constexpr proto::Nanos kS = proto::kSecond;
constexpr proto::Nanos kTick = kS / 60;

TEST(ViewClock, OnACleanNetworkItRunsOneSnapshotGapBehindWithRealTime) {
  client::ViewClock c;
  c.reset(kTick, 1);
  EXPECT_EQ(c.at(5 * kS), 0) << "nothing before the first snapshot";
  const proto::Nanos transit = 30'000'000;
  for (uint32_t t = 1; t <= 200; ++t) {
    c.on_snapshot(t, proto::Nanos(t) * kTick + transit, 0);
    c.advance(proto::Nanos(t) * kTick + transit);
  }
  EXPECT_DOUBLE_EQ(c.delay_ticks(), 1.25);
  EXPECT_DOUBLE_EQ(c.jitter_ticks(), 0);
  EXPECT_EQ(c.jumps(), 1u) << "only the start";
  // At the moment snapshot 200 arrives, the clock shows 200 less the delay, and runs on with time.
  const proto::Nanos now = 200 * kTick + transit;
  EXPECT_NEAR(c.at(now), 200 - 1.25, 1e-6);
  EXPECT_NEAR(c.at(now + kTick / 2), 200 - 0.75, 1e-6);
}

TEST(ViewClock, JitterAndLossLengthenTheDelayAndTheClockFollowsWithoutAJump) {
  client::ViewClock c;
  c.reset(kTick, 1);
  // Every fourth snapshot 12 ms late (0.72 ticks): more than 5%, so the 95th percentile is that.
  proto::Nanos now = 0;
  double last = -1;
  double rate_max = 0, rate_min = 10;
  for (uint32_t t = 1; t <= 600; ++t) {
    const proto::Nanos arrival = proto::Nanos(t) * kTick + (t % 4 == 0 ? 12'000'000 : 0);
    // Frames at 144 Hz up to this arrival.
    while (now + kS / 144 < arrival) {
      now += kS / 144;
      c.advance(now);
      const double v = c.at(now);
      if (last >= 0 && t > 10) {
        const double rate = (v - last) / (double(kS / 144) / double(kTick));
        rate_max = std::max(rate_max, rate);
        rate_min = std::min(rate_min, rate);
      }
      last = v;
    }
    c.on_snapshot(t, arrival, t > 300 ? 0.05 : 0);
  }
  EXPECT_NEAR(c.jitter_ticks(), 0.72, 1e-6);  // a tick is a whole number of nanoseconds
  EXPECT_NEAR(c.delay_ticks(), 1 + 1 + 0.72 + 0.25, 1e-6) << "a snapshot gap, one more for 5% loss, the jitter, the margin";
  EXPECT_EQ(c.jumps(), 1u) << "the delay grew by a tick without a jump";
  EXPECT_LE(rate_max, 1 + client::ViewClock::kMaxRateChange + 1e-9);
  EXPECT_GE(rate_min, 1 - client::ViewClock::kMaxRateChange - 1e-9);
  EXPECT_LT(rate_min, 1) << "it slowed down to fall back";
  // And it got there.
  EXPECT_NEAR(c.at(now), double(now - 0) / double(kTick) - c.delay_ticks(), 0.05);
}

// Another character walking along +X at `speed` m/s on the open floor (52/1024 m a tick: on the
// position grid, so its samples are a straight line exactly).
struct Walk {
  DerivedSettings s = derive(MoveSettings{});
  RemoteInterpolator samples;
  client::RemoteDrawing drawing{arena_world(), s};
  Vec3 start = arena::kOpenFloor + Vec3{-6, rest_height(), 0};
  double speed = 60 * 52 / 1024.0;
  std::vector<OtherCharacter> others{{7, {}, false, 0}};
  Vec3 at(uint32_t tick) const { return start + Vec3{speed * tick / 60.0, 0, 0}; }
  void sample(uint32_t tick, const Vec3& p) { samples.add(7, tick, quantize_position(p), GroundKind::kWalkable); }
  client::RemoteFrame frame(uint32_t newest, double view, proto::Nanos now) const {
    return {samples, others, newest, 8, view, now};
  }
  client::DrawnRemote draw(uint32_t newest, double view, proto::Nanos now) {
    client::DrawnRemote d;
    EXPECT_EQ(drawing.draw(frame(newest, view, now), std::span(&d, 1)), 1u);
    return d;
  }
};

TEST(RemoteDrawing, TheCurvePassesThroughEverySampleAndALineIsDrawnAsALine) {
  Walk w;
  for (uint32_t t = 1; t <= 20; ++t) w.sample(t, w.at(t));
  for (double view : {3.0, 7.0, 12.0}) {
    const auto d = w.drawing.raw(w.frame(20, view, 0), w.others[0], view);
    ASSERT_TRUE(d);
    EXPECT_EQ(d->position, to_position(quantize_position(w.at(uint32_t(view)))));
  }
  // Between samples of a steady walk: on the line, at the walk's speed.
  const auto mid = w.drawing.raw(w.frame(20, 10.5, 0), w.others[0], 10.5);
  EXPECT_NEAR(mid->position.x, to_position(quantize_position(w.at(10))).x + w.speed / 120, 1e-9);
  EXPECT_NEAR(mid->velocity.x, w.speed, 1e-9);
  EXPECT_FALSE(mid->extrapolated);
}

TEST(RemoteDrawing, ALateSnapshotIsBridgedForAtMostItsLimitThenHeldAndTheTruthIsTakenInSmoothly) {
  Walk w;
  for (uint32_t t = 1; t <= 30; ++t) w.sample(t, w.at(t));
  const double limit_ticks = client::DrawOptions{}.remote_extrapolate_s * 60;  // 6
  proto::Nanos now = kS;
  double view = 28;
  Vec3 last;
  // Frames at 144 Hz: the view passes the newest sample (30) and goes on for 12 more ticks.
  for (int f = 0; view < 42; ++f) {
    const auto d = w.draw(30, view, now);
    if (view <= 30) {
      EXPECT_FALSE(d.extrapolated);
    } else {
      EXPECT_TRUE(d.extrapolated);
      const double ahead = std::min(view - 30, limit_ticks);
      EXPECT_NEAR(d.position.x, to_position(quantize_position(w.at(30))).x + w.speed * ahead / 60, 1e-6) << "view " << view;
      if (view - 30 > limit_ticks) {
        EXPECT_EQ(d.velocity.x, 0) << "held once the limit ran out";
      } else {
        EXPECT_NEAR(d.velocity.x, w.speed, 1e-9);
      }
    }
    last = d.position;
    now += kS / 144;
    view += 60.0 / 144;
  }
  // The snapshots come at last: it stopped at tick 31. What was drawn stays, then goes back to the
  // truth no faster than the release bound.
  for (uint32_t t = 31; t <= 45; ++t) w.sample(t, w.at(31));
  const client::DrawOptions o;
  Vec3 drawn = last;
  for (int f = 0; f < 144; ++f) {
    const auto d = w.draw(45, view, now);
    EXPECT_LE(std::sqrt(length_sq(d.position - drawn)), o.max_release_mps / 144 + 1e-9) << "frame " << f;
    drawn = d.position;
    now += kS / 144;
    view += 60.0 / 144;
  }
  EXPECT_EQ(w.drawing.smoothed(), 1u);
  EXPECT_NEAR(drawn.x, to_position(quantize_position(w.at(31))).x, 0.01) << "a second later, at the truth";
}

TEST(RemoteDrawing, OneThatANewerSnapshotLeftOutIsHeldNotCarriedOn) {
  Walk w;
  for (uint32_t t = 1; t <= 30; ++t) w.sample(t, w.at(t));
  // Snapshot 34 did not send it: it did not move since 30.
  const auto d = w.draw(34, 32, kS);
  EXPECT_FALSE(d.extrapolated);
  EXPECT_EQ(d.position, to_position(quantize_position(w.at(30))));
}

TEST(RemoteDrawing, ACharacterOnAMoverIsCarriedOnByTheMover) {
  Walk w;
  const auto& chain = arena_world().movers()[0].chain;
  const Vec3 local{0.3, 1, -0.2};
  const auto on_mover = [&](uint32_t t) { return apply(chain_pose(chain, t, 60), local); };
  for (uint32_t t = 100; t <= 110; ++t) w.sample(t, to_position(quantize_position(on_mover(t))));
  w.others[0].platform = 1;
  const auto d = w.draw(110, 113, kS);
  EXPECT_TRUE(d.extrapolated);
  // Carried by the mover from where its newest sample had it (its own motion aboard is nil here,
  // up to the grid).
  const Vec3 expected = apply(chain_pose(chain, 113, 60), apply(inverse(chain_pose(chain, 110, 60)), to_position(quantize_position(on_mover(110)))));
  EXPECT_NEAR(d.position.x, expected.x, 0.005);
  EXPECT_NEAR(d.position.y, expected.y, 0.005);
  EXPECT_NEAR(d.position.z, expected.z, 0.005);
  EXPECT_GT(std::sqrt(length_sq(expected - on_mover(110))), 0.02) << "the arena's first mover moves in those ticks";
}

TEST(RemoteDrawing, ACrouchLowersTheCentreAndMovesNoOne) {
  Walk w;
  w.speed = 0;
  for (uint32_t t = 1; t <= 10; ++t) w.sample(t, w.at(t));
  const double drop = w.s.crouch_drop;
  for (uint32_t t = 11; t <= 20; ++t) w.samples.add(7, t, quantize_position(w.at(t) - Vec3{0, drop, 0}), GroundKind::kWalkable, true);
  for (double view = 9; view < 13; view += 0.25) {
    const auto d = w.drawing.raw(w.frame(20, view, 0), w.others[0], view);
    ASSERT_TRUE(d);
    EXPECT_EQ(d->crouched, view >= 10.5) << view;
    EXPECT_NEAR(d->position.y + (d->crouched ? drop : 0), to_position(quantize_position(w.at(1))).y, 1e-9) << "the feet stay: " << view;
    EXPECT_EQ(d->velocity.y, 0) << view;
  }
}

// A character walking off the ledge (a 2 m drop), as the step moves it, its snapshots (every tick,
// published positions) received up to `newest` and none after for more than the limit: the drawn
// pose past `newest` against where the later snapshots put it.
struct LedgeFall {
  DerivedSettings s = derive(MoveSettings{});
  replay::ScenarioRun run = run_script(
      arena_world(), {arena::kLedgeX1 - 1, arena::kLedgeHeight + 1.5, (arena::kStairZ0 + arena::kStairZ1) / 2}, "30 0 0 -\n60 1 0 -\n");
  Vec3 truth(double tick) const {
    const auto at = [&](std::size_t t) { return to_position(published_position(run.rows[t].state.position)); };
    const std::size_t whole = std::size_t(tick);
    return at(whole) + (at(whole + 1) - at(whole)) * (tick - double(whole));
  }
  // The worst height error drawn over the limit past `newest`, at 144 frames a second, against the
  // line through the snapshots (which lands up to a tick late: the step lands it from up to a
  // tick's fall above the floor); `at_ticks`: the worst at whole ticks, where the snapshots are;
  // `lowest`: the lowest drawn centre.
  double worst(uint32_t newest, double& at_ticks, double& lowest) const {
    RemoteInterpolator samples;
    for (uint32_t t = 1; t <= newest; ++t) {
      const CharacterState& c = run.rows[t].state;
      samples.add(7, t, published_position(c.position), c.ground, c.crouched);
    }
    client::RemoteDrawing drawing{arena_world(), s};
    const std::vector<OtherCharacter> others{{7, {}, false, 0}};
    double err = 0;
    at_ticks = 0;
    lowest = 1e9;
    for (double view = newest; view <= newest + 6; view += 60.0 / 144) {
      const auto d = drawing.raw({samples, others, newest, 8, view, 0}, others[0], view);
      EXPECT_TRUE(d && (view == newest || d->extrapolated));
      err = std::max(err, std::abs(d->position.y - truth(view).y));
      lowest = std::min(lowest, d->position.y);
    }
    for (uint32_t t = newest + 1; t <= newest + 6; ++t) {
      const auto d = drawing.raw({samples, others, newest, 8, double(t), 0}, others[0], double(t));
      at_ticks = std::max(at_ticks, std::abs(d->position.y - truth(t).y));
    }
    return err;
  }
};

TEST(RemoteDrawing, OneWalkingOffALedgeFallsOnPastItsNewestSnapshotAndLandsOnTheFloorWithoutSinking) {
  LedgeFall fall;
  int left = -1;
  for (std::size_t t = 31; t < fall.run.rows.size() && left < 0; ++t)
    if (fall.run.rows[t].state.ground == GroundKind::kNone) left = int(t);
  ASSERT_GT(left, 0);
  const int landed = first_grounded(fall.run, left);
  ASSERT_GT(landed, left + 12) << "a 2 m fall takes about 27 ticks";
  double at_ticks = 0, lowest = 0;
  // Its newest snapshot the first (and then the second, the fifth) that has it in the air: the
  // snapshots after it are lost for 100 ms while it falls (39 to 51 cm: it rolled off the edge).
  // Within the 4 mm grid snapshots are published on, a tick's motion is known to 4 mm, so six
  // ticks' to about 2.5 cm.
  for (int after : {0, 1, 4}) {
    EXPECT_LT(fall.worst(uint32_t(left + after), at_ticks, lowest), 0.025) << "no hover: snapshots to tick " << left + after;
  }
  // Landing in the gap: it stops on the floor at the height it rests at, not below.
  for (int before : {1, 3, 5}) {
    EXPECT_LT(fall.worst(uint32_t(landed - before), at_ticks, lowest), 0.05) << "the last snapshot " << before << " ticks before landing";
    EXPECT_LT(at_ticks, 0.025) << "the last snapshot " << before << " ticks before landing";
    EXPECT_GE(lowest, rest_height() - 0.005) << "no sinking (snapshots are published on a 4 mm grid): the last snapshot " << before
                                             << " ticks before landing";
  }
}

}  // namespace
}  // namespace foothold::test
