// One version (#40): every program answers --version with "NAME VERSION (protocol P, recording R,
// git DESCRIBE)" and exits 0, and the version is the CMake project's everywhere: the programs, the
// C API's foothold_client_version() and its header's macros, the version library.

#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "foothold/client.h"
#include "proto/codec.h"
#include "replay/recording.h"
#include "shared/simulation_version.h"
#include "support/process.h"
#include "version/version.h"

namespace foothold::test {
namespace {

TEST(Version, EveryProgramSaysItsVersionTheProtocolsTheRecordingsAndTheTreesAndExitsZero) {
  const std::string version = FOOTHOLD_PROJECT_VERSION_FOR_TESTS;
  for (const auto& [name, path] : std::vector<std::pair<std::string, std::string>>{
           {"foothold-server", FOOTHOLD_SERVER_BIN},
           {"foothold-token", FOOTHOLD_TOKEN_BIN},
           {"foothold-bot", FOOTHOLD_BOT_BIN},
           {"foothold-replay", FOOTHOLD_REPLAY_BIN},
#ifdef FOOTHOLD_PLAY_BIN
           {"foothold-play", FOOTHOLD_PLAY_BIN},
#endif
       }) {
    const auto r = run_command(path + " --version");
    EXPECT_EQ(r.exit_code, 0) << name << ": " << r.output;
    const std::regex line("^" + name + " " + std::regex_replace(version, std::regex("\\."), "\\.") + " \\(protocol " +
                          std::to_string(proto::kProtocolVersion) + ", recording " +
                          std::to_string(replay::kRecordingFormat) + ", git [^ )]+\\)\n$");
    EXPECT_TRUE(std::regex_match(r.output, line)) << name << " said: " << r.output;
  }
}

TEST(Version, TheProjectsVersionIsTheCApisAndTheLibrarys) {
  const std::string version = FOOTHOLD_PROJECT_VERSION_FOR_TESTS;
  EXPECT_EQ(std::string(foothold_client_version()), version);
  EXPECT_EQ(std::to_string(FOOTHOLD_CLIENT_VERSION_MAJOR) + "." + std::to_string(FOOTHOLD_CLIENT_VERSION_MINOR) + "." +
                std::to_string(FOOTHOLD_CLIENT_VERSION_PATCH),
            version)
      << "client.h's macros";
  EXPECT_EQ(std::string(foothold::version()), version);
  EXPECT_FALSE(foothold::git_describe().empty());
}

// The changelog's next release names the versions it will carry: the first "Protocol P, recording
// format R, simulation version S" in CHANGELOG.md (the Unreleased section's) is what the code says
// now. It once said recording format 8 a session after the format became 9.
TEST(Version, TheChangelogsNextReleaseNamesTheProtocolRecordingAndSimulationVersionsOfTheCode) {
  std::ifstream in(std::string(FOOTHOLD_SOURCE_DIR) + "/CHANGELOG.md");
  ASSERT_TRUE(in) << "CHANGELOG.md is missing";
  std::stringstream text;
  text << in.rdbuf();
  const std::string changelog = std::regex_replace(text.str(), std::regex("\\s+"), " ");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(changelog, m,
                                std::regex("Protocol ([0-9]+), recording format ([0-9]+), simulation version ([0-9]+)")))
      << "CHANGELOG.md names no versions";
  EXPECT_EQ(m[1].str(), std::to_string(proto::kProtocolVersion)) << "protocol";
  EXPECT_EQ(m[2].str(), std::to_string(replay::kRecordingFormat)) << "recording format";
  EXPECT_EQ(m[3].str(), std::to_string(kSimulationVersion)) << "simulation version";
}

}  // namespace
}  // namespace foothold::test
