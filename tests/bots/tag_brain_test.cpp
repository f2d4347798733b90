// The tag brain (bots/tag_brain.h), fed views by hand as its session would show them: "it" runs at
// the nearest other and leaves alone for a while the one who just passed it; the others run from
// "it" when it is near; the same seed, index and views give the same inputs.

#include <algorithm>
#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "bots/bot_brain.h"
#include "bots/tag_brain.h"

namespace foothold::bots {
namespace {

constexpr int kRate = 60;

OtherCharacter other(uint32_t id, double x, double z) { return {id, quantize_position({x, 1, z}), false, 0}; }

// A grounded character at (x, 1, z) walking at 5 m/s along +X: moving, so never taken as stuck.
CharacterState at(double x, double z) {
  CharacterState s = spawn_state({x, 1, z});
  s.ground = GroundKind::kWalkable;
  s.velocity = quantize_velocity({5, 0, 0});
  return s;
}

// A brain looking through a view the test changes between calls.
struct Scene {
  TagView view;
  std::vector<OtherCharacter> others;
  std::unique_ptr<client::InputSource> brain(uint64_t seed = 1, uint32_t index = 0) {
    return make_tag_brain(seed, index, kRate, [this] {
      TagView v = view;
      v.others = others;
      return v;
    });
  }
};

// The unit direction from (x, z) toward (tx, tz).
Vec3 toward(double x, double z, double tx, double tz) {
  const Vec3 d{tx - x, 0, tz - z};
  return d * (1 / length(d));
}

TEST(TagBrain, ItRunsAtFullSpeedAtTheNearestOther) {
  Scene scene;
  scene.view = {5, 5, {}};
  scene.others = {other(7, 10, 0), other(9, -3, 4), other(11, 0, -12)};
  auto brain = scene.brain();
  const Vec3 want = toward(0, 0, -3, 4);  // 9, 5 m away; 7 is 10 m and 11 is 12 m away
  for (uint32_t t = 1; t <= 3 * kRate; ++t) {
    const Vec3 wish = wish_direction(brain->next(t, at(0, 0)));
    ASSERT_GT(length(wish), 0.99) << "tick " << t;
    ASSERT_GT(dot(wish, want) / length(wish), 0.999) << "tick " << t;
  }
}

TEST(TagBrain, ItLeavesTheOneWhoJustPassedItAloneForThreeSeconds) {
  Scene scene;
  scene.view = {5, 7, {}};  // 7 is "it"
  scene.others = {other(7, 2, 0), other(9, -6, 0)};
  auto brain = scene.brain();
  brain->next(1, at(0, 0));
  scene.view.it = 5;  // 7 tagged us at tick 2: the game will not take it back before tick 2 + 3 s
  for (uint32_t t = 2; t < 2 + 3 * kRate; ++t) {
    const Vec3 wish = wish_direction(brain->next(t, at(0, 0)));
    ASSERT_LT(wish.x, -0.99) << "after 9, though 7 is nearer; tick " << t;
  }
  EXPECT_GT(wish_direction(brain->next(2 + 3 * kRate, at(0, 0))).x, 0.99) << "then the nearest again";
}

TEST(TagBrain, ItChasesTheOneWhoPassedItWhenNobodyElseIsThere) {
  Scene scene;
  scene.view = {5, 7, {}};
  scene.others = {other(7, 2, 0)};
  auto brain = scene.brain();
  brain->next(1, at(0, 0));
  scene.view.it = 5;
  EXPECT_GT(wish_direction(brain->next(2, at(0, 0))).x, 0.99);
}

TEST(TagBrain, OthersRunFromItWhenItIsNear) {
  for (uint32_t index = 0; index < 8; ++index) {
    SCOPED_TRACE(index);
    Scene scene;
    scene.view = {7, 5, {}};
    scene.others = {other(5, 3, 1), other(9, -1, 5)};
    auto brain = scene.brain(3, index);
    const Vec3 away = toward(3, 1, 0, 0);
    for (uint32_t t = 1; t <= 5 * kRate; ++t) {
      const Vec3 wish = wish_direction(brain->next(t, at(0, 0)));
      ASSERT_GT(length(wish), 0.99) << "at full speed; tick " << t;
      // Away, at an angle to one side (55°, so that "it" gains on them): never toward it.
      ASSERT_GT(dot(wish, away) / length(wish), 0.5) << "tick " << t;
    }
  }
}

TEST(TagBrain, OthersDoNotRunFromItFarAwayOrBeforeAnyoneIsIt) {
  for (const uint32_t it : {5u, 0u}) {
    SCOPED_TRACE(it);
    Scene scene;
    scene.view = {7, it, {}};
    scene.others = {other(5, kFleeRadius + 5, 0)};
    auto brain = scene.brain();
    int toward_it = 0;
    for (uint32_t t = 1; t <= 20 * kRate; ++t) toward_it += wish_direction(brain->next(t, at(0, 0))).x > 0.1;
    EXPECT_GT(toward_it, 0) << "wandering, sometimes toward it";
  }
}

TEST(TagBrain, TheSameSeedIndexAndViewsGiveTheSameInputs) {
  auto run = [](uint64_t seed, uint32_t index, uint32_t self) {
    Scene scene;
    scene.view = {self, 5, {}};
    scene.others = {other(5, 3, 1), other(9, -1, 5), other(7, 2, -2)};
    scene.others.erase(std::remove_if(scene.others.begin(), scene.others.end(), [&](auto& o) { return o.id == self; }),
                       scene.others.end());
    auto brain = scene.brain(seed, index);
    std::vector<InputCmd> out;
    for (uint32_t t = 1; t <= 10 * kRate; ++t) {
      // Standing still now and then: the stuck rule swerves.
      CharacterState s = at(0, 0);
      if ((t / 40) % 3 == 0) s.velocity = {};
      out.push_back(brain->next(t, s));
    }
    return out;
  };
  for (const uint32_t self : {5u, 7u}) {
    SCOPED_TRACE(self);
    const auto a = run(7, 3, self);
    EXPECT_EQ(a, run(7, 3, self));
    EXPECT_NE(a, run(7, 4, self)) << "another bot";
    EXPECT_NE(a, run(8, 3, self)) << "another seed";
    for (const InputCmd& in : a) EXPECT_EQ(in.buttons & ~kKnownButtons, 0);
  }
}

TEST(TagBrain, JumpsNowAndThen) {
  Scene scene;
  scene.view = {7, 5, {}};
  scene.others = {other(5, 3, 1)};
  auto brain = scene.brain();
  int jumps = 0;
  for (uint32_t t = 1; t <= 30 * kRate; ++t) jumps += (brain->next(t, at(0, 0)).buttons & kButtonJump) != 0;
  EXPECT_GT(jumps, 0);
  EXPECT_LT(jumps, 30) << "now and then, not all the time";
}

TEST(TagBrain, ThePatternParsesAndWithoutASessionItWanders) {
  PatternSpec spec;
  std::string error;
  ASSERT_TRUE(parse_pattern("tag", spec, error)) << error;
  EXPECT_EQ(spec.pattern, Pattern::kTag);
  auto brain = make_brain(spec, 1, 0, kRate);
  bool moves = false;
  for (uint32_t t = 1; t <= 120; ++t) {
    const InputCmd in = brain->next(t, at(0, 0));
    moves |= in.move_x != 0 || in.move_z != 0;
  }
  EXPECT_TRUE(moves);
}

}  // namespace
}  // namespace foothold::bots
