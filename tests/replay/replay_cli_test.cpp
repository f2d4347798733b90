// foothold-replay run: the scenario runner's command line, including every way to misuse it.

#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "shared/formats/trace.h"
#include "support/process.h"

namespace foothold::test {
namespace {

const std::string kReplay = FOOTHOLD_REPLAY_BIN;

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(ReplayRun, WritesATraceAndASummary) {
  TempDir dir;
  const auto script = dir.write("walk.txt", "# idle, then walk east and jump\n30 0 0 -\n30 1 0 -\n1 1 0 jump\n29 1 0 -\n");
  const auto r = run_command(kReplay + " run --world arena --spawn 12,2,12 --inputs " + script + " --out " + dir.file("t.csv"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("90 ticks at 60 Hz"), std::string::npos) << r.output;
  const std::string trace = read_file(dir.file("t.csv"));
  std::istringstream lines(trace);
  std::string line;
  std::getline(lines, line);
  EXPECT_TRUE(is_trace_header(line)) << line;
  int rows = 0;
  std::string err;
  while (std::getline(lines, line)) {
    const auto row = parse_trace_row(line, err);
    ASSERT_TRUE(row) << err << ": " << line;
    EXPECT_EQ(row->tick, uint32_t(rows));
    ++rows;
  }
  EXPECT_EQ(rows, 91) << "the spawn row and one row per tick";
}

TEST(ReplayWorld, DescribesAWorldAndExportsItAsGlbThatLoadsBack) {
  TempDir dir;
  const auto r = run_command(kReplay + " world --world arena --export " + dir.file("arena.glb"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("world arena: "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("exported: " + dir.file("arena.glb")), std::string::npos) << r.output;
  const auto back = run_command(kReplay + " world --world " + dir.file("arena.glb"));
  ASSERT_EQ(back.exit_code, 0) << back.output;
  // The same triangle count, read from the world's own line.
  const auto count = [](const std::string& out) {
    const std::size_t from = out.find(": ", out.find("world ")) + 2;
    return out.substr(from, out.find(" triangles", from) - from);
  };
  EXPECT_EQ(count(back.output), count(r.output));
  // The arena's movers are listed; the export leaves them out, and says so.
  EXPECT_NE(r.output.find("mover 1 (platform 2) 'shuttle': 12 triangles, loops every 14 s"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("--export writes the static triangles only"), std::string::npos) << r.output;
  EXPECT_EQ(back.output.find("mover "), std::string::npos) << back.output;
  // A run on the exported world works like on any other.
  const auto script = dir.write("idle.txt", "30 0 0 -\n");
  EXPECT_EQ(run_command(kReplay + " run --world " + dir.file("arena.glb") + " --spawn 12,2,12 --inputs " + script + " --out " +
                        dir.file("t.csv")).exit_code,
            0);
  // Bad worlds are usage errors naming the file.
  const auto bad = run_command(kReplay + " world --world " + dir.write("broken.gltf", "{not json"));
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.output.find("broken.gltf"), std::string::npos) << bad.output;
}

// Issue #66: a level's trigger volumes are listed with their index and box; the export leaves them
// out, and says so.
TEST(ReplayWorld, ListsTheTriggersOfALevel) {
  TempDir dir;
  const std::string level = std::string(FOOTHOLD_SOURCE_DIR) + "/tests/fuzz/corpus/gltf/triggers.gltf";
  const auto r = run_command(kReplay + " world --world " + level + " --export " + dir.file("t.glb"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("trigger 0 'pad': (4, 0, -1) to (6, 0.5, 1) m"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("trigger 2 'east': (0, 0, -20) to (20, 10, 20) m"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("not the triggers"), std::string::npos) << r.output;
  const auto arena = run_command(kReplay + " world --world arena");
  EXPECT_EQ(arena.output.find("trigger "), std::string::npos) << arena.output;
}

// Issue #66 part 3: a mover the game drives is listed as such, with the keys a go-to names by index.
TEST(ReplayWorld, SaysWhichMoversTheGameDrivesAndTheirKeys) {
  const std::string level = std::string(FOOTHOLD_SOURCE_DIR) + "/examples/hill_game/hill.gltf";
  const auto r = run_command(kReplay + " world --world " + level);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("mover 0 (platform 1) 'door': 12 triangles, loops every 2 s, driven by the game, keys 0 1 2 s\n"),
            std::string::npos)
      << r.output;
  const auto arena = run_command(kReplay + " world --world arena");
  EXPECT_EQ(arena.output.find("driven"), std::string::npos) << arena.output;
}

TEST(ReplayRun, SettingsFileChangesTheMovement) {
  TempDir dir;
  const auto script = dir.write("walk.txt", "60 0 0 -\n60 1 0 -\n");
  const auto slow = dir.write("slow.toml", "walk_speed = 2.5\n");
  ASSERT_EQ(run_command(kReplay + " run --spawn 12,2,12 --inputs " + script + " --out " + dir.file("a.csv")).exit_code, 0);
  ASSERT_EQ(run_command(kReplay + " run --settings " + slow + " --spawn 12,2,12 --inputs " + script + " --out " + dir.file("b.csv")).exit_code, 0);
  std::string err;
  auto last_x = [&](const std::string& path) {
    const std::string t = read_file(path);
    const auto pos = t.rfind('\n', t.size() - 2);
    return to_position(parse_trace_row(t.substr(pos + 1, t.size() - pos - 2), err)->state.position).x;
  };
  EXPECT_NEAR(last_x(dir.file("a.csv")) - 12, 5.0, 0.1);
  EXPECT_NEAR(last_x(dir.file("b.csv")) - 12, 2.5, 0.1);
}

struct BadUse {
  std::string args;
  std::string expect;
};

TEST(ReplayRun, BadArgumentsAndFilesExitWithCodeTwoAndSayWhatIsWrong) {
  TempDir dir;
  const auto good = dir.write("good.txt", "10 0 0 -\n");
  const auto out = dir.file("out.csv");
  const std::vector<BadUse> cases = {
      {"", "subcommand"},
      {"run --spawn 0,1,0 --out " + out, "--inputs"},
      {"run --spawn 0,1 --inputs " + good + " --out " + out, "--spawn '0,1'"},
      {"run --spawn 0,1,abc --inputs " + good + " --out " + out, "--spawn"},
      {"run --spawn 0,1,9e99 --inputs " + good + " --out " + out, "--spawn"},
      {"run --spawn 0,1,0 --inputs /nonexistent.txt --out " + out, "/nonexistent.txt: cannot open input script"},
      {"run --spawn 0,1,0 --inputs " + dir.write("bad1.txt", "10 0 0 -\n5 2 0 -\n") + " --out " + out, "bad1.txt:2: MOVE_X '2'"},
      {"run --spawn 0,1,0 --inputs " + dir.write("bad2.txt", "10 0 0 fly\n") + " --out " + out, "bad2.txt:1: BUTTONS 'fly'"},
      {"run --spawn 0,1,0 --inputs " + dir.write("bad3.txt", "0 0 0 -\n") + " --out " + out, "bad3.txt:1: TICKS '0'"},
      {"run --spawn 0,1,0 --inputs " + dir.write("bad4.txt", "# only a comment\n") + " --out " + out, "no input line"},
      {"run --spawn 0,1,0 --inputs " + good + " --world /nonexistent.obj --out " + out, "/nonexistent.obj: cannot open world file"},
      {"run --spawn 0,1,0 --inputs " + good + " --world " + dir.write("w.obj", "v 0 0 0\nf 1 2 3\n") + " --out " + out, "w.obj:2"},
      {"run --spawn 0,1,0 --inputs " + good + " --settings " + dir.write("s.toml", "gravity = -1\n") + " --out " + out, "gravity"},
      {"run --spawn 0,1,0 --inputs " + good + " --out /nonexistent/dir/t.csv", "cannot write trace file"},
      {"frobnicate", "frobnicate"},
  };
  for (const auto& c : cases) {
    const auto r = run_command(kReplay + " " + c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args << "\n" << r.output;
    EXPECT_NE(r.output.find(c.expect), std::string::npos) << c.args << "\n" << r.output;
  }
}

// `view` and `diff --html` write one self-contained page, say where, and keep diff's last line its
// summary; what they cannot read or write exits 2 naming it.
TEST(ReplayReport, ViewAndDiffWriteAPageAndRefuseWhatTheyCannotRead) {
  TempDir dir;
  const auto walk = dir.write("a.txt", "60 0 -1 -\n30 1 0 jump\n");
  const auto other = dir.write("b.txt", "60 0 -1 -\n30 1 0 -\n");
  ASSERT_EQ(run_command(kReplay + " run --spawn 0,1,0 --inputs " + walk + " --out " + dir.file("a.csv")).exit_code, 0);
  ASSERT_EQ(run_command(kReplay + " run --spawn 0,1,0 --inputs " + other + " --out " + dir.file("b.csv")).exit_code, 0);

  const auto view = run_command(kReplay + " view " + dir.file("a.csv") + " --html " + dir.file("v.html"));
  ASSERT_EQ(view.exit_code, 0) << view.output;
  EXPECT_NE(view.output.find("report: " + dir.file("v.html")), std::string::npos) << view.output;
  const auto diff = run_command(kReplay + " diff " + dir.file("a.csv") + " " + dir.file("b.csv") + " --html " + dir.file("d.html"));
  EXPECT_EQ(diff.exit_code, 1) << "the paths part: " << diff.output;
  EXPECT_NE(diff.output.find("report: " + dir.file("d.html")), std::string::npos) << diff.output;
  EXPECT_EQ(diff.output.rfind("characters=1 diverged=1"), diff.output.rfind('\n', diff.output.size() - 2) + 1)
      << "the summary stays the last line:\n" << diff.output;
  std::ifstream page(dir.file("d.html"));
  const std::string html((std::istreambuf_iterator<char>(page)), std::istreambuf_iterator<char>());
  // The scripts' jump is tick 61's input; b has none: the paths part there.
  EXPECT_NE(html.find("\"id\":0,\"parting_tick\":61,"), std::string::npos);

  const std::vector<BadUse> cases = {
      {"view " + dir.file("a.csv"), "--html"},
      {"view /nonexistent.csv --html " + dir.file("x.html"), "/nonexistent.csv"},
      {"view " + dir.write("junk.csv", "not a trace\n") + " --html " + dir.file("x.html"), "neither a recording"},
      {"view " + dir.file("a.csv") + " --html /nonexistent/dir/r.html", "cannot write report"},
      {"view " + dir.file("a.csv") + " --world /nonexistent.obj --html " + dir.file("x.html"), "/nonexistent.obj"},
      {"diff " + dir.file("a.csv") + " " + dir.file("b.csv") + " --html /nonexistent/dir/r.html", "cannot write report"},
  };
  for (const auto& c : cases) {
    const auto r = run_command(kReplay + " " + c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args << "\n" << r.output;
    EXPECT_NE(r.output.find(c.expect), std::string::npos) << c.args << "\n" << r.output;
  }
}

}  // namespace
}  // namespace foothold::test
