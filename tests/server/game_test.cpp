// The game API (server/game.h) on the simulated network: every hook in its order at its tick, every
// command at its boundary (the same on one thread and on four), commands on characters that left,
// replicated attributes through loss, the token's user data, and the schema's checks.

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <functional>
#include <limits>
#include <map>
#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "proto/secure.h"
#include "proto/token.h"
#include "replay/recording.h"
#include "replay/resimulate.h"
#include "server/recorder.h"
#include "support/recorded_game.h"
#include "server/game.h"
#include "shared/game_command.h"
#include "shared/mover_clock.h"
#include "support/scenario_support.h"
#include "support/sim_harness.h"
#include "support/test_seed.h"

namespace foothold::test {
namespace {

using server::Counter;
using Phase = client::ClientSession::Phase;
constexpr proto::Nanos kS = proto::kSecond;
constexpr proto::Nanos kMs = proto::kMillisecond;

std::string text(std::span<const uint8_t> b) { return std::string(b.begin(), b.end()); }
std::vector<uint8_t> bytes(const std::string& s) { return std::vector<uint8_t>(s.begin(), s.end()); }

// Writes down every hook as "<what> <id> tick=<the last tick simulated when called>".
struct LogGame final : server::Game {
  std::vector<std::string> log;
  std::map<uint32_t, uint64_t> client_ids;
  std::map<uint32_t, std::vector<uint8_t>> user_data;
  std::vector<std::vector<uint32_t>> reports;  // each after_tick's ids
  std::vector<uint32_t> report_ticks;
  void on_start(server::GameControl& g) override { log.push_back("start tick=" + std::to_string(g.tick())); }
  std::optional<Vec3> on_join(server::GameControl& g, const server::Joining& j) override {
    log.push_back("join " + std::to_string(j.character) + " tick=" + std::to_string(g.tick()));
    client_ids[j.character] = j.client_id;
    user_data[j.character].assign(j.user_data.begin(), j.user_data.end());
    return std::nullopt;
  }
  void on_leave(server::GameControl& g, uint32_t id) override {
    log.push_back("leave " + std::to_string(id) + " tick=" + std::to_string(g.tick()));
  }
  void on_allocated(server::GameControl& g, const server::Allocation& a) override {
    std::string line = "allocated tick=" + std::to_string(g.tick());
    for (const auto& [k, v] : a.labels) line += " label:" + k + "=" + v;
    for (const auto& [k, v] : a.annotations) line += " annotation:" + k + "=" + v;
    log.push_back(line);
  }
  void on_message(server::GameControl& g, uint32_t id, proto::Channel ch, std::span<const uint8_t> b) override {
    log.push_back("message " + std::to_string(id) + " tick=" + std::to_string(g.tick()) + " " +
                  (ch == proto::Channel::kReliable ? "reliable " : "unreliable ") + text(b));
  }
  void after_tick(server::GameControl& g, const server::TickReport& r) override {
    EXPECT_EQ(g.tick(), r.tick);
    log.push_back("after tick=" + std::to_string(r.tick));
    report_ticks.push_back(r.tick);
    reports.emplace_back();
    for (const auto& c : r.characters) reports.back().push_back(c.id);
  }
};

// The index of the first log line that starts with `prefix` (the log's size when none).
std::size_t find(const std::vector<std::string>& log, const std::string& prefix) {
  for (std::size_t i = 0; i < log.size(); ++i)
    if (log[i].rfind(prefix, 0) == 0) return i;
  return log.size();
}

TEST(GameApi, EveryHookComesInItsOrderAtItsTickWithTheTokensUserData) {
  HarnessOptions o = with_clients(3);
  o.user_data = {bytes("alice;team=red"), {}, std::vector<uint8_t>(proto::kMaxUserData, 0xA5)};
  SimHarness h(arena_world(), o);
  auto game = std::make_unique<LogGame>();
  LogGame& log = *game;
  h.server().set_game(std::move(game));
  ASSERT_EQ(log.log.size(), 1u);
  EXPECT_EQ(log.log[0], "start tick=0");
  h.start_all();
  h.run_for(kS);
  for (int i = 0; i < 3; ++i) ASSERT_EQ(h.client(i).phase(), Phase::kConnected);
  // Joins: the token's client id and user data, 0 and 256 bytes included.
  ASSERT_EQ(log.client_ids.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    const uint32_t id = h.client(i).character_id();
    EXPECT_EQ(log.client_ids.at(id), SimHarness::client_id(i));
    EXPECT_EQ(log.user_data.at(id), std::size_t(i) < o.user_data.size() ? o.user_data[std::size_t(i)] : std::vector<uint8_t>());
    EXPECT_EQ(h.server().user_data(id).size(), log.user_data.at(id).size());
    // Joined between ticks T-1 and T (its on_join saw tick T-1): in every report from T on, none before.
    const std::size_t j = find(log.log, "join " + std::to_string(id) + " ");
    ASSERT_LT(j, log.log.size());
    const uint32_t joined_after = uint32_t(std::stoul(log.log[j].substr(log.log[j].find("tick=") + 5)));
    for (std::size_t k = 0; k < log.reports.size(); ++k) {
      const bool in = std::count(log.reports[k].begin(), log.reports[k].end(), id) == 1;
      EXPECT_EQ(in, log.report_ticks[k] > joined_after) << "character " << id << " in the report of tick " << log.report_ticks[k];
    }
  }
  // A message: handed over at the start of the tick after the one simulated when it arrived, before
  // that tick's after_tick.
  ASSERT_EQ(h.client(1).send_message(proto::Channel::kReliable, bytes("hello")), proto::SendError::kNone);
  ASSERT_EQ(h.client(1).send_message(proto::Channel::kUnreliable, bytes("ping")), proto::SendError::kNone);
  h.run_for(kS / 2);
  const uint32_t id1 = h.client(1).character_id();
  const std::size_t m = find(log.log, "message " + std::to_string(id1));
  ASSERT_LT(m + 2, log.log.size());
  const std::string tick_of_message = log.log[m].substr(log.log[m].find("tick="), log.log[m].find(' ', log.log[m].find("tick=")) - log.log[m].find("tick="));
  EXPECT_EQ(log.log[m], "message " + std::to_string(id1) + " " + tick_of_message + " reliable hello");
  EXPECT_EQ(log.log[m + 1], "message " + std::to_string(id1) + " " + tick_of_message + " unreliable ping")
      << "the reliable one first, in the same tick";
  const uint32_t t = uint32_t(std::stoul(tick_of_message.substr(5)));
  EXPECT_EQ(log.log[m + 2], "after tick=" + std::to_string(t + 1));
  // A leave: at the start of the first tick after the client left, before that tick's after_tick;
  // in no report from then on.
  const uint32_t id2 = h.client(2).character_id();
  h.client(2).disconnect();
  h.run_for(kS / 2);
  const std::size_t l = find(log.log, "leave " + std::to_string(id2));
  ASSERT_LT(l + 1, log.log.size());
  const uint32_t left_at = uint32_t(std::stoul(log.log[l].substr(log.log[l].find("tick=") + 5)));
  EXPECT_EQ(log.log[l + 1], "after tick=" + std::to_string(left_at + 1));
  EXPECT_EQ(std::count_if(log.log.begin(), log.log.end(), [&](const std::string& s) { return s.rfind("leave ", 0) == 0; }), 1);
  for (std::size_t k = 0; k < log.reports.size(); ++k) {
    if (log.report_ticks[k] <= left_at) continue;
    EXPECT_EQ(std::count(log.reports[k].begin(), log.reports[k].end(), id2), 0) << "tick " << log.report_ticks[k];
  }
  // after_tick: every tick, in order; its characters in ascending id.
  for (std::size_t k = 1; k < log.report_ticks.size(); ++k) EXPECT_EQ(log.report_ticks[k], log.report_ticks[k - 1] + 1);
  for (const auto& r : log.reports) EXPECT_TRUE(std::is_sorted(r.begin(), r.end()));
}

// Gives commands from after_tick by a script: tick -> what to do then.
struct ScriptGame final : server::Game {
  server::GameSchema declared{{"score", "lives"}, {"phase", "countdown"}};
  std::map<uint32_t, std::function<void(server::GameControl&, const server::TickReport&)>> at;
  struct Noted {
    uint32_t tick = 0, id = 0;
    CharacterState state;
    bool operator==(const Noted&) const = default;
  };
  std::vector<Noted> states;  // every character's state after every tick
  std::vector<uint32_t> left;
  server::GameSchema schema() const override { return declared; }
  void on_leave(server::GameControl&, uint32_t id) override { left.push_back(id); }
  void after_tick(server::GameControl& g, const server::TickReport& r) override {
    for (const auto& c : r.characters) states.push_back({r.tick, c.id, c.state});
    if (auto it = at.find(r.tick); it != at.end()) it->second(g, r);
  }
};

// The largest X a teleport may name in the arena: its bounds' and kTeleportMargin.
double game_world_edge() { return arena_world().bounds().hi.x + kTeleportMargin; }

// A script game installed on `h`'s server (which owns it).
ScriptGame& install_script(SimHarness& h) {
  auto owned = std::make_unique<ScriptGame>();
  ScriptGame& game = *owned;
  h.server().set_game(std::move(owned));
  return game;
}

// The state of character `id` after `tick`, from the script game's notes (null when it has none).
const CharacterState* state_after(const ScriptGame& g, uint32_t id, uint32_t tick) {
  for (const auto& n : g.states)
    if (n.tick == tick && n.id == id) return &n.state;
  return nullptr;
}

MoveSettings with_heavy_profile() {
  MoveSettings s;
  MoveProfile heavy;
  heavy.name = "heavy";
  heavy.walk_speed = 1.5;
  heavy.jump_speed = 3;
  heavy.crouch_speed = s.crouch_speed;
  heavy.gravity = s.gravity;
  heavy.air_acceleration = s.air_acceleration;
  heavy.max_fall_speed = s.max_fall_speed;
  heavy.coyote_time = s.coyote_time;
  heavy.jump_buffer = s.jump_buffer;
  s.profiles.push_back(heavy);
  return s;
}

struct CommandRun {
  std::vector<ScriptGame::Noted> states;
  std::vector<int32_t> client_attributes;
  uint64_t dropped = 0, removals = 0, applied = 0;
  std::vector<uint64_t> server_corrections, unexplained;
  Phase removed_phase = Phase::kIdle;
  std::string removed_reason;
  std::vector<uint32_t> left;
  bool teleport_to_gone = true;
  std::vector<uint8_t> recording;  // the whole recording file's bytes
};

// Four clients walking; the game teleports, launches, freezes, switches profile, sets attributes
// and removes, each at a known tick.
CommandRun run_commands(int threads) {
  HarnessOptions o = with_clients(4);
  o.core.threads = threads;
  o.settings = with_heavy_profile();
  o.pattern = bots::Pattern::kCircle;
  o.seed = test_seed(36);
  SimHarness h(arena_world(), o);
  ScriptGame& game = install_script(h);
  const std::string path = ::testing::TempDir() + "/commands_threads_" + std::to_string(threads) + ".rec";
  replay::RecordingWriter writer;
  EXPECT_TRUE(writer.open(path, server::server_recording_header("arena", arena_world(), o.settings, 1, 60)));
  server::ServerRecorder recorder(writer, 60);
  h.server().set_observer(&recorder);
  h.start_all();
  h.run_for(kS);
  const uint32_t now = h.server().current_tick();
  const uint32_t a = h.client(0).character_id(), b = h.client(1).character_id(), c = h.client(2).character_id(),
                 d = h.client(3).character_id();
  CommandRun out;
  game.at[now + 10] = [&](server::GameControl& g, const server::TickReport&) {
    EXPECT_TRUE(g.teleport(a, {3, 4, -3}));
    EXPECT_TRUE(g.freeze(b, true));
    EXPECT_TRUE(g.set_attribute(a, 0, 7));
    EXPECT_TRUE(g.set_match_attribute(1, -40));
    EXPECT_EQ(g.attribute(a, 0), 0) << "as replicated: the boundary has not come";
  };
  game.at[now + 11] = [&](server::GameControl& g, const server::TickReport&) {
    EXPECT_EQ(g.attribute(a, 0), 7);
    EXPECT_EQ(g.match_attribute(1), -40);
  };
  game.at[now + 40] = [&](server::GameControl& g, const server::TickReport&) {
    EXPECT_TRUE(g.set_velocity(a, {0, 9, 0}));
    EXPECT_TRUE(g.set_profile(c, "heavy"));
    EXPECT_FALSE(g.set_profile(c, "feather")) << "no such profile";
    EXPECT_FALSE(g.set_attribute(a, 2, 1)) << "the schema declares two";
    // Removed, then teleported at the same boundary: the teleport finds it gone.
    EXPECT_TRUE(g.remove(d));
    EXPECT_TRUE(g.teleport(d, {0, 5, 0}));
  };
  game.at[now + 41] = [&](server::GameControl& g, const server::TickReport&) {
    out.teleport_to_gone = g.teleport(d, {0, 5, 0});
    EXPECT_EQ(g.character(d), nullptr);
  };
  game.at[now + 90] = [&](server::GameControl& g, const server::TickReport&) { EXPECT_TRUE(g.freeze(b, false)); };
  h.run_for(3 * kS);
  out.states = game.states;
  out.left = game.left;
  out.dropped = h.server().counters().get(Counter::kGameCommandsDropped);
  out.removals = h.server().counters().get(Counter::kGameRemovals);
  out.applied = h.server().counters().get(Counter::kGameCommands);
  out.client_attributes = {h.client(0).attribute(0), h.client(1).attribute(0), h.client(0).match_attribute(1),
                           h.client(2).match_attribute(1), h.client(0).match_attribute(0)};
  for (int i = 0; i < 3; ++i) {
    out.server_corrections.push_back(h.client(i).predictor().counters().server);
    out.unexplained.push_back(h.client(i).predictor().counters().unexplained);
  }
  out.removed_phase = h.client(3).phase();
  out.removed_reason = h.client(3).reason_text();
  h.server().set_observer(nullptr);
  writer.close(recorder.last_tick());
  EXPECT_TRUE(writer.ok()) << writer.error();
  std::ifstream in(path, std::ios::binary);
  out.recording.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  std::remove(path.c_str());
  return out;
}

// The fleet's allocation (Agones: the program hands it over from the io thread) reaches the game once,
// at the start of the next tick, before its steps; end_match is the program's to act on.
TEST(GameApi, TheAllocationComesOnceAtTheStartOfTheNextTickAndEndMatchIsSeen) {
  SimHarness h(arena_world(), with_clients(2));
  auto game = std::make_unique<LogGame>();
  LogGame& log = *game;
  h.server().set_game(std::move(game));
  h.start_all();
  h.run_for(kS);
  ASSERT_EQ(h.client(1).phase(), Phase::kConnected);
  log.log.clear();
  const uint32_t tick = h.server().current_tick();
  h.server().allocated({{{"mode", "ctf"}}, {{"map", "arena"}, {"match", "m-1"}}});
  EXPECT_TRUE(log.log.empty()) << "handed over before a tick started";
  h.run_for(kS / 4);
  ASSERT_GE(log.log.size(), 2u);
  EXPECT_EQ(log.log[0], "allocated tick=" + std::to_string(tick) + " label:mode=ctf annotation:map=arena annotation:match=m-1");
  EXPECT_EQ(log.log[1], "after tick=" + std::to_string(tick + 1));
  EXPECT_EQ(std::count_if(log.log.begin(), log.log.end(), [](const std::string& l) { return l.rfind("allocated", 0) == 0; }), 1);
  EXPECT_FALSE(h.server().match_over());
  h.server().game_control().end_match();
  EXPECT_TRUE(h.server().match_over());
}

TEST(GameApi, EveryCommandActsAtTheNextBoundaryTheSameOnOneThreadAndOnFour) {
  const CommandRun one = run_commands(1);
  const CommandRun four = run_commands(4);
  ASSERT_FALSE(one.states.empty());
  ASSERT_EQ(one.states.size(), four.states.size());
  for (std::size_t i = 0; i < one.states.size(); ++i)
    ASSERT_EQ(one.states[i], four.states[i]) << "entry " << i << ": tick " << one.states[i].tick << ", character " << one.states[i].id;
  EXPECT_EQ(one.client_attributes, four.client_attributes);
  // The recordings (every input consumed, every command at its tick, every state's checksum), byte for byte.
  ASSERT_GT(one.recording.size(), 1000u);
  EXPECT_EQ(one.recording, four.recording);
  EXPECT_EQ(one.client_attributes, (std::vector<int32_t>{7, 0, -40, -40, 0}));
  // Removed at the boundary, with the teleport given after the removal dropped there; later commands
  // on it refused at once.
  EXPECT_EQ(one.removals, 1u);
  EXPECT_EQ(one.dropped, 1u);
  EXPECT_FALSE(one.teleport_to_gone);
  EXPECT_EQ(one.removed_phase, Phase::kDisconnected);
  EXPECT_NE(one.removed_reason.find("Removed"), std::string::npos) << one.removed_reason;
  EXPECT_EQ(one.left.size(), 1u);
  // The clients whose characters the game moved saw it as the server's doing, never unexplained.
  EXPECT_GE(one.server_corrections[0], 2u) << "the teleport and the launch";
  EXPECT_GE(one.server_corrections[1], 1u) << "the freeze";
  EXPECT_GE(one.server_corrections[2], 1u) << "the profile";
  for (uint64_t u : one.unexplained) EXPECT_EQ(u, 0u);
}

TEST(GameApi, TeleportVelocityFreezeAndProfileChangeTheStateAtTheBoundary) {
  HarnessOptions o = with_clients(2);
  o.settings = with_heavy_profile();
  o.pattern = bots::Pattern::kCircle;
  SimHarness h(arena_world(), o);
  ScriptGame& game = install_script(h);
  h.start_all();
  h.run_for(kS);
  const uint32_t t0 = h.server().current_tick();
  const uint32_t a = h.client(0).character_id(), b = h.client(1).character_id();
  const Vec3 target{-4, 6, 4};
  game.at[t0 + 5] = [&](server::GameControl& g, const server::TickReport&) { g.teleport(a, target); };
  game.at[t0 + 60] = [&](server::GameControl& g, const server::TickReport&) {
    g.set_velocity(a, {2, 8, 0});
    g.freeze(b, true);
    g.set_profile(b, "heavy");
  };
  h.run_for(2 * kS);
  // The teleport: not yet after tick t0+5; after t0+6, there less one tick of falling.
  const CharacterState* before = state_after(game, a, t0 + 5);
  const CharacterState* after = state_after(game, a, t0 + 6);
  ASSERT_TRUE(before && after);
  EXPECT_GT(length(to_position(before->position) - target), 1.0);
  EXPECT_LT(length(to_position(after->position) - target), 0.15);
  EXPECT_EQ(after->ground, GroundKind::kNone);
  // The launch: after t0+61, rising at 8 m/s less one tick of gravity, drifting at 2 m/s.
  const CharacterState* launched = state_after(game, a, t0 + 61);
  ASSERT_TRUE(launched);
  EXPECT_NEAR(to_velocity(launched->velocity).y, 8 - 20.0 / 60, 0.01);
  EXPECT_EQ(launched->ground, GroundKind::kNone);
  // The freeze and the profile: in the state from the boundary on; a frozen character on the
  // ground stays where it is, whatever its bot wants.
  const CharacterState* frozen = state_after(game, b, t0 + 61);
  ASSERT_TRUE(frozen);
  EXPECT_TRUE(frozen->frozen);
  EXPECT_EQ(frozen->profile, 1);
  const CharacterState* later = state_after(game, b, t0 + 100);
  const CharacterState* latest = state_after(game, b, t0 + 110);
  ASSERT_TRUE(later && latest);
  EXPECT_TRUE(is_grounded(later->ground));
  EXPECT_EQ(later->position.x, latest->position.x);
  EXPECT_EQ(later->position.z, latest->position.z);
  EXPECT_EQ(h.client(1).predictor().counters().unexplained, 0u);
}

// Knockback (GameControl::push, movement.md §5.5) on #37's bad network: four wandering clients
// pushed every half second, some into the arena's walls, some with a launch. Every client predicts
// what follows the push (it sees the push itself as the server's doing, never unexplained), and the
// recording, keyframes holding pushes included, replays without the game.
TEST(GameApi, PushesArePredictedOnABadNetworkAndTheRecordingReplaysThem) {
  HarnessOptions o = with_clients(4);
  o.seed = test_seed(66);
  SimHarness h(arena_world(), o);
  h.network().set_impairment(bad_network());
  ScriptGame& game = install_script(h);
  const std::string path = ::testing::TempDir() + "/pushes.rec";
  replay::RecordingWriter writer;
  ASSERT_TRUE(writer.open(path, server::server_recording_header("arena", arena_world(), o.settings, 1, 30)));
  server::ServerRecorder recorder(writer, 30);
  h.server().set_observer(&recorder);
  h.start_all();
  h.run_for(kS);
  const uint32_t t0 = h.server().current_tick();
  int given = 0;
  uint64_t moved_far = 0;
  for (uint32_t k = 0; k < 16; ++k)
    game.at[t0 + 29 + 30 * k] = [&, k](server::GameControl& g, const server::TickReport& r) {
      for (const auto& c : r.characters) {
        // Eight headings, 9 m/s, every third one with a launch.
        const double angle_x[8] = {1, 0.7071, 0, -0.7071, -1, -0.7071, 0, 0.7071};
        const double angle_z[8] = {0, 0.7071, 1, 0.7071, 0, -0.7071, -1, -0.7071};
        const std::size_t d = (k + c.id) % 8;
        EXPECT_TRUE(g.push(c.id, {9 * angle_x[d], (k + c.id) % 3 == 0 ? 4.0 : 0.0, 9 * angle_z[d]}));
        ++given;
      }
    };
  h.run_for(10 * kS);
  // The pushes carried the characters: at least one went over a metre in the tick after its push.
  for (std::size_t i = 0; i + 1 < game.states.size(); ++i) {
    const CharacterState& st = game.states[i].state;
    if (st.push != FixedVec3{} && to_velocity(st.push).x * to_velocity(st.push).x + to_velocity(st.push).z * to_velocity(st.push).z > 60)
      ++moved_far;
  }
  EXPECT_EQ(given, 16 * 4);
  EXPECT_GT(moved_far, 16u) << "states just after a push hold most of its 9 m/s";
  uint64_t server_corrections = 0;
  for (int i = 0; i < 4; ++i) {
    const auto& counters = h.client(i).predictor().counters();
    EXPECT_EQ(counters.unexplained, 0u) << "client " << i;
    server_corrections += counters.server;
    print_corrections(i, h.client(i));  // the figure: corrections by class with pushes in play
  }
  EXPECT_GE(server_corrections, 16u) << "each client saw the game's pushes as the server's doing";
  h.server().set_observer(nullptr);
  writer.close(recorder.last_tick());
  ASSERT_TRUE(writer.ok()) << writer.error();
  replay::LoadedRecording rec;
  std::string err;
  ASSERT_TRUE(replay::load_recording(path, rec, err)) << err;
  std::remove(path.c_str());
  const auto full = replay::resimulate(rec, arena_world(), {});
  EXPECT_TRUE(full.ok) << "tick " << full.first.tick << " id " << full.first.id;
  EXPECT_EQ(full.mismatches, 0u);
  // A keyframe taken while someone was pushed carries the push: a replay from it agrees too.
  const replay::KeyframeData* pushed_key = nullptr;
  for (const auto& k : rec.keyframes)
    for (const auto& st : k.states)
      if (st.state.push != FixedVec3{} && !pushed_key && k.tick > t0) pushed_key = &k;
  ASSERT_NE(pushed_key, nullptr) << "no keyframe held a push";
  replay::ResimOptions from;
  from.from_tick = pushed_key->tick + 1;
  const auto part = replay::resimulate(rec, arena_world(), from);
  EXPECT_TRUE(part.ok);
  EXPECT_EQ(part.start_tick, pushed_key->tick + 1);
}

// Values a command's header calls out of range (server/game.h) are refused: false, and nothing
// given, so the state is as the character's own steps leave it. (Before, a teleport to infinity
// put the character at the fixed-point range's edge, 1,048,576 m, and NaN and 5,000 m/s velocities
// were taken, clamped.)
TEST(GameApi, NonFiniteAndOutOfRangeCommandValuesAreRefusedWithNothingChanged) {
  HarnessOptions o = with_clients(1);
  SimHarness h(arena_world(), o);
  ScriptGame& game = install_script(h);
  h.start_all();
  h.run_for(kS);
  const uint32_t t0 = h.server().current_tick();
  const uint32_t a = h.client(0).character_id();
  const double inf = std::numeric_limits<double>::infinity(), nan = std::nan("");
  std::vector<bool> refused, taken;
  uint64_t commands_before = 0;
  game.at[t0 + 2] = [&](server::GameControl& g, const server::TickReport&) {
    commands_before = h.server().counters().get(Counter::kGameCommands);
    refused = {g.teleport(a, {inf, 1, -inf}), g.teleport(a, {nan, 1, 0}), g.teleport(a, {0, 2e6, 0}),
               g.teleport(a, {5000, 1, 0}), g.set_velocity(a, {nan, 0, 0}), g.set_velocity(a, {5000, 0, 0}),
               g.set_velocity(a, {0, -inf, 0}), g.set_velocity(a, {0, 0, 201}), g.set_attribute(a, 2, 1),
               g.set_attribute(a, -1, 1), g.set_match_attribute(16, 1)};
  };
  h.run_for(kS / 10);
  ASSERT_EQ(refused.size(), 11u);
  for (std::size_t i = 0; i < refused.size(); ++i) EXPECT_FALSE(refused[i]) << "value " << i;
  EXPECT_EQ(h.server().counters().get(Counter::kGameCommands), commands_before) << "nothing applied";
  const CharacterState* after = state_after(game, a, t0 + 3);
  ASSERT_TRUE(after);
  EXPECT_LT(length(to_position(after->position)), 100.0);
  EXPECT_LT(length(to_velocity(after->velocity)), 20.0);
  // The edges of the ranges are in them: the arena's bounds plus 1,000 m, and 200 m/s.
  const Vec3 edge{game_world_edge(), 1, 0};
  game.at[t0 + 10] = [&](server::GameControl& g, const server::TickReport&) {
    taken = {g.set_velocity(a, {200, -200, 0}), g.teleport(a, edge)};
  };
  h.run_for(kS / 10);
  ASSERT_EQ(taken.size(), 2u);
  EXPECT_TRUE(taken[0]);
  EXPECT_TRUE(taken[1]);
}

// What re-simulation checks a recorded command against (replay/resimulate.cpp skips what fails it):
// a hostile recording's teleport past the margin or launch past the limit is refused by name.
TEST(GameApi, ARecordedCommandOutOfRangeHasAProblemByName) {
  const Aabb bounds = arena_world().bounds();
  GameCommand c;
  c.kind = GameCommandKind::kTeleport;
  c.vector = quantize_position({0, 1, 0});
  EXPECT_EQ(command_problem(c, bounds), "");
  c.vector = quantize_position({0, 1e6, 0});
  EXPECT_EQ(command_problem(c, bounds), "a teleport outside the world's bounds and their margin");
  c.kind = GameCommandKind::kVelocity;
  c.vector = quantize_velocity({0, 0, 1000});
  EXPECT_EQ(command_problem(c, bounds), "a velocity over the most a command may set");
  c.kind = GameCommandKind::kProfile;
  c.value = 16;
  EXPECT_EQ(command_problem(c, bounds), "a profile out of range");
  c.kind = GameCommandKind(kLastGameCommandKind + 1);
  EXPECT_EQ(command_problem(c, bounds), "an unknown command");
  // A mover's command is the world's movers' to judge (mover_command_problem()).
  c.kind = GameCommandKind::kMover;
  c.character = 99;
  EXPECT_EQ(command_problem(c, bounds), "");
  EXPECT_EQ(mover_command_problem(c, arena_world()), "no such mover");
}

// Attributes change every few ticks through a network that loses a third of everything: each
// client ends with the server's values, its own character's and the match's, and their names.
TEST(GameApi, AttributesConvergeToTheServersValuesThroughLoss) {
  HarnessOptions o = with_clients(3);
  o.seed = test_seed(37);
  SimHarness h(arena_world(), o);
  ScriptGame& game = install_script(h);
  h.start_all();
  h.run_for(kS);
  h.network().set_impairment({0.33, 0.05, 0.1, 40 * kMs, 20 * kMs});
  std::map<uint32_t, int32_t> score;
  int32_t phase = 0;
  const uint32_t t0 = h.server().current_tick();
  for (uint32_t t = t0 + 1; t < t0 + 240; t += 3) {
    game.at[t] = [&, t](server::GameControl& g, const server::TickReport& r) {
      for (const auto& c : r.characters) {
        const int32_t v = int32_t(t * 1000 + c.id) * ((t % 2) ? 1 : -1);
        g.set_attribute(c.id, 0, v);
        score[c.id] = v;
      }
      if (t % 9 == 1) g.set_match_attribute(0, ++phase);
    };
  }
  // One last change of a value that then never changes: only its own snapshots carry it.
  game.at[t0 + 250] = [&](server::GameControl& g, const server::TickReport&) { g.set_match_attribute(1, INT32_MIN); };
  h.run_for(6 * kS);
  h.network().set_impairment({});
  h.run_for(kS / 2);
  for (int i = 0; i < 3; ++i) {
    const client::ClientSession& c = h.client(i);
    ASSERT_EQ(c.phase(), Phase::kConnected);
    EXPECT_EQ(c.attribute(0), score.at(c.character_id())) << "client " << i;
    EXPECT_EQ(c.match_attribute(0), phase) << "client " << i;
    EXPECT_EQ(c.match_attribute(1), INT32_MIN) << "client " << i;
    EXPECT_EQ(c.attribute(1), 0);
    ASSERT_EQ(c.attribute_names().size(), 2u);
    EXPECT_EQ(c.attribute_index("lives"), 1);
    EXPECT_EQ(c.match_attribute_index("countdown"), 1);
    EXPECT_EQ(c.match_attribute_index("score"), -1);
  }
  EXPECT_GT(phase, 20);
}

// A change whose snapshot is lost reaches the client in a later one, though nothing changes again.
TEST(GameApi, ASingleLostSnapshotNeverLosesAnAttributeChange) {
  HarnessOptions o = with_clients(1);
  SimHarness h(arena_world(), o);
  ScriptGame& game = install_script(h);
  h.start_all();
  h.run_for(kS);
  const uint32_t t0 = h.server().current_tick();
  game.at[t0 + 5] = [&](server::GameControl& g, const server::TickReport&) { g.set_match_attribute(0, 12345); };
  // Everything from the server is lost from the boundary that applies it for 100 ms.
  h.run_for(5 * kS / 60 + kMs);
  h.network().set_impairment({1.0, 0, 0, 0, 0});
  h.run_for(100 * kMs);
  EXPECT_EQ(h.client(0).match_attribute(0), 0);
  h.network().set_impairment({});
  h.run_for(kS / 2);
  EXPECT_EQ(h.client(0).match_attribute(0), 12345);
}

// #66: an attribute of visibility `all` reaches every client that has the character in its view
// and none that does not; one of visibility `self` reaches only its own client. 52 characters in a
// row 1 m apart, frozen: each client sees about its nearest 48 within its interest's reach, so
// those near one end never see the far end. Then the row is reversed end for end: the values of the characters that left a view are
// forgotten, and the ones that came into it arrive.
TEST(GameApi, AnAttributeSeenByAllReachesEveryClientInViewAndNoneOutOfView) {
  constexpr int kClients = 52;
  HarnessOptions o = with_clients(kClients);
  o.seed = test_seed(66);
  SimHarness h(arena_world(), o);
  auto owned = std::make_unique<ScriptGame>();
  owned->declared = {{"secret", "team", "score"}, {}, {"team", "score"}};
  ScriptGame& game = *owned;
  h.server().set_game(std::move(owned));
  h.start_all();
  h.run_for(kS);
  h.network().set_impairment({0.1, 0.02, 0.05, 20 * kMs, 10 * kMs});
  const uint32_t t0 = h.server().current_tick();
  auto line_up = [&](bool reversed) {
    return [&, reversed](server::GameControl& g, const server::TickReport& r) {
      for (std::size_t k = 0; k < r.characters.size(); ++k) {
        const uint32_t id = r.characters[k].id;
        const double x = (reversed ? double(r.characters.size() - 1 - k) : double(k)) - 25.0;
        g.freeze(id, true);
        g.teleport(id, {x, 1, 0});
        g.set_attribute(id, 0, 7000 + int32_t(id));
        g.set_attribute(id, 1, 100 + int32_t(id));
        g.set_attribute(id, 2, -int32_t(id) * 1000);
      }
    };
  };
  game.at[t0 + 2] = line_up(false);
  auto check = [&](const char* when) {
    SCOPED_TRACE(when);
    std::size_t seen = 0, unseen = 0;
    for (int i = 0; i < kClients; ++i) {
      const client::ClientSession& c = h.client(i);
      ASSERT_EQ(c.phase(), Phase::kConnected);
      std::vector<uint32_t> in_view;
      for (const OtherCharacter& other : c.others()) in_view.push_back(other.id);
      for (int j = 0; j < kClients; ++j) {
        const uint32_t id = h.client(j).character_id();
        const bool own = id == c.character_id();
        const bool visible = std::find(in_view.begin(), in_view.end(), id) != in_view.end();
        EXPECT_EQ(c.attribute_of(id, 0), own ? 7000 + int32_t(id) : 0) << "client " << i << " of " << id << ": `self`";
        EXPECT_EQ(c.attribute_of(id, 1), own || visible ? 100 + int32_t(id) : 0) << "client " << i << " of " << id;
        EXPECT_EQ(c.attribute_of(id, 2), own || visible ? -int32_t(id) * 1000 : 0) << "client " << i << " of " << id;
        if (!own) ++(visible ? seen : unseen);
      }
    }
    // The interest reaches about the nearest 48 within its rings of cells: at each end of the row,
    // the far end is out of view.
    EXPECT_GT(seen, std::size_t(kClients) * 20) << "unseen " << unseen;
    EXPECT_GT(unseen, std::size_t(kClients) * 3) << "seen " << seen;
  };
  h.run_for(3 * kS);
  h.network().set_impairment({});
  h.run_for(kS / 2);
  check("in a row");
  const uint32_t t1 = h.server().current_tick();
  game.at[t1 + 2] = line_up(true);
  h.run_for(2 * kS);
  check("the row reversed");
}

// #66: at the smallest budget, 49 wandering clients each seeing 48 others whose 4 attributes seen
// by all change every few ticks: no snapshot exceeds the budget, and once the changes stop every
// client holds every value of every character in its view within a second (none starved by the
// view's changes).
TEST(GameApi, AttributesSeenByAllFitTheSmallestBudgetAndNoneStarves) {
  constexpr int kClients = 49;
  HarnessOptions o = with_clients(kClients);
  o.core.snapshot_budget = proto::kMinSnapshotBudget;
  o.seed = test_seed(67);
  SimHarness h(arena_world(), o);
  std::size_t largest = 0;
  h.network().set_tap([&](const proto::Endpoint& from, const proto::Endpoint&, std::span<const uint8_t> b) {
    if (from == SimHarness::server_endpoint() && proto::session_payload(b) == proto::Payload::kCompact)
      largest = std::max(largest, b.size());
  });
  auto owned = std::make_unique<ScriptGame>();
  owned->declared = {{"a", "b", "c", "d"}, {}, {"a", "b", "c", "d"}};
  ScriptGame& game = *owned;
  h.server().set_game(std::move(owned));
  h.start_all();
  h.run_for(kS);
  const uint32_t t0 = h.server().current_tick();
  std::map<uint32_t, std::array<int32_t, 4>> values;
  for (uint32_t t = t0 + 1; t < t0 + 180; ++t)
    game.at[t] = [t, &values](server::GameControl& g, const server::TickReport& r) {
      for (const auto& c : r.characters) {
        if ((t + c.id) % 5 != 0) continue;
        const int32_t v = int32_t(t * 131 + c.id) % 100000;
        g.set_attribute(c.id, int(t % 4), v);
        values[c.id][t % 4] = v;
      }
    };
  // The changes stop after 3 s; a second later every value has arrived (at this smallest budget, 48
  // others in view each: half a second was not always enough, for some seeds, with or without pushes).
  h.run_for(4 * kS);
  for (int i = 0; i < kClients; ++i) {
    const client::ClientSession& c = h.client(i);
    ASSERT_EQ(c.phase(), Phase::kConnected);
    EXPECT_GE(c.others().size(), 40u) << "client " << i;
    for (const OtherCharacter& other : c.others())
      for (int a = 0; a < 4; ++a)
        EXPECT_EQ(c.attribute_of(other.id, a), values[other.id][std::size_t(a)]) << "client " << i << " of " << other.id;
  }
  EXPECT_LE(largest, std::size_t(proto::kMinSnapshotBudget));
}

TEST(GameApi, AnInvalidSchemaIsRefusedByName) {
  SimHarness h(arena_world(), with_clients(0));
  auto make = [](server::GameSchema s) {
    auto g = std::make_unique<ScriptGame>();
    g->declared = std::move(s);
    return g;
  };
  auto refusal = [&](server::GameSchema s) {
    try {
      h.server().set_game(make(std::move(s)));
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(refusal({{"Score"}, {}}), "the game's schema: character_attributes[0]: 'Score' is not 1-16 characters of [a-z0-9_]");
  EXPECT_EQ(refusal({{}, {"a", "b", "a"}}), "the game's schema: match_attributes: 'a' is declared twice");
  EXPECT_EQ(refusal({std::vector<std::string>(17, "x"), {}}),
            "the game's schema: character_attributes: 17 attributes, more than the 16 a game may declare");
  EXPECT_EQ(refusal({{std::string(17, 'x')}, {}}),
            "the game's schema: character_attributes[0]: '" + std::string(17, 'x') + "' is not 1-16 characters of [a-z0-9_]");
  EXPECT_EQ(refusal({{"ok"}, {}, {"ko"}}), "the game's schema: seen_by_all: 'ko' is not one of character_attributes");
  EXPECT_EQ(refusal({{"ok"}, {}, {"ok", "ok"}}), "the game's schema: seen_by_all: 'ok' is declared twice");
  EXPECT_EQ(refusal({{"ok"}, {}}), "accepted");
  EXPECT_EQ(refusal({{"ok", "team"}, {}, {"team"}}), "accepted");
}

// The largest schema's names all reach the client in its Accept.
TEST(GameApi, SixteenAndSixteenNamesOfSixteenCharactersFitTheAccept) {
  HarnessOptions o = with_clients(1);
  SimHarness h(arena_world(), o);
  auto g = std::make_unique<ScriptGame>();
  g->declared = {};
  for (int i = 0; i < 16; ++i) {
    g->declared.character_attributes.push_back("character_attr" + std::string(1, char('a' + i)) + "z");
    g->declared.match_attributes.push_back("match_attribute" + std::string(1, char('a' + i)));
  }
  const server::GameSchema schema = g->declared;
  h.server().set_game(std::move(g));
  h.start_all();
  h.run_for(kS);
  ASSERT_EQ(h.client(0).phase(), Phase::kConnected) << h.client(0).reason_text();
  EXPECT_EQ(std::vector<std::string>(h.client(0).attribute_names().begin(), h.client(0).attribute_names().end()),
            schema.character_attributes);
  EXPECT_EQ(std::vector<std::string>(h.client(0).match_attribute_names().begin(), h.client(0).match_attribute_names().end()),
            schema.match_attributes);
}

TEST(GameApi, UserDataOf257BytesIsRefusedAtMinting) {
  proto::ConnectToken token;
  std::string error;
  const std::vector<proto::TokenAddress> addresses = {proto::to_token_address(SimHarness::server_endpoint())};
  const std::vector<uint8_t> too_much(proto::kMaxUserData + 1, 1);
  EXPECT_FALSE(proto::mint_token(SimHarness::key(), 1, addresses, SimHarness::kUnixStart, 60, token, error, 0, too_much));
  EXPECT_NE(error.find("257"), std::string::npos) << error;
  const std::vector<uint8_t> most(proto::kMaxUserData, 1);
  EXPECT_TRUE(proto::mint_token(SimHarness::key(), 1, addresses, SimHarness::kUnixStart, 60, token, error, 0, most)) << error;
}

}  // namespace
}  // namespace foothold::test
