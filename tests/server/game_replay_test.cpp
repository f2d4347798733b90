// Replaying a game's decisions (server/game_replay.h) from a server's recording: a hitscan match's
// every verdict, command and attribute comes out the same; a game that decides otherwise is caught at
// its first difference, by tick and by what it sent; a recording that cannot be replayed says why.

#include <cstdio>
#include <fstream>
#include <optional>
#include <string>

#include <gtest/gtest.h>

#include "bots/shooter.h"
#include "games/hitscan_game.h"
#include "games/tag_game.h"
#include "replay/recording.h"
#include "server/game_replay.h"
#include "server/recorder.h"
#include "support/scenario_support.h"
#include "support/sim_harness.h"
#include "support/test_seed.h"

namespace foothold::test {
namespace {

constexpr proto::Nanos kS = proto::kSecond;

// A hitscan match of three clients, recorded from the first tick: each shoots at the next one
// twice a second as its client draws it (and some beside it), on an impaired network.
std::string record_match(const std::string& name, int snapshot_interval) {
  HarnessOptions o = with_clients(3);
  o.pattern = bots::Pattern::kCircle;
  o.seed = test_seed(39);
  o.core.snapshot_interval = snapshot_interval;
  o.core.rewind_window_ms = 250;
  SimHarness h(arena_world(), o);
  h.server().set_game(server::make_hitscan_game());
  const std::string path = ::testing::TempDir() + "/" + name + ".rec";
  replay::RecordingHeader header = server::server_recording_header("arena", arena_world(), o.settings, 1, 60);
  header.game = "hitscan";
  header.snapshot_interval = uint32_t(snapshot_interval);
  header.rewind_window = h.server().rewind_window_ticks();
  replay::RecordingWriter writer;
  EXPECT_TRUE(writer.open(path, header)) << writer.error();
  server::ServerRecorder recorder(writer, 60, true);
  h.server().set_observer(&recorder);
  h.start_all();
  h.run_for(kS);
  uint64_t seq = 0;
  for (int round = 0; round < 8; ++round) {
    for (int i = 0; i < 3; ++i) {
      client::ClientSession& shooter = h.client(i);
      const uint32_t target = h.client((i + 1) % 3).character_id();
      const double view = shooter.view_tick(h.now());
      const auto drawn = shooter.remotes().sample(target, view);
      if (!drawn) continue;
      const Vec3 me = to_position(shooter.predictor().latest_state().position);
      const Vec3 aim = drawn->position + normalized_or_zero(cross(drawn->position - me, kUp)) * (round % 3 == 2 ? 0.6 : 0.0);
      const std::string text = bots::Shooter::shot_text(++seq, shooter.predictor().latest_tick(), view, me, aim - me);
      EXPECT_EQ(shooter.send_message(proto::Channel::kReliable, std::vector<uint8_t>(text.begin(), text.end())),
                proto::SendError::kNone);
    }
    h.run_for(kS / 2);
  }
  h.client(2).disconnect();  // a leave inside the match
  h.run_for(kS / 2);
  h.server().set_observer(nullptr);
  writer.close(recorder.last_tick());
  EXPECT_TRUE(writer.ok()) << writer.error();
  return path;
}

TEST(GameReplay, AHitscanMatchReplaysVerdictForVerdict) {
  for (const int interval : {1, 2}) {
    const std::string path = record_match("hitscan_match_" + std::to_string(interval), interval);
    // What was recorded: the players the game was told of, and each verdict with its send's result.
    replay::RecordingReader reader;
    ASSERT_TRUE(reader.open(path)) << reader.error();
    EXPECT_EQ(reader.header().game, "hitscan");
    EXPECT_EQ(reader.header().snapshot_interval, uint32_t(interval));
    EXPECT_EQ(reader.header().rewind_window, 15u);
    std::size_t players = 0, hits = 0, misses = 0;
    for (auto next = reader.next(); next == replay::RecordingReader::Next::kTick || next == replay::RecordingReader::Next::kKeyframe;
         next = reader.next()) {
      if (next == replay::RecordingReader::Next::kKeyframe) continue;
      players += reader.tick().players.size();
      EXPECT_TRUE(reader.tick().players.empty() || reader.tick().players.size() == reader.tick().joins.size());
      for (const auto& m : reader.tick().sent) {
        const std::string text(m.bytes.begin(), m.bytes.end());
        hits += text.rfind("hit ", 0) == 0;
        misses += text.rfind("miss ", 0) == 0;
        EXPECT_EQ(m.result, uint8_t(proto::SendError::kNone));
      }
    }
    EXPECT_EQ(players, 3u);
    EXPECT_GT(hits, 8u);
    EXPECT_GT(misses, 0u) << "the shots beside their targets";

    const server::GameReplayResult r = server::replay_game(path, arena_world(), server::make_hitscan_game());
    EXPECT_TRUE(r.ok) << r.error << r.difference;
    EXPECT_EQ(r.difference, "");
    EXPECT_EQ(r.sends, hits + misses);
    EXPECT_GT(r.commands, 2 * hits) << "each hit sets hits and shots";
    EXPECT_GE(r.messages, hits + misses);
    EXPECT_FALSE(r.truncated);

    // Another game on the same recording parts at once (tag sets its round at the first boundary).
    const server::GameReplayResult other = server::replay_game(path, arena_world(), server::make_tag_game());
    EXPECT_FALSE(other.ok);
    EXPECT_EQ(other.difference.rfind("tick 1: command 0: the game gave ", 0), 0u) << other.difference;
    std::remove(path.c_str());
  }
}

// A game that decides by something the recording does not hold (here a count that the replay starts
// again from another value) is caught where it first sends otherwise.
struct Forgetful final : server::Game {
  explicit Forgetful(int start) : n(start) {}
  int n;
  void on_message(server::GameControl& g, uint32_t id, proto::Channel, std::span<const uint8_t>) override {
    const std::string text = "seen " + std::to_string(n++);
    g.send(id, proto::Channel::kReliable, {reinterpret_cast<const uint8_t*>(text.data()), text.size()});
  }
};

// A recording of the game `name` on `h`'s server, from its next tick: stop() closes it.
struct GameRecording {
  // The header's seed is the server's, unless `seed` says otherwise (a recording that lies about it).
  GameRecording(SimHarness& harness, const HarnessOptions& o, const std::string& name, std::optional<uint64_t> seed = std::nullopt)
      : h(harness), path(::testing::TempDir() + "/" + name + ".rec") {
    replay::RecordingHeader header = server::server_recording_header("arena", arena_world(), o.settings, 1, 0);
    header.game = name;
    header.game_seed = seed ? *seed : h.server().game_seed();
    header.snapshot_interval = 1;
    EXPECT_TRUE(writer.open(path, header)) << writer.error();
    h.server().set_observer(&recorder);
  }
  void stop() {
    h.server().set_observer(nullptr);
    writer.close(recorder.last_tick());
    EXPECT_TRUE(writer.ok()) << writer.error();
  }
  SimHarness& h;
  std::string path;
  replay::RecordingWriter writer;
  server::ServerRecorder recorder{writer, 0, true};
};

TEST(GameReplay, AGameThatDecidesByWhatTheRecordingDoesNotHoldIsCaughtAtItsFirstDifference) {
  HarnessOptions o = with_clients(1);
  SimHarness h(arena_world(), o);
  h.server().set_game(std::make_unique<Forgetful>(0));
  GameRecording recording(h, o, "forgetful");
  const std::string& path = recording.path;
  h.start_all();
  h.run_for(kS / 2);
  for (int i = 0; i < 3; ++i) {
    const std::string text = "ping";
    h.client(0).send_message(proto::Channel::kReliable, std::vector<uint8_t>(text.begin(), text.end()));
    h.run_for(kS / 4);
  }
  recording.stop();
  const server::GameReplayResult same = server::replay_game(path, arena_world(), std::make_unique<Forgetful>(0));
  EXPECT_TRUE(same.ok) << same.difference << same.error;
  EXPECT_EQ(same.sends, 3u);
  const server::GameReplayResult off = server::replay_game(path, arena_world(), std::make_unique<Forgetful>(5));
  EXPECT_FALSE(off.ok);
  EXPECT_NE(off.difference.find("the game sent 'seen 5' to character 1 where the recording has 'seen 0' to character 1"),
            std::string::npos)
      << off.difference;
  std::remove(path.c_str());
}

// A game that teleports and pushes whoever messages it, by amounts it was built with.
struct Pusher final : server::Game {
  Pusher(double to_x, double speed_x) : x(to_x), vx(speed_x) {}
  double x, vx;
  void on_message(server::GameControl& g, uint32_t id, proto::Channel, std::span<const uint8_t>) override {
    g.teleport(id, {x, 3, 0});
    g.set_velocity(id, {vx, 5, 0});
  }
};

// Issue #66: --verify-game printed a differing command's vector in raw fixed-point units only; now
// metres (a position) and m/s (a velocity) beside them.
TEST(GameReplay, ADifferingCommandIsShownInMetresAndMetresPerSecond) {
  HarnessOptions o = with_clients(1);
  SimHarness h(arena_world(), o);
  h.server().set_game(std::make_unique<Pusher>(2.5, 1));
  GameRecording recording(h, o, "pusher");
  h.start_all();
  h.run_for(kS / 2);
  const std::string text = "push";
  h.client(0).send_message(proto::Channel::kReliable, std::vector<uint8_t>(text.begin(), text.end()));
  h.run_for(kS / 2);
  recording.stop();
  const server::GameReplayResult same = server::replay_game(recording.path, arena_world(), std::make_unique<Pusher>(2.5, 1));
  EXPECT_TRUE(same.ok) << same.difference << same.error;
  EXPECT_EQ(same.commands, 2u);
  const server::GameReplayResult there = server::replay_game(recording.path, arena_world(), std::make_unique<Pusher>(-1.25, 1));
  EXPECT_NE(there.difference.find("the game gave teleport of character 1 (slot 0, value 0, vector -1280,3072,0 = -1.25,3,0 m) "
                                  "where the recording has teleport of character 1 (slot 0, value 0, vector 2560,3072,0 = 2.5,3,0 m)"),
            std::string::npos)
      << there.difference;
  const server::GameReplayResult faster = server::replay_game(recording.path, arena_world(), std::make_unique<Pusher>(2.5, 2));
  EXPECT_NE(faster.difference.find("command 1: the game gave velocity of character 1 (slot 0, value 0, vector "
                                   "131072,327680,0 = 2,5,0 m/s) where the recording has velocity"),
            std::string::npos)
      << faster.difference;
  std::remove(recording.path.c_str());
}

// A game that rolls dice from its random source: on_start draws once, each message is answered with
// a roll and a draw, and its sender teleported to a random spot.
struct Dicer final : server::Game {
  uint64_t first = 0;
  void on_start(server::GameControl& g) override { first = g.random(); }
  void on_message(server::GameControl& g, uint32_t id, proto::Channel, std::span<const uint8_t>) override {
    const std::string text = "roll " + std::to_string(1 + g.random_below(6)) + " " + std::to_string(g.random() ^ first);
    g.send(id, proto::Channel::kReliable, {reinterpret_cast<const uint8_t*>(text.data()), text.size()});
    g.teleport(id, {double(g.random_below(20)), 3, double(g.random_below(20))});
  }
};

// Two clients roll five times each on a server seeded `seed`, recorded with `header_seed` (none: the
// server's).
std::string record_dice(const std::string& name, uint64_t seed, std::optional<uint64_t> header_seed = std::nullopt) {
  HarnessOptions o = with_clients(2);
  SimHarness h(arena_world(), o);
  h.server().set_game_seed(seed);
  h.server().set_game(std::make_unique<Dicer>());
  GameRecording recording(h, o, name, header_seed);
  h.start_all();
  h.run_for(kS / 2);
  for (int i = 0; i < 5; ++i) {
    for (int c = 0; c < 2; ++c) {
      const std::string text = "roll";
      h.client(c).send_message(proto::Channel::kReliable, std::vector<uint8_t>(text.begin(), text.end()));
    }
    h.run_for(kS / 4);
  }
  recording.stop();
  return recording.path;
}

// Issue #66: a game that called rand() could not be verified; GameControl::random() is seeded per
// match, the seed is in the recording, and the replay draws the same numbers.
TEST(GameReplay, AGameDrawingRandomNumbersReplaysIdenticalFromTheRecordedSeed) {
  const std::string path = record_dice("dicer", 0x5eed);
  replay::RecordingReader reader;
  ASSERT_TRUE(reader.open(path)) << reader.error();
  EXPECT_EQ(reader.header().format_version, replay::kRecordingFormat);
  EXPECT_EQ(reader.header().game_seed, 0x5eedu);
  const server::GameReplayResult r = server::replay_game(path, arena_world(), std::make_unique<Dicer>());
  EXPECT_TRUE(r.ok) << r.error << r.difference;
  EXPECT_EQ(r.sends, 10u);
  EXPECT_EQ(r.commands, 10u);
  std::remove(path.c_str());
}

TEST(GameReplay, ARecordingWhoseSeedIsNotTheMatchsIsCaughtAtTheFirstDraw) {
  const std::string path = record_dice("dicer_other_seed", 0x5eed, 0x5eee);
  const server::GameReplayResult r = server::replay_game(path, arena_world(), std::make_unique<Dicer>());
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.difference.find(": the game sent 'roll "), std::string::npos) << r.difference;
  std::remove(path.c_str());
}

TEST(GameRandom, IsSplitMix64OfTheSeedAndTheCountDrawn) {
  // SplitMix64's published sequence from seed 0.
  EXPECT_EQ(server::game_random(0, 0), 0xe220a8397b1dcdafull);
  EXPECT_EQ(server::game_random(0, 1), 0x6e789e6aa1b965f4ull);
  EXPECT_EQ(server::game_random(1234, 0), 0xbb0cf61b2f181cdbull);
  HarnessOptions o = with_clients(0);
  SimHarness h(arena_world(), o);
  h.server().set_game_seed(1234);
  server::GameControl& g = h.server().game_control();
  EXPECT_EQ(g.random(), 0xbb0cf61b2f181cdbull);
  EXPECT_EQ(g.random(), server::game_random(1234, 1));
  EXPECT_EQ(g.random_below(0), 0u);
  EXPECT_EQ(g.random_below(1), 0u);
  for (int i = 0; i < 100; ++i) EXPECT_LT(g.random_below(6), 6u);
  // Unless given one, each server draws its seed from the system's randomness (equal by chance: 2^-64).
  o.seed_game = false;
  SimHarness other(arena_world(), o);
  SimHarness third(arena_world(), o);
  EXPECT_NE(other.server().game_seed(), third.server().game_seed());
}

// A game that logs: once at its start, and a line with a newline, an escape and too many bytes for
// every message.
struct Chatty final : server::Game {
  void on_start(server::GameControl& g) override { g.log(server::GameLogLevel::kInfo, "started"); }
  void on_message(server::GameControl& g, uint32_t, proto::Channel, std::span<const uint8_t>) override {
    g.log(server::GameLogLevel::kWarn, "evil\n[fake] line\x1b[31m" + std::string(1000, 'x'));
  }
};

// Issue #66: a game had no logger. GameControl::log goes through the server's, each line naming the
// game, one printable line of at most kMaxGameLogLine bytes of the game's text; a replay logs the
// same lines when asked to, nothing otherwise.
TEST(GameLog, EachLineNamesTheGameAndIsOnePrintableBoundedLine) {
  using Lines = std::vector<std::pair<server::GameLogLevel, std::string>>;
  Lines lines;
  HarnessOptions o = with_clients(1);
  SimHarness h(arena_world(), o);
  h.server().set_game_log("chatty", [&](server::GameLogLevel level, const std::string& line) { lines.emplace_back(level, line); });
  h.server().set_game(std::make_unique<Chatty>());
  GameRecording recording(h, o, "chatty");
  h.start_all();
  h.run_for(kS / 2);
  const std::string text = "hi";
  h.client(0).send_message(proto::Channel::kReliable, std::vector<uint8_t>(text.begin(), text.end()));
  h.run_for(kS / 2);
  recording.stop();
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0], (Lines::value_type{server::GameLogLevel::kInfo, "game chatty: started"}));
  EXPECT_EQ(lines[1].first, server::GameLogLevel::kWarn);
  const std::string want = "game chatty: evil?[fake] line?[31m" + std::string(server::kMaxGameLogLine - 21, 'x');
  EXPECT_EQ(lines[1].second, want);

  Lines replayed;
  const server::GameReplayResult r = server::replay_game(recording.path, arena_world(), std::make_unique<Chatty>(),
                                                         [&](server::GameLogLevel level, const std::string& line) {
                                                           replayed.emplace_back(level, line);
                                                         });
  EXPECT_TRUE(r.ok) << r.error << r.difference;
  EXPECT_EQ(replayed, lines) << "the replay names the recorded game and logs what the game logged";
  std::remove(recording.path.c_str());
}

// A game that decides by the fleet's allocation (here: which mode to announce, and the match
// attribute it sets) replays the same, because the recording holds the allocation at its tick.
struct ModeGame final : server::Game {
  server::GameSchema schema() const override { return {{}, {"ctf"}}; }
  void on_allocated(server::GameControl& g, const server::Allocation& a) override {
    std::string mode = "none";
    for (const auto& [k, v] : a.labels)
      if (k == "mode") mode = v;
    g.set_match_attribute(0, mode == "ctf" ? 1 : 2);
    const std::string text = "mode " + mode + " at " + std::to_string(g.tick());
    g.broadcast(proto::Channel::kReliable, {reinterpret_cast<const uint8_t*>(text.data()), text.size()});
  }
};

TEST(GameReplay, TheAllocationIsRecordedAtItsTickAndReplayed) {
  HarnessOptions o = with_clients(2);
  SimHarness h(arena_world(), o);
  h.server().set_game(std::make_unique<ModeGame>());
  GameRecording recording(h, o, "mode");
  const std::string& path = recording.path;
  h.start_all();
  h.run_for(kS / 2);
  const uint32_t allocated_at = h.server().current_tick() + 1;
  h.server().allocated({{{"mode", "ctf"}, {"region", "eu"}}, {{"match", "m-7"}}});
  h.run_for(kS / 2);
  recording.stop();

  // In the recording: once, at the tick that handed it over, as handed over.
  replay::RecordingReader reader;
  ASSERT_TRUE(reader.open(path)) << reader.error();
  int allocations = 0;
  for (auto next = reader.next(); next == replay::RecordingReader::Next::kTick; next = reader.next()) {
    if (!reader.tick().allocation) continue;
    ++allocations;
    EXPECT_EQ(reader.tick().tick, allocated_at);
    const std::vector<std::pair<std::string, std::string>> labels = {{"mode", "ctf"}, {"region", "eu"}};
    EXPECT_EQ(reader.tick().allocation->labels, labels);
    EXPECT_EQ(reader.tick().allocation->annotations.size(), 1u);
    EXPECT_EQ(reader.tick().sent.size(), 2u) << "what on_allocated sent, in the record of the tick it started";
  }
  EXPECT_EQ(allocations, 1);

  const server::GameReplayResult r = server::replay_game(path, arena_world(), std::make_unique<ModeGame>());
  EXPECT_TRUE(r.ok) << r.difference << r.error;
  EXPECT_EQ(r.sends, 2u) << "the announcement, to each of the two";
  EXPECT_EQ(r.commands, 1u);
  std::remove(path.c_str());
}

TEST(GameReplay, ARecordingThatCannotBeReplayedSaysWhy) {
  HarnessOptions o = with_clients(1);
  const std::string path = ::testing::TempDir() + "/late_start.rec";
  replay::RecordingWriter writer;
  ASSERT_TRUE(writer.open(path, server::server_recording_header("arena", arena_world(), o.settings, 100, 0)));
  writer.close(0);
  auto r = server::replay_game(path, arena_world(), server::make_hitscan_game());
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("starts at tick 100"), std::string::npos) << r.error;
  r = server::replay_game(::testing::TempDir() + "/no_such.rec", arena_world(), server::make_hitscan_game());
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("no_such.rec"), std::string::npos) << r.error;
  std::remove(path.c_str());
}

}  // namespace
}  // namespace foothold::test
