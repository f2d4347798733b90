// A recording holds nothing its server could not have done (issue #63, parts 4 and 5): a header or a
// tick that claims more (a rewind window of 4294967295 ticks once made --verify-game abort with
// bad_alloc, 30,000,000 made it take 956 MB; joins, characters and a tick's messages had no cap) is
// refused whole, by name, with exit 2, by both readers that run as tools: `foothold-replay verify`
// and `foothold-server --verify-game`. And the world a recording names is opened only when it is a
// regular file under the size cap (world=/dev/zero made verify read without end, a FIFO hung it);
// --world wins over it.

#include <sys/stat.h>
#include <unistd.h>

#include <functional>

#include <gtest/gtest.h>

#include "replay/recording.h"
#include "server/recorder.h"
#include "shared/formats/text_fields.h"
#include "shared/step.h"
#include "support/process.h"
#include "support/scenario_support.h"

namespace foothold::test {
namespace {

const std::string kReplay = FOOTHOLD_REPLAY_BIN;
const std::string kServer = FOOTHOLD_SERVER_BIN;
// A reader that would read without end or wait on a FIFO (the bugs) is stopped, not left to hang the suite.
const std::string kLimit = "timeout 60 ";

// A server's recording of the echo game on the arena, with `header` changed as the test needs, and
// the ticks `ticks` gives (each written in order), closed cleanly.
std::string write_recording(const TempDir& dir, const std::function<void(replay::RecordingHeader&)>& header,
                            const std::vector<replay::TickData>& ticks = {}, const std::vector<replay::KeyframeData>& keyframes = {}) {
  replay::RecordingHeader h = server::server_recording_header("arena", arena_world(), MoveSettings{}, 1, 60);
  h.game = "echo";
  h.snapshot_interval = 1;
  h.rewind_window = 15;
  header(h);
  replay::RecordingWriter writer;
  const std::string path = dir.file("r.rec");
  EXPECT_TRUE(writer.open(path, h)) << writer.error();
  for (const auto& t : ticks) writer.write_tick(t);
  for (const auto& k : keyframes) writer.write_keyframe(k);
  writer.close(ticks.empty() ? 0 : ticks.back().tick);
  EXPECT_TRUE(writer.ok()) << writer.error();
  return path;
}

// Both tools refuse `path` with exit 2 and a message that holds `why`.
void expect_refused_by_both(const std::string& path, const std::string& why) {
  for (const std::string& command : {kReplay + " verify " + path, kServer + " --verify-game " + path}) {
    const auto r = run_command(kLimit + command);
    EXPECT_EQ(r.exit_code, 2) << command << "\n" << r.output;
    EXPECT_NE(r.output.find(why), std::string::npos) << command << "\n" << r.output;
  }
}

// A character as a join: high above the arena, each in its own square metre, so that thousands of
// them fall without meeting (a step among others that overlap costs far more).
replay::JoinEntry join(uint32_t id) {
  return {id, spawn_state(Vec3{double(id % 64) - 32, 100, double(id / 64) - 32})};
}

TEST(RecordingLimits, AHugeRewindWindowIsRefusedByName) {
  TempDir dir;
  expect_refused_by_both(write_recording(dir, [](auto& h) { h.rewind_window = 4294967295u; }),
                         "rewind_window 4294967295 ticks is over the server's most, 1000 ms (60 ticks at 60 Hz)");
  // One tick over a second at 60 Hz is over; a second is what a server may have had.
  expect_refused_by_both(write_recording(dir, [](auto& h) { h.rewind_window = 61; }), "rewind_window 61 ticks");
  const auto at_most = write_recording(dir, [](auto& h) { h.rewind_window = 60; });
  EXPECT_EQ(run_command(kReplay + " verify " + at_most).exit_code, 0);
  EXPECT_EQ(run_command(kServer + " --verify-game " + at_most).exit_code, 0);
}

TEST(RecordingLimits, AHugeSnapshotIntervalIsRefusedByName) {
  TempDir dir;
  expect_refused_by_both(write_recording(dir, [](auto& h) { h.snapshot_interval = 4294967295u; }),
                         "snapshot_interval 4294967295 ticks is over the server's most, 60 ticks");
  // At 240 Hz, snapshot_rate = 1 makes 240 ticks between snapshots: that much is within.
  const auto fast = write_recording(dir, [](auto& h) {
    h.settings.tick_rate = 240;
    h.settings_hash = h.settings.hash();
    h.snapshot_interval = 240;
  });
  EXPECT_EQ(run_command(kReplay + " info " + fast).exit_code, 0);
  expect_refused_by_both(write_recording(dir,
                                         [](auto& h) {
                                           h.settings.tick_rate = 240;
                                           h.settings_hash = h.settings.hash();
                                           h.snapshot_interval = 241;
                                         }),
                         "snapshot_interval 241 ticks is over the server's most, 240 ticks");
}

TEST(RecordingLimits, MoreJoinsLeavesInputsOrChecksumsInATickThanMaxClientsAreRefusedByName) {
  TempDir dir;
  const uint32_t over = uint32_t(kMaxServerClients) + 1;
  for (const std::string what : {"joins", "leaves", "inputs", "checksums"}) {
    replay::TickData t;
    t.tick = 1;
    for (uint32_t id = 1; id <= over; ++id) {
      if (what == "joins") t.joins.push_back(join(id));
      if (what == "leaves") t.leaves.push_back(id);
      if (what == "inputs") t.inputs.push_back({id, InputCmd{}, false, false});
      if (what == "checksums") t.checksums.push_back({id, 0});
    }
    expect_refused_by_both(write_recording(dir, [](auto&) {}, {t}),
                           "tick 1: " + what + " 4097 is over the server's most, 4096 (max_clients)");
  }
}

TEST(RecordingLimits, MoreCharactersAtOnceThanMaxClientsAreRefusedByName) {
  TempDir dir;
  // Each tick within the cap, but the characters pile up: 4096 and then one more.
  replay::TickData first, second;
  first.tick = 1;
  const DerivedSettings settings = derive(MoveSettings{});
  StepScratch scratch;
  for (uint32_t id = 1; id <= uint32_t(kMaxServerClients); ++id) {
    first.joins.push_back(join(id));
    // Its state after a step alone (none meets another), so that tick 1 replays as recorded.
    InputCmd idle;
    idle.tick = 1;
    first.inputs.push_back({id, idle, false, false});
    first.checksums.push_back({id, replay::state_checksum(step(join(id).state, idle, arena_world(), settings, scratch).state)});
  }
  second.tick = 2;
  second.joins.push_back(join(uint32_t(kMaxServerClients) + 1));
  expect_refused_by_both(write_recording(dir, [](auto&) {}, {first, second}),
                         "tick 2: characters at once 4097 is over the server's most, 4096 (max_clients)");
  // One leaving first makes room: then it is refused for something else (no inputs), not the count.
  second.leaves.push_back(1);
  const auto r = run_command(kReplay + " verify " + write_recording(dir, [](auto&) {}, {first, second}));
  EXPECT_EQ(r.output.find("characters at once"), std::string::npos) << r.output;
}

TEST(RecordingLimits, AKeyframeOfMoreCharactersThanMaxClientsIsRefusedByName) {
  TempDir dir;
  replay::KeyframeData k;
  k.tick = 0;
  for (uint32_t id = 1; id <= uint32_t(kMaxServerClients) + 1; ++id) k.states.push_back(join(id));
  expect_refused_by_both(write_recording(dir, [](auto&) {}, {}, {k}), "states 4097 is over the server's most, 4096");
}

TEST(RecordingLimits, MoreMessageBytesFromOneClientInATickThanASessionHoldsAreRefusedByName) {
  TempDir dir;
  // One character, there for the tick, hands over 257 messages of 64 KiB: more than a session's
  // reliable queue at its most (16 MiB) and its unreliable one together. Written in several records,
  // as a tick too big for one is; the reader gathered them all before.
  replay::TickData t;
  t.tick = 1;
  t.joins.push_back(join(1));
  t.inputs.push_back({1, InputCmd{}, false, false});
  t.checksums.push_back({1, 0});
  for (int i = 0; i < 257; ++i) t.messages.push_back({1, true, std::vector<uint8_t>(replay::kMaxRecordedMessage, 'x'), 0});
  expect_refused_by_both(write_recording(dir, [](auto&) {}, {t}),
                         "tick 1: message bytes from character 1 16842752 is over the server's most, 16793600");
}

// An empty recording whose header names `world` (its hash the arena's).
std::string naming_world(const TempDir& dir, const std::string& world) {
  return write_recording(dir, [&](auto& h) { h.world = world; });
}

// Both tools refuse a recording naming `world`, saying which file and why.
void expect_world_refused(const TempDir& dir, const std::string& world, const std::string& why) {
  const std::string path = naming_world(dir, world);
  for (const std::string& command : {kReplay + " verify " + path, kServer + " --verify-game " + path}) {
    const auto r = run_command(kLimit + command);
    EXPECT_EQ(r.exit_code, 2) << command << "\n" << r.output;
    EXPECT_NE(r.output.find(world + ": cannot open world file: " + why), std::string::npos) << command << "\n" << r.output;
  }
}

TEST(RecordingWorld, ADeviceAFifoADirectoryAndAnOversizedFileAreRefusedNotRead) {
  TempDir dir;
  expect_world_refused(dir, "/dev/zero", "it is a character device, not a regular file");
  const std::string fifo = dir.file("world.obj");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  expect_world_refused(dir, fifo, "it is a FIFO, not a regular file");
  const std::string folder = dir.file("levels.obj");
  ASSERT_EQ(mkdir(folder.c_str(), 0700), 0);
  expect_world_refused(dir, folder, "it is a directory, not a regular file");
  // One byte over the cap (sparse: no disk is spent), refused before a byte is read.
  const std::string big = dir.file("big.obj");
  dir.write("big.obj", "");
  ASSERT_EQ(truncate(big.c_str(), off_t(kMaxReadFileBytes + 1)), 0);
  expect_world_refused(dir, big, "it is 268435457 bytes, over the most read, 268435456 (256 MiB)");
}

TEST(RecordingWorld, AGltfWhoseBufferIsAFifoIsRefusedNotWaitedOn) {
  TempDir dir;
  // The files a glTF names are read as it is: tinygltf's own reader opened a FIFO and waited.
  const std::string fifo = dir.file("level.bin");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const std::string gltf = dir.write(
      "level.gltf",
      R"({"asset":{"version":"2.0"},"buffers":[{"uri":"level.bin","byteLength":36}],"bufferViews":[{"buffer":0,"byteLength":36}],)"
      R"("accessors":[{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3","min":[0,0,0],"max":[1,0,1]}],)"
      R"("meshes":[{"primitives":[{"attributes":{"POSITION":0}}]}],"nodes":[{"mesh":0}],"scenes":[{"nodes":[0]}],"scene":0})");
  const std::string path = naming_world(dir, gltf);
  for (const std::string& command : {kReplay + " verify " + path, kServer + " --verify-game " + path}) {
    const auto r = run_command(kLimit + command);
    EXPECT_EQ(r.exit_code, 2) << command << "\n" << r.output;
    EXPECT_NE(r.output.find("level.bin: cannot open buffer file: it is a FIFO, not a regular file"), std::string::npos)
        << command << "\n" << r.output;
  }
}

TEST(RecordingWorld, WorldOnTheCommandLineWinsOverTheRecordingsOwn) {
  TempDir dir;
  const std::string path = naming_world(dir, "/dev/zero");
  const auto r = run_command(kLimit + kReplay + " verify " + path + " --world arena");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("verified=1"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace foothold::test
