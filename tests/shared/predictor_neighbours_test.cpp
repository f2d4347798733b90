// Neighbours a snapshot gives in full: the predictor steps them itself, with their inputs held, the
// way the server's tick steps everyone (Predictor::set_others, PredictedNeighbour).

#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "shared/arena.h"
#include "shared/predictor.h"
#include "shared/tick.h"
#include "support/scenario_support.h"

namespace foothold::test {
namespace {

constexpr int kCrowd = 5;
constexpr uint32_t kTicks = 60;
// Tick 6 the characters come within reach of each other, tick 18 the crowd stands jammed: the
// snapshot falls while they meet and push each other to a halt.
constexpr uint32_t kSnapshot = 10;

// Five characters on the open floor, each walking with one unchanging input toward a point a little
// off the middle of the ring they start on: they meet, slide along each other and jam. The server's
// states after every tick (states[t][i], character id i + 1) and the inputs.
struct Crowd {
  DerivedSettings settings = derive(MoveSettings{});
  std::vector<std::vector<CharacterState>> states;
  std::vector<InputCmd> inputs;                  // as of the last tick
  std::vector<std::vector<InputCmd>> inputs_at;  // [t - 1]: every one's input for tick t
  // `turn`: character 2 (index 1) walks the other way from tick kSnapshot + 2 on.
  explicit Crowd(bool turn = false) {
    const Vec3 middle = arena::kOpenFloor + Vec3{0.3, 0, -0.2};
    std::vector<CharacterState> now;
    for (int i = 0; i < kCrowd; ++i) {
      const double a = 2 * 3.14159265358979 * i / kCrowd;
      const Vec3 at = arena::kOpenFloor + Vec3{1.6 * std::cos(a), 1, 1.6 * std::sin(a)};
      now.push_back(spawn_state(at));
      inputs.push_back(encode_move(middle.x - at.x, middle.z - at.z, 0, 0));
    }
    states.push_back(now);
    TickRunner runner;
    std::vector<TickCharacter> characters(kCrowd);
    for (uint32_t t = 1; t <= kTicks; ++t) {
      if (turn && t == kSnapshot + 2) inputs[1] = {0, int8_t(-inputs[1].move_x), int8_t(-inputs[1].move_z), 0};
      inputs_at.push_back(inputs);
      for (int i = 0; i < kCrowd; ++i) characters[size_t(i)] = {uint32_t(i + 1), now[size_t(i)], inputs[size_t(i)]};
      runner.run(t, characters, arena_world(), settings);
      for (int i = 0; i < kCrowd; ++i) now[size_t(i)] = runner.results()[size_t(i)].state;
      states.push_back(now);
    }
  }
  InputCmd input(int i, uint32_t tick) const {
    InputCmd in = inputs_at[tick - 1][size_t(i)];
    in.tick = tick;
    return in;
  }
  // What a snapshot of tick `t` tells character `self`: every other as published, and (when
  // `in_full`) each in full with its input.
  // With `ahead`, each neighbour's inputs for that many ticks after `t`, as a server that already
  // held them gives them.
  void tell(Predictor& p, int self, uint32_t t, bool in_full, uint8_t ahead = 0) const {
    std::vector<OtherCharacter> others;
    std::vector<PredictedNeighbour> neighbours;
    for (int i = 0; i < kCrowd; ++i) {
      if (i == self) continue;
      others.push_back(as_other(uint32_t(i + 1), states[t][size_t(i)]));
      PredictedNeighbour n{uint32_t(i + 1), states[t][size_t(i)], input(i, t)};
      n.ahead_count = ahead;
      for (uint8_t k = 0; k < ahead; ++k) n.ahead[k] = input(i, t + 1 + k);
      if (in_full) neighbours.push_back(n);
    }
    p.set_others(others, uint32_t(self + 1), t, {}, neighbours);
  }
};

const Crowd& crowd() {
  static const Crowd c;
  return c;
}

// While the neighbours' inputs do not change, a crowd's pushes predict exactly however far ahead:
// each one steps as the server stepped it. Held where the snapshot showed them, the others are wrong
// within a tick or two and so is every prediction that meets them.
TEST(PredictorNeighbours, ACrowdPushingWithUnchangingInputsPredictsExactly) {
  const Crowd& c = crowd();
  int held_wrong = 0, met = 0;
  for (int self = 0; self < kCrowd; ++self) {
    for (const bool in_full : {true, false}) {
      Predictor p(arena_world(), c.settings);
      p.reset(kSnapshot, c.states[kSnapshot][size_t(self)]);
      c.tell(p, self, kSnapshot, in_full);
      for (uint32_t t = kSnapshot + 1; t <= kSnapshot + 20; ++t) {
        const CharacterState& predicted = p.predict(c.input(self, t));
        if (in_full) {
          ASSERT_EQ(predicted, c.states[t][size_t(self)]) << "character " << self + 1 << ", tick " << t;
          met += p.met(t);
        } else {
          held_wrong += !(predicted == c.states[t][size_t(self)]);
        }
      }
    }
  }
  EXPECT_GT(met, kCrowd * 10) << "the crowd pushes: most predicted steps meet another character";
  EXPECT_GT(held_wrong, kCrowd * 10) << "held where the snapshot showed them, the others mislead the predictions";
}

// Where the others are as the step of a tick sees them: each neighbour where the server's tick left
// it the tick before.
TEST(PredictorNeighbours, OthersAtATickAreTheNeighboursAsSteppedThroughTheTickBefore) {
  const Crowd& c = crowd();
  Predictor p(arena_world(), c.settings);
  p.reset(kSnapshot, c.states[kSnapshot][0]);
  c.tell(p, 0, kSnapshot, true);
  for (uint32_t t = kSnapshot + 1; t <= kSnapshot + 8; ++t) p.predict(c.input(0, t));
  std::vector<OtherCharacter> seen;
  p.others_at(kSnapshot + 8, seen);
  ASSERT_EQ(seen.size(), size_t(kCrowd - 1));
  for (int i = 1; i < kCrowd; ++i) EXPECT_EQ(seen[size_t(i - 1)], as_other(uint32_t(i + 1), c.states[kSnapshot + 7][size_t(i)]));
  EXPECT_NE(seen[0].position, as_other(2, c.states[kSnapshot][1]).position) << "they moved since the snapshot";
}

// A correction rewinds this character to the server's state, and the neighbours, which pushed
// against its wrong predictions, are stepped again against the corrected ones: after the replay the
// predictions are exact again.
TEST(PredictorNeighbours, AfterACorrectionTheNeighboursAreSteppedAgainstTheCorrectedPredictions) {
  const Crowd& c = crowd();
  const int self = 2;
  Predictor p(arena_world(), c.settings);
  CharacterState wrong = c.states[kSnapshot][size_t(self)];
  wrong.position.x += 60;  // 6 cm off: a different push from the first tick
  p.reset(kSnapshot, wrong);
  c.tell(p, self, kSnapshot, true);
  for (uint32_t t = kSnapshot + 1; t <= kSnapshot + 12; ++t) p.predict(c.input(self, t));
  const uint32_t next = kSnapshot + 3;
  ASSERT_NE(*p.state(next), c.states[next][size_t(self)]);
  c.tell(p, self, next, true);
  const auto r = p.reconcile(next, c.states[next][size_t(self)], 0, ~0u);
  EXPECT_EQ(r.outcome, Predictor::Outcome::kCorrected);
  EXPECT_TRUE(r.interaction);
  for (uint32_t t = next + 1; t <= kSnapshot + 12; ++t)
    EXPECT_EQ(*p.state(t), c.states[t][size_t(self)]) << "tick " << t;
}

// A neighbour that turns: held, its old input is a wrong guess from the turn on; with the inputs the
// server already held for the ticks after the snapshot (the turn among them), exact again.
TEST(PredictorNeighbours, TheInputsAheadTakeInATurnTheHeldInputMisses) {
  static const Crowd turning(true);
  int held_wrong = 0;
  for (const uint8_t ahead : {uint8_t(0), uint8_t(4)}) {
    Predictor p(arena_world(), turning.settings);
    p.reset(kSnapshot, turning.states[kSnapshot][0]);
    turning.tell(p, 0, kSnapshot, true, ahead);
    for (uint32_t t = kSnapshot + 1; t <= kSnapshot + 20; ++t) {
      const CharacterState& predicted = p.predict(turning.input(0, t));
      if (ahead > 0) {
        ASSERT_EQ(predicted, turning.states[t][0]) << "tick " << t;
      } else {
        held_wrong += !(predicted == turning.states[t][0]);
      }
    }
  }
  EXPECT_GT(held_wrong, 0) << "the turn reaches character 1";
}

// A neighbour with the predicted character's own id is not one: the predictions are those without it.
TEST(PredictorNeighbours, TheOwnIdAmongTheNeighboursIsIgnored) {
  const Crowd& c = crowd();
  Predictor with(arena_world(), c.settings), without(arena_world(), c.settings);
  std::vector<OtherCharacter> others{as_other(2, c.states[kSnapshot][1])};
  const PredictedNeighbour self{1, c.states[kSnapshot][3], c.input(3, kSnapshot)};
  with.reset(kSnapshot, c.states[kSnapshot][0]);
  without.reset(kSnapshot, c.states[kSnapshot][0]);
  with.set_others(others, 1, kSnapshot, {}, std::span(&self, 1));
  without.set_others(others, 1, kSnapshot);
  for (uint32_t t = kSnapshot + 1; t <= kSnapshot + 10; ++t) EXPECT_EQ(with.predict(c.input(0, t)), without.predict(c.input(0, t)));
}

}  // namespace
}  // namespace foothold::test
