// End to end on loopback: the real foothold-server and foothold-bot processes.

#include <sys/stat.h>

#include <csignal>
#include <fstream>
#include <memory>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>

#include "support/local_server.h"
#include "support/process.h"
#include "support/test_seed.h"

namespace foothold::test {
namespace {

const std::string kServer = FOOTHOLD_SERVER_BIN;
const std::string kBot = FOOTHOLD_BOT_BIN;
const std::string kReplay = FOOTHOLD_REPLAY_BIN;
const std::string kToken = FOOTHOLD_TOKEN_BIN;
const std::string kFlood = FOOTHOLD_FLOOD_BIN;

// The key=value pairs of the last line of the output.
std::map<std::string, std::string> summary(const std::string& output) {
  std::map<std::string, std::string> kv;
  auto end = output.find_last_not_of('\n');
  if (end == std::string::npos) return kv;
  const auto start = output.rfind('\n', end);
  std::istringstream line(output.substr(start == std::string::npos ? 0 : start + 1, end + 1));
  std::string pair;
  while (line >> pair) {
    const auto eq = pair.find('=');
    if (eq != std::string::npos) kv[pair.substr(0, eq)] = pair.substr(eq + 1);
  }
  return kv;
}

std::unique_ptr<Spawned> start_server(const TempDir& dir, const std::string& name, std::vector<std::string> args,
                                      std::string& address, const std::string& bind = "127.0.0.1") {
  return test::start_server(kServer, dir, name, std::move(args), address, bind);
}

bool wait_ready(const std::string& address, const std::string& key_file = "") {
  return test::wait_ready(kBot, address, key_file);
}

// Runs `bots` bots against `address` with the flags `args` (and the test's seed `seed`): they must
// all connect, and none be corrected without a cause. Returns the summary's pairs and the output.
struct BotRun {
  std::map<std::string, std::string> kv;
  std::string output;
};
BotRun bots_play(const std::string& address, int bots, const std::string& args, int seed) {
  const auto r = run_command(kBot + " --server " + address + " --bots " + std::to_string(bots) + " " + args + " --seed " +
                             std::to_string(test_seed(seed)));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  BotRun run{summary(r.output), r.output};
  EXPECT_EQ(run.kv["connected"], std::to_string(bots)) << r.output;
  EXPECT_EQ(run.kv["unexplained"], "0") << r.output;
  return run;
}

TEST(Loopback, SixteenBotsConnectAndNeverNeedACorrection) {
  TempDir dir;
  std::string address;
  auto server_process = start_server(dir, "server", {"--stats-interval", "1"}, address);
  Spawned& server = *server_process;
  ASSERT_FALSE(address.empty()) << server.output();
  ASSERT_TRUE(wait_ready(address)) << server.output();
  const auto bots = run_command(kBot + " --server " + address + " --bots 16 --duration 4 --pattern wander --seed " + std::to_string(test_seed(7)) + " --trace-dir " +
                                dir.file("traces"));
  EXPECT_EQ(bots.exit_code, 0) << bots.output;
  const auto kv = summary(bots.output);
  EXPECT_EQ(kv.at("bots"), "16") << bots.output;
  EXPECT_EQ(kv.at("connected"), "16") << bots.output;
  // Real UDP under a wall clock: an input can arrive late (an explained correction); a correction
  // with the same inputs (unexplained) never happens.
  EXPECT_EQ(kv.at("unexplained"), "0") << bots.output;
  // Thousands of snapshots compared, bit for bit.
  EXPECT_GT(std::stoi(kv.at("compared")), 16 * 150) << bots.output;
  for (const char* key : {"rtt_ms_p50", "bytes_in_per_s", "bytes_out_per_s"}) EXPECT_TRUE(kv.count(key)) << key;

  server.signal(SIGTERM);
  EXPECT_EQ(server.wait(5), 0) << "a clean stop within 5 s\n" << server.output();
  const std::string log = server.output();
  EXPECT_NE(log.find("stats: clients=16"), std::string::npos) << log;
  EXPECT_NE(log.find("stopped at tick"), std::string::npos) << log;
}

// A server on loopback recording to DIR/server.rec, stepping on two threads.
std::unique_ptr<Spawned> start_recording_server(TempDir& dir, std::string& address) {
  return start_server(dir, "server", {"--record", dir.file("server.rec"), "--threads", "2"}, address);
}

// The server told its address and answers a probe; says why not otherwise.
::testing::AssertionResult ready(Spawned& server, const std::string& address) {
  if (address.empty()) return ::testing::AssertionFailure() << "no address: " << server.output();
  if (!wait_ready(address)) return ::testing::AssertionFailure() << "no answer at " << address << ": " << server.output();
  return ::testing::AssertionSuccess();
}

// Movement.md §15, §16: sixteen bots ride the arena's movers and crowd on them. Corrections come only
// from other characters' moves; the recording re-simulates bit for bit; the bots did ride.
TEST(Loopback, SixteenBotsRideAndCrowdTheMoversWithNoUnexplainedCorrection) {
  TempDir dir;
  std::string address;
  auto server_process = start_recording_server(dir, address);
  Spawned& server = *server_process;
  ASSERT_TRUE(ready(server, address));
  // 14 s: the elevator is the farthest mover from where the arena spawns bots, past row C's walls.
  const BotRun bots = bots_play(address, 16, "--duration 14 --pattern ride", 5);
  EXPECT_GT(std::stoi(bots.kv.at("interactions")), 0) << "crowded bots meet: " << bots.output;
  server.signal(SIGTERM);
  ASSERT_EQ(server.wait(5), 0) << server.output();
  const auto verify = run_command(kReplay + " verify " + dir.file("server.rec"));
  EXPECT_EQ(verify.exit_code, 0) << verify.output;
  const auto run = run_command(kReplay + " run --replay " + dir.file("server.rec") + " --out " + dir.file("server.csv"));
  ASSERT_EQ(run.exit_code, 0) << run.output;
  // Riders: rows whose platform column (the 18th) is not 0, for every mover.
  std::ifstream trace(dir.file("server.csv"));
  std::string line;
  std::set<std::string> platforms;
  std::getline(trace, line);
  while (std::getline(trace, line)) {
    std::size_t pos = 0;
    for (int col = 0; col < 17 && pos != std::string::npos; ++col) pos = line.find(',', pos) + 1;
    const std::string platform = line.substr(pos, line.find(',', pos) - pos);
    if (platform != "0") platforms.insert(platform);
  }
  EXPECT_EQ(platforms, (std::set<std::string>{"1", "2", "3"})) << "every mover carried someone";
}

TEST(Loopback, RecordedSessionVerifiesAndEveryBotTraceMatchesTheServerBitForBit) {
  TempDir dir;
  std::string address;
  // Two threads for the steps and snapshots: re-simulation (single-threaded) and the bots must agree.
  auto server_process = start_recording_server(dir, address);
  Spawned& server = *server_process;
  ASSERT_TRUE(ready(server, address));
  const auto bots = run_command(kBot + " --server " + address + " --bots 6 --duration 3 --pattern wander --seed " + std::to_string(test_seed(3)) + " --trace-dir " +
                                dir.file("traces") + " --record " + dir.file("recs"));
  ASSERT_EQ(bots.exit_code, 0) << bots.output;
  server.signal(SIGTERM);
  ASSERT_EQ(server.wait(5), 0) << server.output();
  EXPECT_NE(server.output().find("2 thread(s)"), std::string::npos) << server.output();

  const auto verify = run_command(kReplay + " verify " + dir.file("server.rec"));
  EXPECT_EQ(verify.exit_code, 0) << verify.output;
  EXPECT_NE(verify.output.find("OK: every checksum matches"), std::string::npos) << verify.output;
  // The summary line scripts read: the last one.
  EXPECT_NE(verify.output.find("\nverified=1 ticks="), std::string::npos) << verify.output;
  EXPECT_NE(verify.output.find(" characters=6 "), std::string::npos) << verify.output;
  EXPECT_EQ(verify.output.substr(verify.output.rfind('\n', verify.output.size() - 2) + 1).rfind("verified=1 ", 0), 0u)
      << verify.output;
  const auto info = run_command(kReplay + " info " + dir.file("server.rec"));
  EXPECT_NE(info.output.find("ends: cleanly"), std::string::npos) << info.output;
  EXPECT_NE(info.output.find("characters: 6"), std::string::npos) << info.output;
  const auto run = run_command(kReplay + " run --replay " + dir.file("server.rec") + " --out " + dir.file("server.csv"));
  ASSERT_EQ(run.exit_code, 0) << run.output;
  int diffs = 0;
  for (int id = 1; id <= 6; ++id) {
    const std::string bot = dir.file("traces/bot-" + std::to_string(id) + ".csv");
    const auto d = run_command(kReplay + " diff " + dir.file("server.csv") + " " + bot + " --inputs-a " + dir.file("server.rec") +
                               " --inputs-b " + dir.file("recs/bot-" + std::to_string(id) + ".rec"));
    // Bit for bit, but where another character's moves reached this one (movement.md §16): a client
    // only guesses those, and the diff must say so. Nothing may be an input or determinism divergence.
    const bool exact = d.output.find("diverged=0 ") != std::string::npos;
    const bool only_interaction = d.output.find("diverged=1 ") != std::string::npos &&
                                  d.output.find("by_interaction=1") != std::string::npos;
    EXPECT_TRUE(exact || only_interaction) << d.output;
    EXPECT_EQ(d.exit_code, exact ? 0 : 1) << d.output;
    EXPECT_EQ(d.output.find("determinism"), std::string::npos) << d.output;
    ++diffs;
  }
  EXPECT_EQ(diffs, 6);
}

TEST(Loopback, Ipv6LoopbackWorksToo) {
  TempDir dir;
  std::string address;
  auto server_process = start_server(dir, "server", {}, address, "::1");
  Spawned& server = *server_process;
  ASSERT_EQ(address.rfind("[::1]:", 0), 0u) << address << "\n" << server.output();
  ASSERT_TRUE(wait_ready(address)) << server.output();
  const auto bots = run_command(kBot + " --server " + address + " --bots 2 --duration 1.5 --pattern circle");
  EXPECT_EQ(bots.exit_code, 0) << bots.output;
  EXPECT_EQ(summary(bots.output).at("connected"), "2");
  EXPECT_EQ(summary(bots.output).at("unexplained"), "0");
  server.signal(SIGINT);
  EXPECT_EQ(server.wait(5), 0) << server.output();
}

TEST(Loopback, BotFailsClearlyWhenNoServerAnswers) {
  const int port = free_udp_port();
  const auto bots = run_command(kBot + " --server 127.0.0.1:" + std::to_string(port) + " --bots 2 --duration 6 --connect-timeout 1");
  EXPECT_EQ(bots.exit_code, 1) << bots.output;
  EXPECT_NE(bots.output.find("could not connect"), std::string::npos) << bots.output;
  EXPECT_EQ(summary(bots.output).at("connected"), "0");
  const auto probe = run_command(kBot + " --probe 127.0.0.1:" + std::to_string(port));
  EXPECT_EQ(probe.exit_code, 1);
  EXPECT_NE(probe.output.find("no answer"), std::string::npos) << probe.output;
}

TEST(Loopback, WithAKeyFileOnlyTokensSealedWithItGetIn) {
  TempDir dir;
  ASSERT_EQ(run_command(kToken + " keygen --out " + dir.file("server.key")).exit_code, 0);
  ASSERT_EQ(run_command(kToken + " keygen --out " + dir.file("other.key")).exit_code, 0);
  std::string address;
  auto server_process = start_server(dir, "server", {"--key-file", dir.file("server.key")}, address);
  Spawned& server = *server_process;
  ASSERT_FALSE(address.empty()) << server.output();
  ASSERT_TRUE(wait_ready(address, dir.file("server.key"))) << server.output();
  const auto bots = run_command(kBot + " --server " + address + " --bots 3 --duration 1.5 --key-file " + dir.file("server.key"));
  EXPECT_EQ(bots.exit_code, 0) << bots.output;
  EXPECT_EQ(summary(bots.output).at("connected"), "3") << bots.output;
  // Tokens sealed with another key, or with the public development key: no answer at all.
  for (const std::string& key : {" --key-file " + dir.file("other.key"), std::string()}) {
    const auto refused = run_command(kBot + " --server " + address + " --bots 1 --duration 3 --connect-timeout 1" + key);
    EXPECT_EQ(refused.exit_code, 1) << refused.output;
    EXPECT_EQ(summary(refused.output).at("connected"), "0") << refused.output;
    EXPECT_NE(refused.output.find("sealed with another key"), std::string::npos) << refused.output;
    const auto probe = run_command(kBot + " --probe " + address + key);
    EXPECT_EQ(probe.exit_code, 1) << probe.output;
  }
  server.signal(SIGTERM);
  EXPECT_EQ(server.wait(5), 0) << server.output();
  EXPECT_NE(server.output().find("dropped_invalid="), std::string::npos);
}

// foothold-bot --one-socket: every bot on one socket, each from its own loopback address. The server
// must see sixteen clients (had they shared an address, it would see one), and every bot play as on
// a socket of its own: connected, predicting, never corrected without a cause; through the network
// conditioner too. A server the bots cannot reach that way is bad usage.
TEST(Loopback, BotsOnOneSocketEachPlayFromAnAddressOfTheirOwn) {
  TempDir dir;
  std::string address;
  auto server_process = start_server(dir, "server", {"--stats-interval", "1"}, address);
  Spawned& server = *server_process;
  ASSERT_TRUE(wait_ready(address)) << server.output();
  const BotRun bots = bots_play(address, 16, "--duration 3 --one-socket", 7);
  EXPECT_GT(std::stoi(bots.kv.at("compared")), 16 * 60) << bots.output;
  bots_play(address, 4, "--duration 3 --one-socket --latency 20 --jitter 5 --loss 0.05", 8);
  server.signal(SIGTERM);
  ASSERT_EQ(server.wait(5), 0) << server.output();
  EXPECT_NE(server.output().find("stats: clients=16 "), std::string::npos) << server.output();

  const auto v6 = run_command(kBot + " --server [::1]:9 --one-socket");
  EXPECT_EQ(v6.exit_code, 2) << v6.output;
  EXPECT_NE(v6.output.find("--one-socket needs an IPv4 loopback server"), std::string::npos) << v6.output;
  const auto remote = run_command(kBot + " --server 192.0.2.1:9 --one-socket");
  EXPECT_EQ(remote.exit_code, 2) << remote.output;
  EXPECT_NE(remote.output.find("not 192.0.2.1"), std::string::npos) << remote.output;
}

TEST(Loopback, WithoutAKeyFileTheServerServesLoopbackOnly) {
  const auto r = run_command(kServer + " --bind 0.0.0.0 --port 0");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("without key_file"), std::string::npos) << r.output;
  TempDir dir;
  ASSERT_EQ(run_command(kToken + " keygen --out " + dir.file("k")).exit_code, 0);
  // With a key, a wildcard bind must say which address tokens name.
  const auto wildcard = run_command(kServer + " --bind 0.0.0.0 --port 0 --key-file " + dir.file("k"));
  EXPECT_EQ(wildcard.exit_code, 2) << wildcard.output;
  EXPECT_NE(wildcard.output.find("public_address"), std::string::npos) << wildcard.output;
  for (const std::string& args : {std::string(" --key-file /nonexistent.key"), " --key-file " + dir.write("bad.key", "zz\n"),
                                  " --key-file " + dir.file("k") + " --public-address nowhere",
                                  " --key-file " + dir.file("k") + " --public-address 10.0.0.1:0"}) {
    const auto bad = run_command(kServer + " --bind 127.0.0.1 --port 0" + args);
    EXPECT_EQ(bad.exit_code, 2) << args << "\n" << bad.output;
  }
}

TEST(Loopback, AnExposedKeyFileIsAWarningAndWithStrictPermissionsARefusal) {
  TempDir dir;
  ASSERT_EQ(run_command(kToken + " keygen --out " + dir.file("server.key")).exit_code, 0);
  ASSERT_EQ(chmod(dir.file("server.key").c_str(), 0644), 0);
  const auto strict =
      run_command(kServer + " --bind 127.0.0.1 --port 0 --strict-key-permissions --key-file " + dir.file("server.key"));
  EXPECT_EQ(strict.exit_code, 2) << strict.output;
  EXPECT_NE(strict.output.find("mode 0644: readable by group and others"), std::string::npos) << strict.output;
  // Without the flag it starts, and says so.
  std::string address;
  auto server = start_server(dir, "server", {"--key-file", dir.file("server.key")}, address);
  ASSERT_FALSE(address.empty()) << server->output();
  server->signal(SIGTERM);
  EXPECT_EQ(server->wait(5), 0) << server->output();
  EXPECT_NE(server->output().find("is exposed (mode 0644"), std::string::npos) << server->output();
  // Owner-only (as keygen writes it): no warning, and strict starts.
  ASSERT_EQ(chmod(dir.file("server.key").c_str(), 0600), 0);
  auto quiet = start_server(dir, "quiet", {"--strict-key-permissions", "--key-file", dir.file("server.key")}, address);
  ASSERT_FALSE(address.empty()) << quiet->output();
  quiet->signal(SIGTERM);
  EXPECT_EQ(quiet->wait(5), 0) << quiet->output();
  EXPECT_EQ(quiet->output().find("exposed"), std::string::npos) << quiet->output();
}

TEST(Loopback, AClientJoinsAndTheProbeAnswersUnderASpoofedHandshakeFlood) {
  // 20,000 spoofed connect requests a second, evenly spread, from random loopback addresses: half
  // the time with a forged token, half with a real token replayed.
  TempDir dir;
  ASSERT_EQ(run_command(kToken + " keygen --out " + dir.file("server.key")).exit_code, 0);
  std::string address;
  auto server_process = start_server(dir, "server", {"--key-file", dir.file("server.key"), "--stats-interval", "1"}, address);
  Spawned& server = *server_process;
  ASSERT_FALSE(address.empty()) << server.output();
  ASSERT_TRUE(wait_ready(address, dir.file("server.key"))) << server.output();
  for (const std::string kind : {"forged", "replayed"}) {
    Spawned flood({kFlood, "--server", address, "--spoof-rate", "20000", "--spoof-kind", kind, "--duration", "6",
                   "--key-file", dir.file("server.key")},
                  dir.file("flood-" + kind + ".log"));
    std::this_thread::sleep_for(std::chrono::seconds(1));
    const auto bots = run_command(kBot + " --server " + address + " --bots 2 --duration 2 --connect-timeout 2 --key-file " +
                                  dir.file("server.key"));
    EXPECT_EQ(bots.exit_code, 0) << kind << "\n" << bots.output;
    EXPECT_EQ(summary(bots.output).at("connected"), "2") << kind << "\n" << bots.output;
    int answered = 0;
    for (int i = 0; i < 5; ++i)
      answered += run_command(kBot + " --probe " + address + " --key-file " + dir.file("server.key")).exit_code == 0;
    EXPECT_EQ(answered, 5) << kind;
    EXPECT_EQ(flood.wait(15), 0) << flood.output();
    const auto kv = summary(flood.output());
    EXPECT_GT(std::stod(kv.at("spoofed_per_s")), 15000) << flood.output();
  }
  server.signal(SIGTERM);
  EXPECT_EQ(server.wait(5), 0);
  // The server did see the flood (dropped forgeries, limited replays).
  const std::string log = server.output();
  EXPECT_NE(log.find("dropped_invalid="), std::string::npos);
}

TEST(Loopback, BadUsageExitsWithCodeTwo) {
  for (const std::string& args : std::vector<std::string>{"", "--server nowhere", "--server no-such-host.invalid:7777", "--server 127.0.0.1:99999", "--server 127.0.0.1:7 --bots 0",
                                 "--server 127.0.0.1:7 --pattern dance", "--server 127.0.0.1:7 --duration -1",
                                 "--server 127.0.0.1:7 --settings /nonexistent.toml", "--probe x",
                                 "--server 127.0.0.1:7 --key-file /nonexistent.key", "--server 127.0.0.1:7 --frame-rate -1",
                                 "--server 127.0.0.1:7 --frame-rate 5000", "--server 127.0.0.1:7 --smoothing 3"}) {
    const auto r = run_command(kBot + " " + args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.output;
    EXPECT_NE(r.output.find("foothold-bot"), std::string::npos) << args << "\n" << r.output;
  }
  TempDir dir;
  for (const std::string& args : std::vector<std::string>{"--port -1", "--port 70000", "--bind nowhere", "--world /nonexistent.obj",
                                 "--log-level loud", "--tick-rate 1000", "--threads -1", "--threads 65", "--config /nonexistent.toml",
                                 "--rewind-window 1001", "--rewind-window -1",
                                 "--config " + dir.write("bad.toml", "port = 7777\nmax_players = 3\n")}) {
    const auto r = run_command(kServer + " " + args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.output;
  }
  const auto unknown = run_command(kServer + " --config " + dir.file("bad.toml"));
  EXPECT_NE(unknown.output.find("bad.toml:2: unknown key 'max_players'"), std::string::npos) << unknown.output;
}

// An unknown game, by flag, file or environment: exit 2, naming it and listing the known ones.
TEST(Loopback, AnUnknownGameIsRefusedWithTheKnownOnesListed) {
  TempDir dir;
  for (const std::string& cmd : {kServer + " --game chess", kServer + " --config " + dir.write("g.toml", "game = \"chess\"\n"),
                                 "FOOTHOLD_GAME=chess " + kServer}) {
    const auto r = run_command(cmd);
    EXPECT_EQ(r.exit_code, 2) << cmd << "\n" << r.output;
    EXPECT_NE(r.output.find("game = 'chess' is not a known game: none, echo, tag, hitscan"), std::string::npos) << cmd << "\n" << r.output;
  }
  const auto help = run_command(kServer + " --help");
  EXPECT_NE(help.output.find("none, echo, tag, hitscan"), std::string::npos) << help.output;
}

TEST(Loopback, PortInUseIsAClearErrorNotACrash) {
  TempDir dir;
  std::string address;
  auto first_process = start_server(dir, "a", {}, address);
  Spawned& first = *first_process;
  ASSERT_FALSE(address.empty()) << first.output();
  ASSERT_TRUE(wait_ready(address));
  const std::string port = address.substr(address.rfind(':') + 1);
  const auto second = run_command(kServer + " --bind 127.0.0.1 --port " + port);
  EXPECT_EQ(second.exit_code, 1) << second.output;
  EXPECT_NE(second.output.find("cannot listen"), std::string::npos) << second.output;
  first.signal(SIGTERM);
  EXPECT_EQ(first.wait(5), 0);
}

}  // namespace
}  // namespace foothold::test
