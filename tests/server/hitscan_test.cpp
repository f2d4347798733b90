// The hitscan game (games/hitscan_game.h) on the simulated network: a shot at where the shooter's
// client draws another character hits it, one aimed beside it misses, and shots that lie about
// their origin or are not shots are refused by name.

#include <algorithm>
#include <cstdio>
#include <string>

#include <gtest/gtest.h>

#include "bots/shooter.h"
#include "games/hitscan_game.h"
#include "shared/triangle_mesh.h"
#include "support/scenario_support.h"
#include "support/sim_harness.h"
#include "support/test_seed.h"

namespace foothold::test {
namespace {

constexpr proto::Nanos kS = proto::kSecond;
using server::Counter;

std::vector<uint8_t> bytes_of(const std::string& s) { return std::vector<uint8_t>(s.begin(), s.end()); }

// Every message client `c` has received, as text, appended to `out`.
void take_answers(client::ClientSession& c, std::vector<std::string>& out) {
  for (proto::ReceivedMessage m; c.receive_message(m);) out.emplace_back(m.bytes.begin(), m.bytes.end());
}

std::size_t count_with(const std::vector<std::string>& answers, const std::string& part) {
  return std::size_t(std::count_if(answers.begin(), answers.end(), [&](const std::string& a) { return a.find(part) != std::string::npos; }));
}

// hitscan, with the characters started where `spawns` says (by join order).
struct SpawningHitscan final : server::Game {
  std::unique_ptr<server::Game> inner = server::make_hitscan_game();
  std::vector<Vec3> spawns;
  std::size_t joined = 0;
  server::GameSchema schema() const override { return inner->schema(); }
  std::optional<Vec3> on_join(server::GameControl&, const server::Joining&) override {
    return joined < spawns.size() ? std::optional<Vec3>(spawns[joined++]) : std::nullopt;
  }
  void on_leave(server::GameControl& g, uint32_t id) override { inner->on_leave(g, id); }
  void on_message(server::GameControl& g, uint32_t id, proto::Channel ch, std::span<const uint8_t> b) override {
    inner->on_message(g, id, ch, b);
  }
  void after_tick(server::GameControl& g, const server::TickReport& r) override { inner->after_tick(g, r); }
};

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
  fire(3, 0, 0.5);  // within the old 0.5 m, outside the 0.4 m capsule
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

namespace foothold::test {
namespace {

// One client keeps its queue full of shots 50 ticks ahead of its inputs while another shoots at a
// third: every honest shot is judged (none "busy"), and the hog's are refused as early. (Before, the
// 64 places were shared by everyone and the hog's shots, up to a second ahead, took them all.)
TEST(Hitscan, AShooterFillingTheQueueWithFarAheadShotsDelaysNobodyElse) {
  HarnessOptions o = with_clients(3);
  o.pattern = bots::Pattern::kCircle;
  o.seed = test_seed(41);
  SimHarness h(arena_world(), o);
  h.server().set_game(server::make_hitscan_game());
  h.start_all();
  h.run_for(2 * kS);
  client::ClientSession& hog = h.client(0);
  client::ClientSession& honest = h.client(1);
  const uint32_t target = h.client(2).character_id();
  std::vector<std::string> hog_answers, answers;
  uint64_t seq = 0;
  int honest_shots = 0;
  for (int frame = 0; frame < 90; ++frame) {
    for (int k = 0; k < 8; ++k) {
      const Vec3 me = to_position(hog.predictor().latest_state().position);
      hog.send_message(proto::Channel::kReliable,
                       bytes_of(bots::Shooter::shot_text(++seq, hog.predictor().latest_tick() + 50, hog.view_tick(h.now()), me, {1, 0, 0})));
    }
    if (frame % 3 == 0) {
      const double view = honest.view_tick(h.now());
      const auto drawn = honest.remotes().sample(target, view);
      ASSERT_TRUE(drawn.has_value());
      const Vec3 me = to_position(honest.predictor().latest_state().position);
      const std::string text = bots::Shooter::shot_text(++seq, honest.predictor().latest_tick(), view, me, drawn->position - me);
      EXPECT_EQ(honest.send_message(proto::Channel::kReliable, bytes_of(text)), proto::SendError::kNone);
      ++honest_shots;
    }
    h.run_for(kS / 30);
    take_answers(hog, hog_answers);
    take_answers(honest, answers);
  }
  h.run_for(kS / 2);
  take_answers(honest, answers);
  take_answers(hog, hog_answers);
  std::printf("honest shots %d: %zu answered, %zu busy, %zu hit; the hog's: %zu answered, %zu early\n", honest_shots,
              answers.size(), count_with(answers, "busy"), count_with(answers, "hit "), hog_answers.size(),
              count_with(hog_answers, "early"));
  EXPECT_EQ(count_with(answers, "busy"), 0u);
  EXPECT_EQ(answers.size(), std::size_t(honest_shots));
  EXPECT_EQ(count_with(answers, "hit "), std::size_t(honest_shots)) << "every one at where it drew the target";
  EXPECT_GT(count_with(hog_answers, "early"), 0u);
  EXPECT_GT(h.server().counters().get(Counter::kRewindFireRefused), 0u);
}

// On a loss-free network a client's view is a tick or two behind the snapshot it acknowledged. A shot
// that claims to have been drawn 14 ticks (233 ms) before that, inside the 250 ms window, aimed at
// where the target was then, is judged at the oldest view its round trip and interpolation delay
// explain: the target had moved on, and it misses. (Before, it hit.)
TEST(Hitscan, AViewOlderThanTheShootersRoundTripExplainsIsRaisedAndCounted) {
  HarnessOptions o = with_clients(2);
  o.pattern = bots::Pattern::kCircle;
  o.seed = test_seed(40);
  SimHarness h(arena_world(), o);
  h.server().set_game(server::make_hitscan_game());
  h.start_all();
  h.run_for(2 * kS);
  client::ClientSession& shooter = h.client(0);
  const uint32_t target = h.client(1).character_id();
  const double now_view = shooter.view_tick(h.now());
  const double view = now_view - 14;
  const auto then = shooter.remotes().sample(target, view);
  const auto now = shooter.remotes().sample(target, now_view);
  ASSERT_TRUE(then && now);
  ASSERT_GT(length(then->position - now->position), 1.0) << "the target moved";
  const Vec3 me = to_position(shooter.predictor().latest_state().position);
  const uint64_t raised = h.server().counters().get(Counter::kRewindViewRaised);
  shooter.send_message(proto::Channel::kReliable,
                       bytes_of(bots::Shooter::shot_text(1, shooter.predictor().latest_tick(), view, me, then->position - me)));
  std::vector<std::string> answers;
  for (int i = 0; i < 30 && answers.empty(); ++i) {
    h.run_for(kS / 30);
    take_answers(shooter, answers);
  }
  ASSERT_EQ(answers.size(), 1u);
  EXPECT_EQ(answers[0], "miss 1");
  EXPECT_EQ(h.server().counters().get(Counter::kRewindViewRaised), raised + 1);
}

// A world with a 5 cm wall between two characters 3 m apart: the shooter, 0.425 m from its face,
// claims an origin 0.49 m ahead, behind the wall, and aims at the other. Refused (the origin is outside
// the shooter), and counted; one inside the shooter, in front of the wall, meets the wall. (Before,
// the first hit: 0.49 m was within the 0.5 m allowed, and nothing looked between.)
TEST(Hitscan, AShotCannotStartBehindAThinWall) {
  MeshBuilder b;
  b.floor_grid(-10, -10, 10, 10, 0, 2);
  b.box({0.425, 0, -5}, {0.475, 3, 5});
  const auto world = make_world(b.take(), "thin-wall");
  HarnessOptions o = with_clients(2);
  o.pattern = bots::Pattern::kJump;
  o.seed = test_seed(42);
  SimHarness h(*world, o);
  auto game = std::make_unique<SpawningHitscan>();
  game->spawns = {{0, 1, 0}, {3, 1, 0}};
  h.server().set_game(std::move(game));
  h.start_all();
  h.run_for(kS);
  client::ClientSession& shooter = h.client(0);
  const uint32_t target = h.client(1).character_id();
  const double view = shooter.view_tick(h.now());
  const auto drawn = shooter.remotes().sample(target, view);
  ASSERT_TRUE(drawn.has_value());
  const Vec3 me = to_position(shooter.predictor().latest_state().position);
  ASSERT_LT(me.x, 0.05) << "still on its side of the wall";
  const uint64_t refused = h.server().counters().get(Counter::kRewindOriginRefused);
  const uint32_t fire = shooter.predictor().latest_tick();
  for (const auto& [seq, ahead] : {std::pair{1, 0.49}, std::pair{2, 0.3}}) {
    const Vec3 origin = me + Vec3{ahead, 0, 0};
    shooter.send_message(proto::Channel::kReliable, bytes_of(bots::Shooter::shot_text(seq, fire, view, origin, drawn->position - origin)));
  }
  std::vector<std::string> answers;
  for (int i = 0; i < 30 && answers.size() < 2; ++i) {
    h.run_for(kS / 30);
    take_answers(shooter, answers);
  }
  ASSERT_EQ(answers.size(), 2u);
  std::sort(answers.begin(), answers.end());
  EXPECT_EQ(answers[0], "miss 2") << "the wall is met";
  EXPECT_EQ(answers[1], "refused 1 origin");
  EXPECT_EQ(h.server().counters().get(Counter::kRewindOriginRefused), refused + 1);
}

// Honest shots on #37's bad network (about 100 ms round trip, 10 ms jitter, 5% loss each way), as the
// shooting bots fire them: at the target's drawn centre nearly all hit, and the new bounds touch none
// of them (no view raised, no fire tick or origin refused). The shots 0.6 m beside are printed: on
// this simulated network a few of them hit with or without the bounds (none raised or refused), so
// that figure is the loopback bots' (README), not asserted here.
TEST(Hitscan, HonestShotsAtAHundredMillisecondsStillHitAndOnesBesideStillMiss) {
  HarnessOptions o = with_clients(6);
  o.pattern = bots::Pattern::kWander;  // as the shooting bots move
  o.seed = test_seed(43);
  SimHarness h(arena_world(), o);
  h.network().set_impairment(bad_network());
  h.server().set_game(server::make_hitscan_game());
  h.start_all();
  h.run_for(2 * kS);
  // Clients 0-2 aim at the centre, 3-5 0.6 m beside.
  std::vector<bots::Shooter> shooters;
  for (int i = 0; i < 6; ++i) shooters.emplace_back(arena_world(), MoveSettings{}, i < 3 ? 0.0 : 0.6, h.now() + i * kS / 30, kS / 5);
  for (int f = 0; f < 30 * 20; ++f) {
    h.run_for(kS / 30);
    for (int i = 0; i < 6; ++i) {
      client::ClientSession& c = h.client(i);
      if (f < 30 * 19) shooters[size_t(i)].maybe_fire(c, h.now());
      for (proto::ReceivedMessage m; c.receive_message(m);) shooters[size_t(i)].take(m.channel, m.bytes);
    }
  }
  bots::ShotCounts at, aside;
  for (int i = 0; i < 6; ++i) (i < 3 ? at : aside) += shooters[size_t(i)].counts();
  const double rate = at.shots ? double(at.hits) / double(at.shots) : 0;
  std::printf("at the centre: %llu shots, %llu hits (%.4f), %llu refused; 0.6 m beside: %llu shots, %llu hits\n",
              (unsigned long long)at.shots, (unsigned long long)at.hits, rate, (unsigned long long)at.refused,
              (unsigned long long)aside.shots, (unsigned long long)aside.hits);
  std::printf("views raised %llu, fire ticks refused %llu, origins refused %llu\n",
              (unsigned long long)h.server().counters().get(Counter::kRewindViewRaised),
              (unsigned long long)h.server().counters().get(Counter::kRewindFireRefused),
              (unsigned long long)h.server().counters().get(Counter::kRewindOriginRefused));
  ASSERT_GT(at.shots, 200u);
  EXPECT_GE(rate, 0.99);
  EXPECT_EQ(at.refused + aside.refused, 0u);
  EXPECT_EQ(h.server().counters().get(Counter::kRewindViewRaised), 0u);
  EXPECT_EQ(h.server().counters().get(Counter::kRewindFireRefused), 0u);
  EXPECT_EQ(h.server().counters().get(Counter::kRewindOriginRefused), 0u);
  EXPECT_GT(aside.shots, 200u);
}

}  // namespace
}  // namespace foothold::test
