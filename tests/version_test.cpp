// One version (#40): every program answers --version with "NAME VERSION (protocol P, recording R,
// git DESCRIBE)" and exits 0, and the version is the CMake project's everywhere: the programs, the
// C API's foothold_client_version() and its header's macros, the version library.

#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <tuple>

#include <gtest/gtest.h>

#include "foothold/client.h"
#include "proto/codec.h"
#include "replay/recording.h"
#include "shared/simulation_version.h"
#include "support/process.h"
#include "version/version.h"

namespace foothold::test {
namespace {

// CHANGELOG.md's text, or empty (with a failure) when it cannot be read.
std::string changelog_text() {
  std::ifstream in(std::string(FOOTHOLD_SOURCE_DIR) + "/CHANGELOG.md");
  if (!in) {
    ADD_FAILURE() << "CHANGELOG.md is missing";
    return {};
  }
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

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

// The changelog names the versions the code carries: the first "Protocol P, recording format R,
// simulation version S" in CHANGELOG.md (the Unreleased section's once a change bumps one, the newest
// release's until then) is what the code says now. It once said recording format 8 a session after
// the format became 9.
TEST(Version, TheChangelogNamesTheProtocolRecordingAndSimulationVersionsOfTheCode) {
  const std::string changelog = std::regex_replace(changelog_text(), std::regex("\\s+"), " ");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(changelog, m,
                                std::regex("Protocol ([0-9]+), recording format ([0-9]+), simulation version ([0-9]+)")))
      << "CHANGELOG.md names no versions";
  EXPECT_EQ(m[1].str(), std::to_string(proto::kProtocolVersion)) << "protocol";
  EXPECT_EQ(m[2].str(), std::to_string(replay::kRecordingFormat)) << "recording format";
  EXPECT_EQ(m[3].str(), std::to_string(kSimulationVersion)) << "simulation version";
}

// A build from a release tag (git describe "vX.Y.Z", or "vX.Y.Z-N-gHASH" for commits after it) is
// of that version, and the changelog has the release's section: a tag put on the wrong commit, or a
// version bumped without its tag, shows here. (A tree with no tag in its history has nothing to check.)
TEST(Version, AReleaseTagNamesTheProjectsVersionAndTheChangelogsSection) {
  const std::string version = FOOTHOLD_PROJECT_VERSION_FOR_TESTS;
  const std::string describe(foothold::git_describe());
  std::smatch m;
  if (!std::regex_match(describe, m, std::regex("v([0-9]+\\.[0-9]+\\.[0-9]+)(-[0-9]+-g[0-9a-f]+)?(-dirty)?")))
    GTEST_SKIP() << "git describe says '" << describe << "': no release tag in this tree's history";
  if (m[2].matched) {
    // Commits after a release: the project's version is that release's or a later one.
    const auto parts = [](const std::string& v) {
      std::smatch p;
      std::regex_match(v, p, std::regex("([0-9]+)\\.([0-9]+)\\.([0-9]+)"));
      return std::tuple(std::stoi(p[1].str()), std::stoi(p[2].str()), std::stoi(p[3].str()));
    };
    EXPECT_GE(parts(version), parts(m[1].str())) << "the project's version is older than the tag " << describe;
  } else {
    EXPECT_EQ(m[1].str(), version) << "the tag " << describe << " is not the project's version";
  }
  const std::regex section("\n## \\[" + std::regex_replace(m[1].str(), std::regex("\\."), "\\.") +
                           "\\] - [0-9]{4}-[0-9]{2}-[0-9]{2}\n");
  EXPECT_TRUE(std::regex_search(changelog_text(), section)) << "CHANGELOG.md has no dated section for " << m[1].str();
}

}  // namespace
}  // namespace foothold::test
