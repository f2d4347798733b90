// Trigger volumes in a match (issue #66): a game hears its characters enter and leave the level's
// triggers (tests/fuzz/corpus/gltf/triggers.gltf) after each tick's steps, ascending character id,
// each one's leaves before its enters, ascending trigger index; a character leaving the match leaves
// its triggers first (also when the game removes it); GameControl::triggers_at() agrees with what the
// hooks said; a trigger on a lift carries its rider; and a match whose commands hang on triggers,
// still or riding, replays identically (--verify-game's replay_game).

#include <cstdio>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "replay/recording.h"
#include "server/game.h"
#include "server/game_replay.h"
#include "support/recorded_game.h"
#include "shared/formats/world_file.h"
#include "support/scenario_support.h"
#include "support/sim_harness.h"

namespace foothold::test {
namespace {

constexpr proto::Nanos kS = proto::kSecond;

const World& trigger_world() {
  static const WorldLoad loaded = load_world(std::string(FOOTHOLD_SOURCE_DIR) + "/tests/fuzz/corpus/gltf/triggers.gltf");
  EXPECT_TRUE(loaded.world) << loaded.error;
  return *loaded.world;
}

// One hook call the game heard.
struct Heard {
  uint32_t tick = 0;
  char kind = 0;  // 'l' a trigger left, 'e' a trigger entered, 'g' the match left
  uint32_t character = 0;
  int trigger = -1;
};

// Freezes every character where it joins (x = -15, in no trigger), teleports a message's sender to
// "go X Y Z", every character to "all X Y Z" (1.5 m apart along Z, ascending id), removes the sender
// of "bye"; launches whoever
// enters "pad" upward at `pad_speed` m/s and tells each character of each enter and leave.
struct Zones final : server::Game {
  explicit Zones(double speed = 6) : pad_speed(speed) {}
  double pad_speed;
  std::vector<Heard> heard;
  std::map<uint32_t, std::set<int>> inside;  // by the hooks
  int mismatches = 0;                         // after_tick: triggers_at() differed from the hooks

  std::optional<Vec3> on_join(server::GameControl& g, const server::Joining& j) override {
    g.freeze(j.character, true);
    return Vec3{-15, 1, 3.0 * j.character};
  }
  void on_message(server::GameControl& g, uint32_t id, proto::Channel, std::span<const uint8_t> bytes) override {
    std::istringstream in(std::string(bytes.begin(), bytes.end()));
    std::string what;
    Vec3 p;
    in >> what >> p.x >> p.y >> p.z;
    if (what == "go") g.teleport(id, p);
    if (what == "bye") g.remove(id);
    for (std::size_t k = 0; what == "all" && k < g.characters().size(); ++k)
      g.teleport(g.characters()[k], p + Vec3{0, 0, 1.5 * double(k)});
  }
  void on_trigger_enter(server::GameControl& g, uint32_t character, int trigger) override {
    heard.push_back({g.tick(), 'e', character, trigger});
    EXPECT_TRUE(inside[character].insert(trigger).second);
    const std::string& name = g.world().triggers().at(std::size_t(trigger)).name;
    if (trigger == g.trigger_index("pad")) g.set_velocity(character, {0, pad_speed, 0});
    tell(g, character, "entered " + name);
  }
  void on_trigger_leave(server::GameControl& g, uint32_t character, int trigger) override {
    heard.push_back({g.tick(), 'l', character, trigger});
    EXPECT_EQ(inside[character].erase(trigger), 1u);
    tell(g, character, "left " + g.world().triggers().at(std::size_t(trigger)).name);
  }
  void on_leave(server::GameControl& g, uint32_t id) override {
    heard.push_back({g.tick(), 'g', id, -1});
    EXPECT_TRUE(inside[id].empty()) << "character " << id << " left the match before leaving its triggers";
  }
  void after_tick(server::GameControl& g, const server::TickReport& r) override {
    for (const server::CharacterReport& c : r.characters) {
      const auto at = g.triggers_at(c.id);
      const std::set<int>& want = inside[c.id];
      if (!std::equal(at.begin(), at.end(), want.begin(), want.end())) ++mismatches;
    }
  }
  void tell(server::GameControl& g, uint32_t character, const std::string& text) {
    if (g.character(character)) g.send(character, proto::Channel::kReliable, {reinterpret_cast<const uint8_t*>(text.data()), text.size()});
  }
};

void say(client::ClientSession& c, const std::string& text) {
  EXPECT_EQ(c.send_message(proto::Channel::kReliable, std::vector<uint8_t>(text.begin(), text.end())), proto::SendError::kNone);
}

// The calls heard at `tick`, in order, as text: "e1:2 l1:0 g2".
std::string at_tick(const std::vector<Heard>& heard, uint32_t tick, const World& w) {
  std::string out;
  for (const Heard& h : heard) {
    if (h.tick != tick) continue;
    out += (out.empty() ? "" : " ") + std::string(1, h.kind) + std::to_string(h.character);
    if (h.trigger >= 0) out += ":" + w.triggers()[std::size_t(h.trigger)].name;
  }
  return out;
}

// The first tick at or after `from` at which `kind` was heard of `character` (0: never).
uint32_t first(const std::vector<Heard>& heard, char kind, uint32_t character, const std::string& trigger, const World& w,
               uint32_t from = 0) {
  for (const Heard& h : heard)
    if (h.tick >= from && h.kind == kind && h.character == character &&
        (h.trigger < 0 ? trigger.empty() : w.triggers()[std::size_t(h.trigger)].name == trigger))
      return h.tick;
  return 0;
}

TEST(GameTriggers, AGameHearsEntersAndLeavesInOrderAndAMatchOfThemReplaysIdentically) {
  const World& world = trigger_world();
  HarnessOptions o = with_clients(2);
  SimHarness h(world, o);
  auto owned = std::make_unique<Zones>();
  Zones& game = *owned;
  h.server().set_game(std::move(owned));
  RecordedGame recorded(h, world, o.settings, "triggers.rec", {"triggers.gltf", "zones", 0, 1});
  ASSERT_TRUE(recorded.opened()) << recorded.error();
  const std::string& path = recorded.path();
  h.start_all();
  h.run_for(kS);
  const uint32_t one = h.client(0).character_id(), two = h.client(1).character_id();
  ASSERT_TRUE(one != 0 && two == one + 1);
  EXPECT_TRUE(game.heard.empty()) << "nobody is in a trigger where they joined";

  // Into the hill; then, in one teleport, from the hill onto the pad, which is in "east" too: the
  // leave first, then the enters by trigger index (pad 0, east 2).
  say(h.client(0), "go -5 1 0");
  h.run_for(kS / 2);
  const uint32_t hill = first(game.heard, 'e', one, "hill", world);
  ASSERT_NE(hill, 0u);
  EXPECT_EQ(at_tick(game.heard, hill, world), "e1:hill");
  say(h.client(0), "go 5 1 0");
  h.run_for(kS / 2);
  const uint32_t pad = first(game.heard, 'e', one, "pad", world);
  ASSERT_NE(pad, 0u);
  EXPECT_EQ(at_tick(game.heard, pad, world), "l1:hill e1:pad e1:east");
  // The pad's launch (a command its enter gave) carries it out of the pad, still in "east".
  const uint32_t off = first(game.heard, 'l', one, "pad", world, pad);
  ASSERT_NE(off, 0u);
  EXPECT_EQ(first(game.heard, 'l', one, "east", world), 0u);

  // Both at once into the hill: ascending id, each one's leaves before its enters.
  say(h.client(1), "all -5 1 -1.5");
  h.run_for(kS / 2);
  const uint32_t both = first(game.heard, 'e', two, "hill", world);
  ASSERT_NE(both, 0u);
  const std::string tick = at_tick(game.heard, both, world);
  EXPECT_TRUE(tick == "l1:east e1:hill e2:hill" || tick == "l1:pad l1:east e1:hill e2:hill") << tick;

  // Leaving the match while in the hill: its leave of the hill, then its leave of the match.
  h.client(1).disconnect();
  h.run_for(kS / 2);
  const uint32_t gone = first(game.heard, 'g', two, "", world);
  ASSERT_NE(gone, 0u);
  EXPECT_EQ(at_tick(game.heard, gone, world), "l2:hill g2");
  EXPECT_EQ(game.mismatches, 0) << "triggers_at() said otherwise than the hooks";
  ASSERT_TRUE(recorded.close()) << recorded.error();

  // The replay hears the same and so commands and sends the same; a game that launches otherwise
  // is caught at its first launch.
  const server::GameReplayResult same = server::replay_game(path, world, std::make_unique<Zones>());
  EXPECT_TRUE(same.ok) << same.error << same.difference;
  EXPECT_GE(same.commands, 6u) << "the freezes, teleports and at least one launch";
  EXPECT_GE(same.sends, 7u) << "an 'entered' or 'left' for each hook above but the last";
  const server::GameReplayResult higher = server::replay_game(path, world, std::make_unique<Zones>(7));
  EXPECT_FALSE(higher.ok);
  EXPECT_NE(higher.difference.find("the game gave velocity of character 1"), std::string::npos) << higher.difference;
  std::remove(path.c_str());
}

// A character the game removes while in a trigger leaves the roster at that boundary, but the game
// hears of it only at the start of the next tick: its trigger's leave waits for it there, then comes
// just before its on_leave.
TEST(GameTriggers, ACharacterTheGameRemovesInATriggerLeavesItJustBeforeTheMatch) {
  const World& world = trigger_world();
  HarnessOptions o = with_clients(2);
  SimHarness h(world, o);
  auto owned = std::make_unique<Zones>();
  Zones& game = *owned;
  h.server().set_game(std::move(owned));
  h.start_all();
  h.run_for(kS);
  const uint32_t one = h.client(0).character_id();
  say(h.client(0), "go -5 1 0");
  h.run_for(kS / 2);
  ASSERT_NE(first(game.heard, 'e', one, "hill", world), 0u);
  say(h.client(0), "bye");
  h.run_for(kS / 2);
  const uint32_t gone = first(game.heard, 'g', one, "", world);
  ASSERT_NE(gone, 0u);
  EXPECT_EQ(at_tick(game.heard, gone, world), "l1:hill g1");
  EXPECT_EQ(game.mismatches, 0);
}

// A 40 m floor with a lift at x = 10: a 2 m slab whose top rests 0.2 m up, rising 4 m over 2 s and
// back (a 4 s loop). The trigger "on_lift" rides it (1 m over its top); "ground" stays at its foot.
std::unique_ptr<World> lift_world() {
  MeshBuilder b;
  b.floor_grid(-20, -20, 20, 20, 0, 40);
  TriangleMesh mesh = b.take();
  MeshBuilder slab;
  slab.box({-1, -0.2, -1}, {1, 0, 1});
  MoverMesh lift;
  lift.name = "lift";
  Channel rise;
  rise.times = {0, 2, 4};
  rise.values = {10, 0.2, 0, 10, 4.2, 0, 10, 0.2, 0};
  rise.period = 4;
  lift.chain = {Link{{}, {rise}}};
  lift.mesh = slab.take();
  mesh.movers.push_back(std::move(lift));
  mesh.triggers = {{"ground", {9, 0, -1}, {11, 1, 1}}, {"on_lift", {-1, 0, -1}, {1, 1, 1}, 1}};
  return make_world(std::move(mesh), "lift");
}

TEST(GameTriggers, ATriggerOnALiftCarriesItsRiderWhileTheGroundTriggerSeesItGoAndCome) {
  const auto world = lift_world();
  HarnessOptions o = with_clients(1);
  SimHarness h(*world, o);
  auto owned = std::make_unique<Zones>();
  Zones& game = *owned;
  h.server().set_game(std::move(owned));
  RecordedGame recorded(h, *world, o.settings, "lift_triggers.rec", {"lift", "zones", 0, 1});
  ASSERT_TRUE(recorded.opened()) << recorded.error();
  const std::string& path = recorded.path();
  h.start_all();
  h.run_for(kS);
  const uint32_t one = h.client(0).character_id();
  say(h.client(0), "go 10 6 0");  // above the lift wherever it is: it lands on it and rides
  h.run_for(6 * kS);
  const uint32_t on = first(game.heard, 'e', one, "on_lift", *world);
  ASSERT_NE(on, 0u);
  EXPECT_EQ(first(game.heard, 'l', one, "on_lift", *world, on), 0u) << "a rider never leaves the volume it rides in";
  // The lift takes it down into the still trigger at its foot and up out of it again.
  const uint32_t down = first(game.heard, 'e', one, "ground", *world, on);
  ASSERT_NE(down, 0u);
  EXPECT_NE(first(game.heard, 'l', one, "ground", *world, down), 0u);
  EXPECT_EQ(game.mismatches, 0);
  ASSERT_TRUE(recorded.close()) << recorded.error();
  // The replay poses the lift as the server did, so hears the same.
  const server::GameReplayResult same = server::replay_game(path, *world, std::make_unique<Zones>());
  EXPECT_TRUE(same.ok) << same.error << same.difference;
  EXPECT_GE(same.sends, 3u);
  std::remove(path.c_str());
}

}  // namespace
}  // namespace foothold::test
