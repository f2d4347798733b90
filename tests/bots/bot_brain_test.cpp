// Bot brains (bots/bot_brain.h): patterns parse, the same seed and index give the same inputs,
// different ones differ, and every input is one the step accepts.

#include <gtest/gtest.h>

#include "bots/bot_brain.h"

namespace foothold::bots {
namespace {

std::vector<InputCmd> run(const PatternSpec& spec, uint64_t seed, uint32_t index, int ticks) {
  auto brain = make_brain(spec, seed, index, 60);
  CharacterState s = spawn_state({0, 1, 0});
  s.ground = GroundKind::kWalkable;  // so that jumping patterns jump
  std::vector<InputCmd> out;
  for (uint32_t t = 1; t <= uint32_t(ticks); ++t) out.push_back(brain->next(t, s));
  return out;
}

bool same(const std::vector<InputCmd>& a, const std::vector<InputCmd>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!(a[i] == b[i])) return false;
  return true;
}

TEST(BotBrain, PatternsParseAndBadOnesSayWhy) {
  PatternSpec spec;
  std::string error;
  for (const char* name : {"wander", "circle", "jump"}) EXPECT_TRUE(parse_pattern(name, spec, error)) << name;
  EXPECT_FALSE(parse_pattern("dance", spec, error));
  EXPECT_NE(error.find("dance"), std::string::npos) << error;
  EXPECT_FALSE(parse_pattern("script:/nonexistent/inputs.txt", spec, error));
  EXPECT_FALSE(error.empty());
}

TEST(BotBrain, TheSameSeedAndIndexAlwaysGiveTheSameInputs) {
  for (const Pattern p : {Pattern::kWander, Pattern::kCircle, Pattern::kJump}) {
    SCOPED_TRACE(int(p));
    PatternSpec spec;
    spec.pattern = p;
    const auto a = run(spec, 7, 3, 600);
    EXPECT_TRUE(same(a, run(spec, 7, 3, 600)));
    EXPECT_FALSE(same(a, run(spec, 7, 4, 600))) << "another bot";
    bool moves = false;
    for (std::size_t i = 0; i < a.size(); ++i) {
      EXPECT_EQ(a[i].tick, uint32_t(i + 1));
      EXPECT_EQ(a[i].buttons & ~kKnownButtons, 0);
      moves |= a[i].move_x != 0 || a[i].move_z != 0;
    }
    EXPECT_TRUE(moves);
  }
  PatternSpec wander;
  EXPECT_FALSE(same(run(wander, 7, 3, 600), run(wander, 8, 3, 600))) << "another seed";
}

TEST(BotBrain, JumpersJump) {
  PatternSpec spec;
  spec.pattern = Pattern::kJump;
  int jumps = 0;
  for (const auto& in : run(spec, 1, 0, 120)) jumps += (in.buttons & kButtonJump) != 0;
  EXPECT_GT(jumps, 0);
}

}  // namespace
}  // namespace foothold::bots
