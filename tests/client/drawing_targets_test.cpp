// #37's targets on the simulated network, where frames fall exactly at their times whatever the
// machine's load: 16 clients riding the arena's movers at about 100 ms round trip, 10 ms jitter and
// 5% loss, each drawing itself and the others at 144 frames a second as a game would
// (bots::FrameWatch, the measure foothold-bot --frame-rate reports). No drawn pop of the own
// character over 2 cm, no frame in which a moving character stands still, no pop of another over 5 cm,
// and at most 13% of the compared snapshots corrected by another character.

#include <cstdio>

#include <gtest/gtest.h>

#include "bots/frame_watch.h"
#include "client/impairment.h"
#include "shared/arena.h"
#include "support/scenario_support.h"
#include "support/sim_harness.h"

namespace foothold::test {
namespace {

constexpr proto::Nanos kS = proto::kSecond;

struct Ride {
  bots::FrameCounts counts;
  uint64_t compared = 0, corrections = 0, interactions = 0, unexplained = 0;
};

// A game's frames stall now and then (a busy machine, a hitch): none is drawn in the first `hitch`
// of every `every` (0: none).
struct Hitches {
  proto::Nanos hitch = 0, every = kS;
};

Ride ride(const client::DrawOptions& draw, int seconds, uint64_t seed = 1, Hitches hitches = {}) {
  HarnessOptions o;
  o.seed = seed;
  o.clients = 16;
  o.pattern = bots::Pattern::kRide;
  SimHarness h(arena_world(), o);
  h.network().set_impairment(bad_network());
  for (int i = 0; i < o.clients; ++i) h.client(i).set_draw_options(draw);
  h.start_all();
  std::vector<bots::FrameWatch> watch(size_t(o.clients));
  const proto::Nanos frame = kS / 144;
  for (proto::Nanos t = 0; t < seconds * kS; t += frame) {
    h.run_for(frame);
    if (t % hitches.every < hitches.hitch) continue;
    for (int i = 0; i < o.clients; ++i) watch[size_t(i)].frame(h.client(i), h.now());
  }
  Ride r;
  for (int i = 0; i < o.clients; ++i) {
    r.counts += watch[size_t(i)].counts();
    const auto& p = h.client(i).predictor().counters();
    r.compared += h.client(i).stats().compared;
    r.corrections += p.corrections;
    r.interactions += p.interactions;
    r.unexplained += p.unexplained;
  }
  std::printf("frames=%llu pop_max_m=%.4f pops_over_2cm=%llu remote_stalls=%llu remote_pop_max_m=%.4f compared=%llu "
              "corrections=%llu interactions=%llu\n",
              (unsigned long long)r.counts.frames, r.counts.pop_max_m, (unsigned long long)r.counts.pops_over_2cm,
              (unsigned long long)r.counts.remote_stalls, r.counts.remote_pop_max_m, (unsigned long long)r.compared,
              (unsigned long long)r.corrections, (unsigned long long)r.interactions);
  std::printf("seed=%llu pop_max_at=%s remote_pop_max_at=%s\n", (unsigned long long)seed, r.counts.pop_max_at.text().c_str(),
              r.counts.remote_pop_max_at.text().c_str());
  return r;
}

TEST(DrawingTargets, RidingInACrowdOnABadNetworkDrawsWithoutPopsOrStalls) {
  const Ride r = ride(client::DrawOptions{}, 10);
  EXPECT_GT(r.counts.frames, 16u * 144 * 8) << "every client drew most of the time";
  EXPECT_GT(r.corrections, 100u) << "the crowd corrects the predictions: there is something to smooth";
  EXPECT_EQ(r.unexplained, 0u);
  EXPECT_LE(r.counts.pop_max_m, 0.02);
  EXPECT_EQ(r.counts.pops_over_2cm, 0u);
  EXPECT_EQ(r.counts.remote_stalls, 0u);
  EXPECT_LE(r.counts.remote_pop_max_m, 0.05);
  // Corrections by other characters: at most half the 26% of compared snapshots measured before
  // the nearest were stepped on the client (16.5% here with them carried, 5.5% stepped).
  EXPECT_LE(double(r.interactions), 0.13 * double(r.compared)) << r.interactions << " of " << r.compared;
}

// #69: frames 30 ms late (every 0.4 s, from 0.2 s into each) show the others where they are then. A
// late frame's move is measured against the path the snapshots give between the two moments drawn,
// as the own character's is against its prediction; measured by the drawn velocities at its ends,
// anything that turned, landed or fell in between counted as a pop (0.18 m here; 0.34-0.40 m on
// real sockets, where a busy machine drew a rider falling off the elevator 45-60 ms late).
TEST(DrawingTargets, AFrameLateDrawsTheOthersWhereTheirMotionTakesThem) {
  const Ride r = ride(client::DrawOptions{}, 10, 1, Hitches{30 * proto::kMillisecond, kS * 2 / 5});
  EXPECT_EQ(r.unexplained, 0u);
  EXPECT_EQ(r.counts.remote_stalls, 0u);
  EXPECT_LE(r.counts.remote_pop_max_m, 0.08) << r.counts.remote_pop_max_at.text();
}

TEST(DrawingTargets, WithSmoothingOffTheSameCorrectionsPop) {
  client::DrawOptions off;
  off.smoothing_s = 0;
  const Ride r = ride(off, 5);
  EXPECT_GT(r.counts.pop_max_m, 0.05) << "a correction shown at once jumps by its size";
  EXPECT_GT(r.counts.pops_over_2cm, 10u);
}

}  // namespace
}  // namespace foothold::test
