// Doors and lifts a game drives (issue #66 part 3; GameControl::mover, shared/mover_clock.h) on
// #37's bad network: a door the game opens when someone steps on its switch (a trigger) and shuts
// when they step off, and sweeps now and then besides; a lift it sends up, reverses half way and
// starts and stops, with a frozen rider who keeps riding through every change; bots crowding both.
// Every client predicts the movers from the tick a command takes effect: none of its corrections is
// unexplained. The recording replays without the game (from its start and from a keyframe taken
// while the door moved), and the game's replay gives the same commands.

#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "replay/recording.h"
#include "replay/resimulate.h"
#include "server/game.h"
#include "server/game_replay.h"
#include "support/recorded_game.h"
#include "support/scenario_support.h"
#include "support/sim_harness.h"
#include "support/test_seed.h"

namespace foothold::test {
namespace {

constexpr proto::Nanos kS = proto::kSecond;

// The lift and door game: the first to join rides the lift, frozen; the switch opens the door.
struct LiftAndDoor final : server::Game {
  uint32_t rider = 0;
  int lift = -1, door = -1, in_switch = 0;
  std::map<uint32_t, std::vector<server::MoverCommand>> script;  // lift commands by tick
  struct Noted {
    uint32_t tick = 0, id = 0;
    CharacterState state;
    double lift_time = 0;
  };
  std::vector<Noted> states;
  int refused = 0;

  void on_start(server::GameControl& g) override {
    lift = g.mover_index("lift");
    door = g.mover_index("door");
  }
  std::optional<Vec3> on_join(server::GameControl& g, const server::Joining& j) override {
    if (rider != 0) return Vec3{0, 1, 2.0 * j.character - 6};
    rider = j.character;
    g.freeze(j.character, true);
    return Vec3{-4, 0.2 + 0.92, 0};  // on the lift's deck
  }
  void on_trigger_enter(server::GameControl& g, uint32_t, int trigger) override {
    if (trigger == g.trigger_index("switch") && in_switch++ == 0) refused += !g.mover(door, server::MoverCommand::go_to(1, 2));
  }
  void on_trigger_leave(server::GameControl& g, uint32_t, int trigger) override {
    if (trigger == g.trigger_index("switch") && --in_switch == 0) refused += !g.mover(door, server::MoverCommand::go_to(2, 2));
  }
  void after_tick(server::GameControl& g, const server::TickReport& r) override {
    for (const auto& c : r.characters) states.push_back({r.tick, c.id, c.state, g.mover_time(lift)});
    if (auto it = script.find(r.tick); it != script.end())
      for (const server::MoverCommand& c : it->second) refused += !g.mover(lift, c);
    // The door sweeps every second and a half whoever is on the switch: through the bots at it.
    if (r.tick % 90 == 0) refused += !g.mover(door, server::MoverCommand::start(r.tick % 180 == 0 ? 1.5 : -1.5));
    if (r.tick % 90 == 40) refused += !g.mover(door, server::MoverCommand::stop());
  }
  const Noted* rider_after(uint32_t tick) const {
    for (const Noted& n : states)
      if (n.tick == tick && n.id == rider) return &n;
    return nullptr;
  }
};

TEST(DrivenMovers, DoorsAndLiftsTheGameDrivesArePredictedAndTheRecordingReplaysThem) {
  const World& world = lift_and_door_world();
  HarnessOptions o = with_clients(5);
  o.seed = test_seed(67);
  o.pattern = bots::Pattern::kRide;
  SimHarness h(world, o);
  h.network().set_impairment(bad_network());
  auto owned = std::make_unique<LiftAndDoor>();
  LiftAndDoor& game = *owned;
  h.server().set_game(std::move(owned));
  RecordedGame recorded(h, world, o.settings, "driven_movers.rec", {"lift_and_door", "lift_and_door", 30});
  ASSERT_TRUE(recorded.opened()) << recorded.error();
  const std::string& path = recorded.path();
  h.start_all();
  h.run_for(kS);
  const uint32_t t0 = h.server().current_tick();
  using M = server::MoverCommand;
  game.script[t0 + 30] = {M::go_to(1)};                  // up: 3 m in 2 s
  game.script[t0 + 90] = {M::reverse()};                 // half way: back down
  game.script[t0 + 240] = {M::go_to(1, 0.5)};            // up slowly
  game.script[t0 + 330] = {M::stop(), M::start(1.5)};    // two in one boundary: the last counts
  game.script[t0 + 420] = {M::reverse(), M::reverse()};  // and back: as it was
  game.script[t0 + 500] = {M::go_to(0, 2)};
  h.run_for(10 * kS);
  EXPECT_EQ(game.refused, 0);

  // The rider rode every change: on the lift's deck, grounded, from the first command to the end.
  ASSERT_NE(game.rider, 0u);
  double top = 0;
  for (uint32_t t = t0 + 31; t < t0 + 560; ++t) {
    const LiftAndDoor::Noted* n = game.rider_after(t);
    ASSERT_NE(n, nullptr) << t;
    EXPECT_EQ(n->state.platform, 1) << "tick " << t;
    EXPECT_TRUE(is_grounded(n->state.ground)) << "tick " << t;
    top = std::max(top, to_position(n->state.position).y);
  }
  // Reversed half way up (1.5 m at t0 + 90), never higher before it came down again.
  const LiftAndDoor::Noted* at_reverse = game.rider_after(t0 + 90);
  const LiftAndDoor::Noted* down = game.rider_after(t0 + 200);
  ASSERT_TRUE(at_reverse && down);
  EXPECT_NEAR(at_reverse->lift_time, 1.0, 1.0 / 60);
  EXPECT_NEAR(down->lift_time, 0.0, 1e-9) << "back where the run started, and held";
  EXPECT_GT(top, 0.2 + 0.92 + 2.5) << "the slow go-to and the start took it near the top";

  // Every client took the movers' segments and none of its corrections is unexplained.
  uint64_t segments = 0;
  for (int i = 0; i < o.clients; ++i) {
    const auto& counters = h.client(i).predictor().counters();
    EXPECT_EQ(counters.unexplained, 0u) << "client " << i;
    segments += h.client(i).stats().mover_segments;
    EXPECT_GT(h.client(i).stats().mover_segments, 10u) << "client " << i;
    print_corrections(i, h.client(i));
  }
  // The rider's own client predicted its ride exactly: frozen, it meets nobody and repeats nothing.
  EXPECT_EQ(h.client(0).predictor().counters().corrections, 0u);

  ASSERT_TRUE(recorded.close()) << recorded.error();
  replay::LoadedRecording rec;
  std::string err;
  ASSERT_TRUE(replay::load_recording(path, rec, err)) << err;
  uint64_t mover_commands = 0;
  for (const auto& t : rec.commands)
    for (const GameCommand& c : t.commands) mover_commands += c.kind == GameCommandKind::kMover;
  EXPECT_GT(mover_commands, 20u);
  const auto full = replay::resimulate(rec, world, {});
  EXPECT_TRUE(full.ok) << "tick " << full.first.tick << " id " << full.first.id;
  // From a keyframe the lift and the door had moved by: the clocks come from the commands before it.
  replay::ResimOptions from;
  for (const auto& k : rec.keyframes)
    if (k.tick > t0 + 100 && from.from_tick == 0) from.from_tick = k.tick + 1;
  ASSERT_NE(from.from_tick, 0u);
  const auto part = replay::resimulate(rec, world, from);
  EXPECT_TRUE(part.ok) << "tick " << part.first.tick << " id " << part.first.id;
  EXPECT_EQ(part.start_tick, from.from_tick);
  // The game's replay commands the movers the same.
  auto replayed = std::make_unique<LiftAndDoor>();
  replayed->script = game.script;
  const server::GameReplayResult same = server::replay_game(path, world, std::move(replayed));
  EXPECT_TRUE(same.ok) << same.error << same.difference;
  std::remove(path.c_str());
}

}  // namespace
}  // namespace foothold::test
