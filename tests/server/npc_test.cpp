// Characters the server drives (issue #67; GameControl::spawn, set_input, remove, follow): NPCs
// that step in the same tick as the players, collide with them, are seen by every client as NPCs
// (their view events say so), take no player's place, and are recorded as a client's character is:
// the recording replays without the game, and the game's replay gives the same spawns and the same
// inputs (one set otherwise is caught, naming the NPC).

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "games/patrol_game.h"
#include "replay/input_script.h"
#include "replay/recording.h"
#include "replay/resimulate.h"
#include "server/game.h"
#include "server/game_replay.h"
#include "shared/arena.h"
#include "support/recorded_game.h"
#include "support/scenario_support.h"
#include "support/sim_harness.h"
#include "support/test_seed.h"

namespace foothold::test {
namespace {

constexpr proto::Nanos kS = proto::kSecond;
using Kind = client::ViewEvent::Kind;

// Three NPCs: a chaser that walks at the first player it sees, a jumper that circles and jumps, and
// one the game removes after two seconds. `skew` makes the chaser's input differ from tick 200 on
// (a game that decides otherwise in its replay).
struct Herders final : server::Game {
  uint32_t chaser = 0, jumper = 0, leaver = 0;
  bool skew = false;
  int refused = 0;      // spawns and inputs the API should have taken
  int taken_wrongly = 0;  // ones it should have refused
  std::vector<uint32_t> left;
  int chaser_met_player = 0;
  double jumper_far = 0;  // metres from its spawn, the most
  int jumper_rose = 0;    // ticks it went up
  std::map<uint32_t, CharacterState> last;  // each character's state after the newest tick

  void on_start(server::GameControl& g) override {
    chaser = g.spawn({6, 1.5, 6});
    jumper = g.spawn({-6, 1.5, -6});
    leaver = g.spawn({6, 1.5, -6});
    refused += chaser == 0 || jumper == 0 || leaver == 0;
    taken_wrongly += !(chaser < jumper && jumper < leaver);
    // Refused: an unknown profile, a place out of range; inputs for a character that is not an NPC.
    taken_wrongly += g.spawn({0, 1, 0}, "no_such_profile") != 0;
    taken_wrongly += g.spawn({NAN, 1, 0}) != 0;
    taken_wrongly += g.spawn({0, 1e7, 0}) != 0;
    taken_wrongly += g.set_input(leaver + 100, encode_move(1, 0, 0, 0));
    // Not in the match yet, but the game's: it may be given its input and commands at once.
    refused += !g.is_npc(chaser) || g.character(chaser) != nullptr;
    refused += !g.set_input(jumper, encode_move(1, 0, 0, 0));
    refused += !g.set_attribute(leaver, 0, 7);
  }
  server::GameSchema schema() const override { return {{"mark"}, {}}; }
  void on_leave(server::GameControl& g, uint32_t id) override {
    left.push_back(id);
    taken_wrongly += g.is_npc(id) || g.set_input(id, InputCmd{});
  }
  void after_tick(server::GameControl& g, const server::TickReport& r) override {
    uint32_t player = 0;
    for (const auto& c : r.characters) {
      last[c.id] = c.state;
      if (c.id == jumper) {
        const Vec3 p = to_position(c.state.position);
        jumper_far = std::max(jumper_far, std::hypot(p.x + 6, p.z + 6));
        jumper_rose += c.state.velocity.y > 0;
      }
      if (!g.is_npc(c.id) && player == 0) player = c.id;
      if (c.id != chaser) continue;
      for (const Touch& t : c.touches) chaser_met_player += t.kind == TouchKind::kCharacter && !g.is_npc(t.character);
    }
    taken_wrongly += player != 0 && g.set_input(player, InputCmd{});  // a player's input is its client's
    if (const CharacterState* me = g.character(chaser); me && player != 0) {
      const Vec3 to = to_position(g.character(player)->position) - to_position(me->position);
      refused += !g.set_input(chaser, encode_move(to.x, to.z, 0, 0));
      if (skew && r.tick >= 200) refused += !g.set_input(chaser, encode_move(-to.x, -to.z, 0, 0));
    }
    const double a = double(r.tick) / 40;
    refused += !g.set_input(jumper, encode_move(std::cos(a), std::sin(a), r.tick % 50 == 0 ? kButtonJump : 0, 0));
    if (r.tick == 120) refused += !g.remove(leaver);
  }
};

TEST(Npcs, SpawnedCharactersStepCollideAreSeenAsNpcsAndTheMatchReplaysWithAndWithoutTheGame) {
  HarnessOptions o = with_clients(3);
  o.seed = test_seed(67);
  o.pattern = bots::Pattern::kWander;
  SimHarness h(arena_world(), o);
  h.network().set_impairment(bad_network());
  auto owned = std::make_unique<Herders>();
  Herders& game = *owned;
  h.server().set_npcs_wanted(3);
  h.server().set_game(std::move(owned));
  RecordedGame recorded(h, arena_world(), o.settings, "npcs.rec", {"arena", "herders", 60, 1, 3});
  ASSERT_TRUE(recorded.opened()) << recorded.error();
  std::vector<std::vector<client::ViewEvent>> events(3);
  h.start_all();
  for (int k = 0; k < 8 * 60; ++k) {
    h.run_for(kS / 60);
    for (int i = 0; i < 3; ++i)
      for (client::ViewEvent e; h.client(i).take_view_event(e);) events[size_t(i)].push_back(e);
  }
  EXPECT_EQ(game.refused, 0);
  EXPECT_EQ(game.taken_wrongly, 0);
  ASSERT_NE(game.chaser, 0u);

  // They are in the match beside the players, not in their places.
  EXPECT_EQ(h.server().client_count(), 3u);
  EXPECT_EQ(h.server().npc_count(), 2u);
  EXPECT_EQ(h.server().counters().get(server::Counter::kGameSpawns), 3u);
  EXPECT_EQ(game.left, (std::vector<uint32_t>{game.leaver}));
  // They stepped by their inputs: the chaser caught up with a player, the jumper went round and up.
  EXPECT_GT(game.chaser_met_player, 0) << "the chaser's step met a player's character";
  EXPECT_GT(game.jumper_far, 5.0) << "the jumper walked its circle (3.3 m round)";
  EXPECT_GT(game.jumper_rose, 9 * 10) << "and jumped, every 50 ticks";

  // Every client sees the NPCs as NPCs (no player's id), the players as players; the leaver left
  // the match; and none of its corrections is unexplained (an NPC's inputs reach it as a player's).
  for (int i = 0; i < 3; ++i) {
    std::map<uint32_t, bool> seen_npc;
    for (const client::ViewEvent& e : events[size_t(i)]) {
      const bool npc = e.character_id == game.chaser || e.character_id == game.jumper || e.character_id == game.leaver;
      EXPECT_EQ(e.npc, npc) << "client " << i << ", character " << e.character_id;
      if (npc) {
        EXPECT_EQ(e.client_id, 0u);
      }
      if (e.kind == Kind::kAppeared) seen_npc[e.character_id] = e.npc;
      if (e.kind == Kind::kLeftMatch) {
        EXPECT_EQ(e.character_id, game.leaver) << "client " << i;
      }
    }
    EXPECT_TRUE(seen_npc.count(game.chaser) && seen_npc.count(game.jumper)) << "client " << i;
    EXPECT_EQ(h.client(i).predictor().counters().unexplained, 0u) << "client " << i;
    print_corrections(i, h.client(i));
  }

  ASSERT_TRUE(recorded.close()) << recorded.error();
  replay::LoadedRecording rec;
  std::string err;
  ASSERT_TRUE(replay::load_recording(recorded.path(), rec, err)) << err;
  EXPECT_EQ(rec.header.npcs, 3u);
  uint64_t spawns = 0;
  for (const auto& t : rec.commands)
    for (const GameCommand& c : t.commands) spawns += c.kind == GameCommandKind::kSpawn;
  EXPECT_EQ(spawns, 3u);
  // Without the game: the NPCs' inputs are in the recording as the players' are.
  const auto full = replay::resimulate(rec, arena_world(), {});
  EXPECT_TRUE(full.ok) << "tick " << full.first.tick << " id " << full.first.id;
  EXPECT_EQ(full.mismatches, 0u);
  // With it: the same spawns, and the same input set for each NPC each tick.
  const server::GameReplayResult same = server::replay_game(recorded.path(), arena_world(), std::make_unique<Herders>());
  EXPECT_TRUE(same.ok) << same.error << same.difference;
  EXPECT_GT(same.npc_inputs, 2u * 400u);
  // A game that steers its chaser otherwise is caught at the first tick it does.
  auto skewed = std::make_unique<Herders>();
  skewed->skew = true;
  const server::GameReplayResult differs = server::replay_game(recorded.path(), arena_world(), std::move(skewed));
  EXPECT_FALSE(differs.ok);
  EXPECT_NE(differs.difference.find("tick 201: the game set NPC " + std::to_string(game.chaser) + "'s input"), std::string::npos)
      << differs.difference;
  std::remove(recorded.path().c_str());
}

// One NPC walks by its path across a hall, there and back, while a row of five players walks
// through it the other way, shoulder to shoulder (gaps of 0.2 m: it cannot slip between them). They
// meet, it is held back and pushed off its line, and it finds its way round them and arrives.
struct Crossing final : server::Game {
  uint32_t npc = 0;
  int joined = 0, arrivals = 0, gave_up = 0, met_player = 0;
  double off_line = 0;  // metres from z = 0, the most, while it was met
  follow::PathFollower follower;
  void on_start(server::GameControl& g) override { npc = g.spawn({-12, 1, 0}); }
  std::optional<Vec3> on_join(server::GameControl&, const server::Joining&) override {
    return Vec3{9, 1, -2.0 + joined++};  // z -2 .. 2, a metre apart
  }
  void after_tick(server::GameControl& g, const server::TickReport& r) override {
    for (const auto& c : r.characters) {
      if (c.id != npc) continue;
      for (const Touch& t : c.touches) met_player += t.kind == TouchKind::kCharacter;
      if (met_player > 0) off_line = std::max(off_line, std::abs(to_position(c.state.position).z));
    }
    if (!g.character(npc)) return;
    if (!follower.active() && arrivals + gave_up < 2) follower.go_to({arrivals % 2 == 0 ? 14.0 : -12.0, 0, 0}, r.tick);
    const follow::FollowStep step = g.follow(npc, follower);
    arrivals += step.event == follow::FollowEvent::kArrived;
    gave_up += step.event == follow::FollowEvent::kGaveUp;
  }
};

TEST(Npcs, AnNpcPushedByARowOfPlayersFindsItsWayRoundThemAndArrives) {
  MeshBuilder b;
  b.floor_grid(-20, -12, 20, 12, 0, 2);
  const auto world = make_world(b.take(), "hall");
  HarnessOptions o = with_clients(5);
  o.pattern = bots::Pattern::kScript;
  o.script = replay::parse_input_script("600 -0.6 0 -\n", "row");  // 3 m/s west
  ASSERT_TRUE(o.script.ok()) << o.script.error;
  SimHarness h(*world, o);
  auto owned = std::make_unique<Crossing>();
  Crossing& game = *owned;
  h.server().set_game(std::move(owned));
  RecordedGame recorded(h, *world, o.settings, "crossing.rec", {"hall", "crossing", 0, 1, 0});
  ASSERT_TRUE(recorded.opened()) << recorded.error();
  h.start_all();
  h.run_for(14 * kS);
  EXPECT_GT(game.met_player, 0) << "the row met it";
  EXPECT_GT(game.off_line, 0.5) << "and pushed it off its line";
  EXPECT_EQ(game.gave_up, 0);
  EXPECT_EQ(game.arrivals, 2) << "there and back";
  EXPECT_GE(game.follower.counts().paths, 2u);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(h.client(i).predictor().counters().unexplained, 0u) << "client " << i;
  ASSERT_TRUE(recorded.close()) << recorded.error();
  const server::GameReplayResult same = server::replay_game(recorded.path(), *world, std::make_unique<Crossing>());
  EXPECT_TRUE(same.ok) << same.error << same.difference;
  std::remove(recorded.path().c_str());
}

TEST(Npcs, PatrolWalksItsNpcsBetweenReachablePointsAmongThePlayersAndReplaysIdentically) {
  HarnessOptions o = with_clients(2);
  o.seed = test_seed(68);
  SimHarness h(arena_world(), o);
  h.server().set_npcs_wanted(6);
  h.server().set_game(server::make_patrol_game());
  RecordedGame recorded(h, arena_world(), o.settings, "patrol.rec", {"arena", "patrol", 0, 1, 6});
  ASSERT_TRUE(recorded.opened()) << recorded.error();
  h.start_all();
  h.run_for(30 * kS);
  const server::GameControl& g = h.server().game_control();
  EXPECT_EQ(g.match_attribute(0), 6) << "npcs";
  EXPECT_GE(g.match_attribute(1), 12) << "arrivals: two goals each in 30 s at least";
  EXPECT_EQ(g.match_attribute(2), 0) << "give-ups";
  for (int i = 0; i < 2; ++i) EXPECT_EQ(h.client(i).predictor().counters().unexplained, 0u) << "client " << i;
  ASSERT_TRUE(recorded.close()) << recorded.error();
  const server::GameReplayResult same = server::replay_game(recorded.path(), arena_world(), server::make_patrol_game());
  EXPECT_TRUE(same.ok) << same.error << same.difference;
  EXPECT_GT(same.npc_inputs, 6u * 30u * 50u);
  std::remove(recorded.path().c_str());
}

}  // namespace
}  // namespace foothold::test
