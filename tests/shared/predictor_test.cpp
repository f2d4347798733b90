// Prediction and reconciliation, and remote interpolation.

#include <algorithm>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>

#include "shared/animation.h"
#include "shared/interpolation.h"
#include "shared/predictor.h"
#include "support/scenario_support.h"

namespace foothold::test {
namespace {

// A predictor keeps references: built from temporaries it would dangle, so that does not compile.
static_assert(std::is_constructible_v<Predictor, const World&, const DerivedSettings&>);
static_assert(!std::is_constructible_v<Predictor, const World&, DerivedSettings>);
static_assert(!std::is_constructible_v<Predictor, World, const DerivedSettings&>);

struct Fixture {
  DerivedSettings s = derive(MoveSettings{});
  Predictor p{arena_world(), s};
  StepScratch scratch;
  CharacterState start = spawn_state(arena::kOpenFloor + Vec3{0, 1, 0});
};

// What the predictor adds to step(): a history by tick, and a snapshot equal to its prediction for
// that tick changes nothing but the acknowledged tick. (That prediction equals the server's state is
// tested where a server exists: ServerCore.ClientsConnectAndPlayWithoutCorrections on the simulated
// network, and between processes over real sockets in the loopback tests.)
TEST(Predictor, AMatchingSnapshotChangesNothingButTheAcknowledgedTick) {
  Fixture f;
  f.p.reset(10, f.start);
  CharacterState server = f.start;
  for (uint32_t t = 11; t <= 40; ++t) {
    const InputCmd in = encode_move(1, 0, 0, t);
    f.p.predict(in);
    server = step(server, in, arena_world(), f.s, f.scratch).state;
  }
  EXPECT_EQ(f.p.latest_tick(), 40u);
  const auto r = f.p.reconcile(30, [&] {
    CharacterState st = f.start;
    for (uint32_t t = 11; t <= 30; ++t) st = step(st, encode_move(1, 0, 0, t), arena_world(), f.s, f.scratch).state;
    return st;
  }(), 0);
  EXPECT_EQ(r.outcome, Predictor::Outcome::kMatched);
  EXPECT_EQ(f.p.acknowledged_tick(), 30u);
  EXPECT_EQ(f.p.latest_tick(), 40u);
  EXPECT_EQ(f.p.latest_state(), server);
  EXPECT_NE(f.p.latest_state().position, f.start.position);
  EXPECT_EQ(f.p.counters().corrections, 0u);
}

// Movement.md §16: a client predicts its character against the others as its snapshots show them.
// Walking into one that stands still, it knows exactly where that one is: not one correction.
TEST(Predictor, WalkingIntoACharacterThatStandsStillPredictsExactly) {
  Fixture f;
  const Vec3 o = arena::kOpenFloor;
  // The server: character 1 walks into character 2, who stands still; both step as the server does.
  CharacterState a = spawn_state(o + Vec3{-2, rest_height(), 0}), b = spawn_state(o + Vec3{0, rest_height(), 0});
  StepScratch server_scratch;
  f.p.reset(0, a);
  int met = 0;
  for (uint32_t t = 1; t <= 120; ++t) {
    const InputCmd walk = encode_move(1, 0, 0, t);
    // The client's view of character 2: the last snapshot's (one tick old, as after tick t - 1).
    const OtherCharacter seen_b = as_other(2, b);
    f.p.set_others(std::span(&seen_b, 1), 1);
    f.p.predict(walk);
    const OtherCharacter seen_a = as_other(1, a);
    const StepResult ra = step(a, walk, arena_world(), f.s, server_scratch, {nullptr, std::span(&seen_b, 1), 1});
    b = step(b, encode_move(0, 0, 0, t), arena_world(), f.s, server_scratch, {nullptr, std::span(&seen_a, 1), 2}).state;
    a = ra.state;
    met += ra.diagnostics.characters_near > 0;
    const auto r = f.p.reconcile(t, a, 0, ra.diagnostics.characters_near > 0 ? 1u : 0u);
    ASSERT_EQ(r.outcome, Predictor::Outcome::kMatched) << "tick " << t;
  }
  EXPECT_GT(met, 30) << "it walked into the other one and stayed against it";
  EXPECT_EQ(f.p.counters().corrections, 0u);
  // Touching: each keeps the safety margin from the fence halfway between them, as seen at 1/256 m.
  const double apart = length(horizontal(to_position(a.position) - to_position(b.position)));
  EXPECT_GE(apart, 2 * f.s.radius);
  EXPECT_LE(apart, 2 * f.s.radius + 2 * f.s.safety_margin + 4 * kPositionQuantum);
}

// A correction that neither a repeated input explains but another character's move does is an
// interaction, not a determinism bug.
TEST(Predictor, ACorrectionWhereAnotherCharacterWasMetIsAnInteraction) {
  Fixture f;
  const Vec3 o = arena::kOpenFloor;
  const CharacterState a = spawn_state(o + Vec3{-1, rest_height(), 0});
  f.p.reset(0, a);
  // The client believes character 2 is far away; on the server it stepped in front.
  const OtherCharacter far{2, quantize_position(o + Vec3{20, rest_height(), 0}), false, 0};
  f.p.set_others(std::span(&far, 1), 1);
  for (uint32_t t = 1; t <= 30; ++t) f.p.predict(encode_move(1, 0, 0, t));
  const OtherCharacter near{2, published_position(quantize_position(o + Vec3{-0.1, rest_height(), 0})), false, 0};
  CharacterState server = a;
  StepScratch scratch;
  uint32_t mask = 0;
  for (uint32_t t = 1; t <= 10; ++t) {
    const StepResult r = step(server, encode_move(1, 0, 0, t), arena_world(), f.s, scratch, {nullptr, std::span(&near, 1), 1});
    server = r.state;
    mask = (mask << 1) | (r.diagnostics.characters_near > 0 ? 1u : 0u);
  }
  const auto r = f.p.reconcile(10, server, 0, mask);
  EXPECT_EQ(r.outcome, Predictor::Outcome::kCorrected);
  EXPECT_TRUE(r.interaction);
  EXPECT_EQ(f.p.counters().interactions, 1u);
  EXPECT_EQ(f.p.counters().unexplained, 0u);
  // Without the server's word that it met someone (and with no one near in the prediction), the
  // same correction is unexplained.
  Fixture g;
  g.p.reset(0, a);
  for (uint32_t t = 1; t <= 30; ++t) g.p.predict(encode_move(1, 0, 0, t));
  g.p.reconcile(10, server, 0, 0);
  EXPECT_EQ(g.p.counters().unexplained, 1u);
}

TEST(Predictor, CorrectionRewindsAndReplaysAndIsExplainedByARepeatedInput) {
  Fixture f;
  f.p.reset(0, f.start);
  for (uint32_t t = 1; t <= 60; ++t) f.p.predict(encode_move(t > 20 ? 1 : 0, 0, 0, t));
  // The server never got tick 21's input and repeated tick 20's (standing still) for it.
  CharacterState server = f.start;
  for (uint32_t t = 1; t <= 30; ++t) server = step(server, encode_move(t > 21 ? 1 : 0, 0, 0, t), arena_world(), f.s, f.scratch).state;
  const auto r = f.p.reconcile(30, server, 1u << (30 - 21));
  EXPECT_EQ(r.outcome, Predictor::Outcome::kCorrected);
  EXPECT_TRUE(r.explained);
  EXPECT_EQ(r.replayed, 30u);
  EXPECT_GT(r.position_error, 0.05);
  // After the replay the prediction is what the server will compute from here on.
  for (uint32_t t = 31; t <= 60; ++t) server = step(server, encode_move(1, 0, 0, t), arena_world(), f.s, f.scratch).state;
  EXPECT_EQ(f.p.latest_state(), server);
  EXPECT_EQ(f.p.counters().unexplained, 0u);
}

TEST(Predictor, SameInputsDifferentStateIsUnexplained) {
  Fixture f;
  f.p.reset(0, f.start);
  for (uint32_t t = 1; t <= 10; ++t) f.p.predict(encode_move(0, 1, 0, t));
  CharacterState wrong = f.p.latest_state();
  wrong.position.x += 1;  // what a determinism bug would look like
  const auto r = f.p.reconcile(10, wrong, 0);
  EXPECT_EQ(r.outcome, Predictor::Outcome::kCorrected);
  EXPECT_FALSE(r.explained);
  EXPECT_EQ(f.p.counters().unexplained, 1u);
}

// A game froze the character at the start of tick 21 (server_mask): the correction is of its own
// class, and the replay after it predicts with the frozen state (its inputs ignored from then on).
TEST(Predictor, ACorrectionAfterAGameCommandIsAServerOneAndTheReplayKeepsItsEffect) {
  Fixture f;
  f.p.reset(0, f.start);
  for (uint32_t t = 1; t <= 40; ++t) f.p.predict(encode_move(t > 10 ? 1 : 0, 0, 0, t));
  CharacterState server = f.start;
  for (uint32_t t = 1; t <= 30; ++t) {
    if (t == 21) server.frozen = true;
    server = step(server, encode_move(t > 10 ? 1 : 0, 0, 0, t), arena_world(), f.s, f.scratch).state;
  }
  // An interaction bit too: the command is the surer cause, and it is not counted twice.
  const auto r = f.p.reconcile(30, server, 0, 1u << 2, 1u << (30 - 21));
  EXPECT_EQ(r.outcome, Predictor::Outcome::kCorrected);
  EXPECT_TRUE(r.explained);
  EXPECT_TRUE(r.server);
  EXPECT_FALSE(r.interaction);
  EXPECT_EQ(f.p.counters().server, 1u);
  EXPECT_EQ(f.p.counters().interactions, 0u);
  EXPECT_EQ(f.p.counters().unexplained, 0u);
  for (uint32_t t = 31; t <= 40; ++t) server = step(server, encode_move(1, 0, 0, t), arena_world(), f.s, f.scratch).state;
  EXPECT_EQ(f.p.latest_state(), server);
  EXPECT_TRUE(f.p.latest_state().frozen);
  // A server bit older than the ticks since the last confirmed one explains nothing new.
  CharacterState wrong = f.p.latest_state();
  wrong.position.x += 1;
  const auto later = f.p.reconcile(40, wrong, 0, 0, 1u << 10);
  EXPECT_FALSE(later.server);
  EXPECT_FALSE(later.explained);
  EXPECT_EQ(f.p.counters().unexplained, 1u);
}

// The predictor's history is the client's one record of its inputs: the session resends the ones the
// server has not had from it. It holds every input predicted since the last reset, the newest
// kHistory of them, unchanged by corrections.
TEST(Predictor, HoldsTheInputOfEveryTickSinceResetForTheClientToResend) {
  Fixture f;
  const auto input_for = [](uint32_t t) { return encode_move(double(int(t % 7) - 3) / 3, 0, uint8_t(t % 3 == 0 ? kButtonJump : 0), t); };
  f.p.reset(1000, f.start);
  EXPECT_EQ(f.p.oldest_input_tick(), 1001u) << "none held right after a reset";
  for (uint32_t t = 1001; t <= 1100; ++t) {
    InputCmd in = input_for(t);
    in.tick = 0;  // predict() numbers it
    f.p.predict(in);
  }
  EXPECT_EQ(f.p.oldest_input_tick(), 1001u);
  for (uint32_t t = 1001; t <= 1100; ++t) EXPECT_EQ(f.p.input(t), input_for(t)) << "tick " << t;
  // A correction replays the inputs; it changes none of them.
  CharacterState moved = f.p.latest_state();
  moved.position.x += 4096;
  ASSERT_EQ(f.p.reconcile(1050, moved, 1).outcome, Predictor::Outcome::kCorrected);
  for (uint32_t t = 1001; t <= 1100; ++t) EXPECT_EQ(f.p.input(t), input_for(t)) << "tick " << t;
  // Past kHistory predictions, the oldest go: exactly the newest kHistory are held.
  for (uint32_t t = 1101; t <= 1000 + Predictor::kHistory + 40; ++t) f.p.predict(input_for(t));
  const uint32_t latest = 1000 + Predictor::kHistory + 40;
  EXPECT_EQ(f.p.latest_tick(), latest);
  EXPECT_EQ(f.p.oldest_input_tick(), latest - Predictor::kHistory + 1);
  for (uint32_t t = f.p.oldest_input_tick(); t <= latest; ++t) ASSERT_EQ(f.p.input(t), input_for(t)) << "tick " << t;
  // A server ahead of every prediction restarts the history: nothing before its tick is held.
  ASSERT_EQ(f.p.reconcile(latest + 5, f.start, 0).outcome, Predictor::Outcome::kAhead);
  EXPECT_EQ(f.p.oldest_input_tick(), latest + 6);
  f.p.predict(input_for(latest + 6));
  EXPECT_EQ(f.p.oldest_input_tick(), latest + 6);
  EXPECT_EQ(f.p.input(latest + 6), input_for(latest + 6));
}

TEST(Predictor, StaleAndAheadSnapshots) {
  Fixture f;
  f.p.reset(100, f.start);
  for (uint32_t t = 101; t <= 110; ++t) f.p.predict(encode_move(0, 0, 0, t));
  EXPECT_EQ(f.p.reconcile(100, f.start, 0).outcome, Predictor::Outcome::kStale);
  const auto ahead = f.p.reconcile(120, f.start, 0);
  EXPECT_EQ(ahead.outcome, Predictor::Outcome::kAhead);
  EXPECT_TRUE(ahead.explained);
  EXPECT_EQ(f.p.latest_tick(), 120u);
  EXPECT_EQ(f.p.reconcile(115, f.start, 0).outcome, Predictor::Outcome::kStale) << "older than the restart";
}

TEST(RemoteInterpolator, InterpolatesBetweenSnapshotsAndHoldsAtTheEnds) {
  RemoteInterpolator r;
  r.add(7, 10, {0, 0, 0}, GroundKind::kWalkable);
  r.add(7, 14, {1024 * 4, 0, 0}, GroundKind::kNone);
  r.add(7, 12, {1024 * 2, 1024, 0}, GroundKind::kWalkable);  // arrives out of order
  const auto mid = r.sample(7, 11.0);
  ASSERT_TRUE(mid);
  EXPECT_DOUBLE_EQ(mid->position.x, 1.0);
  EXPECT_DOUBLE_EQ(mid->position.y, 0.5);
  EXPECT_DOUBLE_EQ(r.sample(7, 13.5)->position.x, 3.5);
  EXPECT_DOUBLE_EQ(r.sample(7, 5.0)->position.x, 0.0);
  EXPECT_DOUBLE_EQ(r.sample(7, 99.0)->position.x, 4.0);
  EXPECT_FALSE(r.sample(8, 11.0));
  r.forget_before(20);
  EXPECT_EQ(r.size(), 0u);
}

// A full track with uneven gaps: every moment between the first sample and the last lies on the
// line between the two samples around it, and the motion is that segment's, wherever in the track
// it falls (the segment is looked for from the newest end); a sample's own moment is the sample.
TEST(RemoteInterpolator, EveryMomentOfAFullTrackIsOnItsOwnSegment) {
  RemoteInterpolator r;
  std::vector<std::pair<uint32_t, int32_t>> kept;  // tick, x (raw), the newest kSamples
  uint32_t tick = 100;
  for (int k = 0; k < RemoteInterpolator::kSamples + 9; ++k) {  // more than a track keeps
    tick += 1 + uint32_t(k % 3);
    const int32_t x = 1024 * k + 37 * (k % 5);
    r.add(3, tick, {x, 0, 0}, GroundKind::kWalkable);
    kept.push_back({tick, x});
  }
  kept.erase(kept.begin(), kept.end() - RemoteInterpolator::kSamples);
  for (std::size_t i = 1; i < kept.size(); ++i) {
    const auto [ta, xa] = kept[i - 1];
    const auto [tb, xb] = kept[i];
    EXPECT_DOUBLE_EQ(r.sample(3, ta)->position.x, double(xa) / kPositionScale) << "at sample " << ta;
    for (double f : {0.01, 0.25, 0.5, 0.99}) {
      const double at = ta + f * double(tb - ta);
      const auto s = r.sample(3, at);
      ASSERT_TRUE(s);
      const double per_tick = double(xb - xa) / kPositionScale / double(tb - ta);
      EXPECT_NEAR(s->position.x, double(xa) / kPositionScale + per_tick * (at - ta), 1e-12) << "at " << at;
      EXPECT_NEAR(s->motion.x, per_tick, 1e-12) << "at " << at;
    }
  }
}

// Predictor::set_others with motion: the step of tick t sees each other carried on by its motion
// for t - 1 - seen ticks, across the ground only, each axis bounded by the walk speed, at most
// kOthersHorizonMs, one on a mover left to it, every position on the published grid.
TEST(Predictor, OthersAreCarriedOnByTheirMotionAcrossTheGroundBoundedAndOnAMoverByTheMover) {
  Fixture f;
  const FixedVec3 at{10240, 1024, -2048};
  const OtherCharacter others[] = {{2, at, false, 0}, {3, at, false, 0}, {4, at, false, 1}};
  const int32_t bound = int32_t(f.s.walk_speed * kPositionScale / f.s.tick_rate);  // 85 at 5 m/s, 60 Hz
  const FixedVec3 motion[] = {{12, 40, -9}, {bound * 3, 0, -bound * 3}, {12, 0, 12}};
  f.p.set_others(others, 1, 100, motion);
  std::vector<OtherCharacter> seen;
  f.p.others_at(101, seen);
  EXPECT_EQ(seen, std::vector<OtherCharacter>(std::begin(others), std::end(others))) << "the tick after the snapshot: as it showed them";
  f.p.others_at(105, seen);  // four ticks on
  EXPECT_EQ(seen[0].position, published_position({at.x + 48, at.y, at.z - 36}));
  EXPECT_EQ(seen[1].position, published_position({at.x + 4 * bound, at.y, at.z - 4 * bound}));
  // On a mover: carried by it from the snapshot's tick to the end of tick 104 (the step carries it
  // through 105), and its own motion across the deck on top.
  ASSERT_FALSE(arena_world().movers().empty());
  const auto& chain = arena_world().movers()[0].chain;
  const Vec3 carried = apply(chain_pose(chain, 104, f.s.tick_rate), apply(inverse(chain_pose(chain, 100, f.s.tick_rate)), to_position(at)));
  const FixedVec3 c = quantize_position(carried);
  EXPECT_EQ(seen[2].position, published_position({c.x + 48, c.y, c.z + 48}));
  EXPECT_NE(seen[2].position, at) << "the arena's first mover moves between ticks 100 and 104";
  const uint32_t horizon = Predictor::kOthersHorizonMs * uint32_t(f.s.tick_rate) / 1000;
  f.p.others_at(101 + horizon, seen);
  const FixedVec3 far = seen[0].position;
  EXPECT_EQ(far, published_position({at.x + 12 * int32_t(horizon), at.y, at.z - 9 * int32_t(horizon)}));
  f.p.others_at(101 + horizon + 30, seen);
  EXPECT_EQ(seen[0].position, far) << "held past the horizon";
  // Without motion (or with a list that does not match), nothing is carried.
  f.p.set_others(others, 1, 100, std::span(motion, 2));
  f.p.others_at(120, seen);
  EXPECT_EQ(seen[0].position, at);
}

// What the carrying is for: a client a round trip behind the server (its snapshots six ticks old)
// walks across the path of one who walks at a steady pace. Stepping against where the snapshots
// showed that one, its prediction is corrected again and again as they meet; carried on by its
// motion, not at all when they only brush, and about half as often in all (54 against 107 when
// written; what is left is the other's own reaction to the meeting, which no guess foresees).
TEST(Predictor, CarryingOthersOnByTheirMotionPredictsAMeetingBetter) {
  const auto corrections = [](bool carry, double b_start) {
    Fixture f;
    const Vec3 o = arena::kOpenFloor;
    CharacterState a = spawn_state(o + Vec3{-3, rest_height(), 0}), b = spawn_state(o + Vec3{0, rest_height(), b_start});
    StepScratch scratch;
    RemoteInterpolator remotes;
    std::vector<CharacterState> a_after(1, a), b_after(1, b);  // after each tick, from tick 0
    std::vector<bool> met(1, false);                          // a's step met b, by tick
    constexpr uint32_t kBehind = 6;
    f.p.reset(0, a);
    for (uint32_t t = 1; t <= 150; ++t) {
      // The client predicts tick t knowing both as of tick t - 1 - kBehind (its newest snapshot).
      if (t > kBehind + 1) {
        const uint32_t seen = t - 1 - kBehind;
        const OtherCharacter b_seen = as_other(2, b_after[seen]);
        remotes.add(2, seen, b_seen.position, GroundKind::kWalkable);
        const FixedVec3 m = remotes.motion(2, seen, 8);
        if (carry) {
          f.p.set_others(std::span(&b_seen, 1), 1, seen, std::span(&m, 1));
        } else {
          f.p.set_others(std::span(&b_seen, 1), 1);
        }
        uint32_t mask = 0;
        for (uint32_t k = 0; k < 32 && k < seen; ++k) mask |= uint32_t(met[seen - k]) << k;
        f.p.reconcile(seen, a_after[seen], 0, mask);
      }
      f.p.predict(encode_move(1, 0, 0, t));
      // The server's tick t: each sees the other as after tick t - 1.
      const OtherCharacter sa = as_other(1, a), sb = as_other(2, b);
      const StepResult ra = step(a, encode_move(1, 0, 0, t), arena_world(), f.s, scratch, {nullptr, std::span(&sb, 1), 1});
      b = step(b, encode_move(0, 1, 0, t), arena_world(), f.s, scratch, {nullptr, std::span(&sa, 1), 2}).state;
      a = ra.state;
      a_after.push_back(a);
      b_after.push_back(b);
      met.push_back(ra.diagnostics.characters_near > 0);
    }
    EXPECT_GT(std::count(met.begin(), met.end(), true), 5) << "they never met: the test proves nothing";
    EXPECT_EQ(f.p.counters().unexplained, 0u);
    return f.p.counters().corrections;
  };
  // b starts at 18 places along its line, from crossing just ahead of a to running into its side.
  // (Met head on, both are stopped by the meeting itself, which no guess foresees: -3 m corrects
  // 57 times either way.)
  uint64_t still = 0, carried = 0;
  for (int i = 0; i < 18; ++i) {
    still += corrections(false, -1.2 - 0.1 * i);
    carried += corrections(true, -1.2 - 0.1 * i);
  }
  EXPECT_GT(still, 18u);
  EXPECT_LE(carried * 10, still * 6) << "carried " << carried << ", left where seen " << still;
}

// RemoteInterpolator::motion: the last two samples' difference per tick, across the ground, rounded
// toward zero; nothing from one sample, from a newest sample that is not the snapshot's, or from two
// too far apart.
TEST(RemoteInterpolator, MotionIsTheLastTwoSamplesPerTickAcrossTheGround) {
  RemoteInterpolator r;
  r.add(7, 10, {0, 0, 0}, GroundKind::kWalkable);
  EXPECT_EQ(r.motion(7, 10, 8), FixedVec3{}) << "one sample";
  r.add(7, 12, {101, 500, -101}, GroundKind::kWalkable);
  EXPECT_EQ(r.motion(7, 12, 8), (FixedVec3{50, 0, -50})) << "101 / 2 toward zero, both ways; y left out";
  EXPECT_EQ(r.motion(7, 13, 8), FixedVec3{}) << "the snapshot of 13 did not send it: it stood still";
  EXPECT_EQ(r.motion(7, 12, 1), FixedVec3{}) << "two ticks apart, one allowed";
  EXPECT_EQ(r.motion(8, 12, 8), FixedVec3{}) << "unknown";
}

}  // namespace
}  // namespace foothold::test
