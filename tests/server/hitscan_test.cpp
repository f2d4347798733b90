// The hitscan game (games/hitscan_game.h) on the simulated network: a shot at where the shooter's
// client draws another character hits it, one aimed beside it misses, and shots that lie about
// their origin or are not shots are refused by name.

#include <algorithm>
#include <cstdio>
#include <string>

#include <gtest/gtest.h>

#include "bots/shooter.h"
#include "games/hitscan_game.h"
#include "support/scenario_support.h"
#include "support/sim_harness.h"
#include "support/test_seed.h"

namespace foothold::test {
namespace {

constexpr proto::Nanos kS = proto::kSecond;

TEST(Hitscan, AShotWhereTheClientDrewTheTargetHitsItAndOneBesideItMisses) {
  HarnessOptions o = with_clients(2);
  o.pattern = bots::Pattern::kCircle;
  o.seed = test_seed(40);
  SimHarness h(arena_world(), o);
  h.server().set_game(server::make_hitscan_game());
  h.start_all();
  h.run_for(2 * kS);
  client::ClientSession& shooter = h.client(0);
  const uint32_t target = h.client(1).character_id();
  auto fire = [&](uint64_t seq, double side, double origin_error, const std::string& garbage = "") {
    const double view = shooter.view_tick(h.now());
    const auto drawn = shooter.remotes().sample(target, view);
    EXPECT_TRUE(drawn.has_value());
    const Vec3 me = to_position(shooter.predictor().latest_state().position);
    // Aimed at the drawn centre, or `side` metres beside it, across the line of fire.
    const Vec3 to = drawn->position - me;
    const Vec3 across = normalized_or_zero(cross(to, kUp));
    const Vec3 aim = drawn->position + across * side;
    const std::string text = garbage.empty() ? bots::Shooter::shot_text(seq, shooter.predictor().latest_tick(), view,
                                                         me + Vec3{0, origin_error, 0}, aim - me)
                                             : garbage;
    EXPECT_EQ(shooter.send_message(proto::Channel::kReliable, std::vector<uint8_t>(text.begin(), text.end())),
              proto::SendError::kNone);
  };
  fire(1, 0, 0);
  fire(2, 0.6, 0);
  fire(3, 0, 0.9);
  fire(4, 0, 0, "shot 4 x");
  std::vector<std::string> answers;
  for (int i = 0; i < 60 && answers.size() < 4; ++i) {
    h.run_for(kS / 30);
    for (proto::ReceivedMessage m; shooter.receive_message(m);) answers.emplace_back(m.bytes.begin(), m.bytes.end());
  }
  ASSERT_EQ(answers.size(), 4u);
  std::sort(answers.begin(), answers.end());
  EXPECT_EQ(answers[0], "hit 1 " + std::to_string(target));
  EXPECT_EQ(answers[1], "miss 2");
  EXPECT_EQ(answers[2], "refused 3 origin");
  EXPECT_EQ(answers[3], "refused 4 malformed") << "its number read before the rest failed";
  h.run_for(kS / 10);
  EXPECT_EQ(shooter.attribute(0), 1) << "hits";
  EXPECT_EQ(shooter.attribute(1), 2) << "shots judged";
}

}  // namespace
}  // namespace foothold::test
