// foothold-token, run as a backend operator would: keys, tokens, inspection, and bad usage.

#include <sys/stat.h>

#include <array>
#include <chrono>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "proto/token.h"
#include "support/process.h"

namespace foothold::test {
namespace {

const std::string kTool = FOOTHOLD_TOKEN_BIN;

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

uint64_t unix_now() {
  return uint64_t(std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count());
}

TEST(TokenTool, KeygenWritesAPrivateFileAndNeverReplacesOne) {
  TempDir dir;
  const auto r = run_command(kTool + " keygen --out " + dir.file("server.key"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  struct stat st {};
  ASSERT_EQ(::stat(dir.file("server.key").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_EQ(st.st_size, 65);
  const std::string first = slurp(dir.file("server.key"));
  const auto again = run_command(kTool + " keygen --out " + dir.file("server.key"));
  EXPECT_EQ(again.exit_code, 1) << again.output;
  EXPECT_NE(again.output.find("already exists"), std::string::npos) << again.output;
  EXPECT_EQ(slurp(dir.file("server.key")), first);
}

TEST(TokenTool, IssuedTokensOpenWithTheKeyAndNameTheServers) {
  TempDir dir;
  ASSERT_EQ(run_command(kTool + " keygen --out " + dir.file("k")).exit_code, 0);
  const auto r = run_command(kTool + " issue --key-file " + dir.file("k") +
                             " --server 10.1.2.3:7777 --server [::1]:7000 --client-id 123456789012 --expires 90 --out " +
                             dir.file("t"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("client 123456789012"), std::string::npos) << r.output;
  proto::ConnectToken token;
  std::string error;
  ASSERT_TRUE(proto::read_token_file(dir.file("t"), token, error)) << error;
  proto::Key key;
  ASSERT_TRUE(proto::read_key_file(dir.file("k"), key, error)) << error;
  proto::TokenContents c;
  ASSERT_EQ(proto::open_token(key, token.sealed, unix_now(), c), proto::TokenError::kNone);
  EXPECT_EQ(c.client_id, 123456789012u);
  ASSERT_EQ(c.servers.count, 2);
  EXPECT_FALSE(c.servers.items[0].v6);
  EXPECT_EQ(c.servers.items[0].ip[0], 10);
  EXPECT_EQ(c.servers.items[0].ip[3], 3);
  EXPECT_EQ(c.servers.items[0].port, 7777);
  EXPECT_TRUE(c.servers.items[1].v6);
  EXPECT_EQ(c.servers.items[1].port, 7000);
  std::array<uint8_t, 16> loopback6{};
  loopback6[15] = 1;
  EXPECT_EQ(c.servers.items[1].ip, loopback6);
  EXPECT_EQ(c.client_to_server, token.client_to_server);
  EXPECT_EQ(c.server_to_client, token.server_to_client);
  EXPECT_EQ(token.expires_unix - token.created_unix, 90u);
  EXPECT_NEAR(double(token.expires_unix), double(unix_now() + 90), 5.0);
  struct stat st {};
  ASSERT_EQ(::stat(dir.file("t").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u) << "it holds session keys";
  // Standard output, when redirected, gets the same 796 bytes.
  ASSERT_EQ(run_command(kTool + " issue --key-file " + dir.file("k") + " --server 10.1.2.3:7777 --client-id 1 > " +
                        dir.file("stdout.tok")).exit_code, 0);
  ASSERT_TRUE(proto::read_token_file(dir.file("stdout.tok"), token, error)) << error;
  EXPECT_EQ(token.client_id, 1u);
  EXPECT_EQ(token.expires_unix - token.created_unix, 60u) << "the default lifetime";
  EXPECT_EQ(proto::open_token(key, token.sealed, unix_now(), c), proto::TokenError::kNone);
}

TEST(TokenTool, UserDataGoesIntoTheSealedPartAndInspectShowsIt) {
  TempDir dir;
  ASSERT_EQ(run_command(kTool + " keygen --out " + dir.file("k")).exit_code, 0);
  const std::string issue = kTool + " issue --key-file " + dir.file("k") + " --server 10.1.2.3:7777 --client-id 5";
  auto r = run_command(issue + " --user-data 'team=red' --out " + dir.file("t"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  proto::ConnectToken token;
  std::string error;
  ASSERT_TRUE(proto::read_token_file(dir.file("t"), token, error)) << error;
  proto::Key key;
  ASSERT_TRUE(proto::read_key_file(dir.file("k"), key, error)) << error;
  proto::TokenContents c;
  ASSERT_EQ(proto::open_token(key, token.sealed, unix_now(), c), proto::TokenError::kNone);
  EXPECT_EQ(std::string(c.user_data_view().begin(), c.user_data_view().end()), "team=red");
  const auto shown = run_command(kTool + " inspect --token " + dir.file("t") + " --key-file " + dir.file("k"));
  EXPECT_EQ(shown.exit_code, 0) << shown.output;
  EXPECT_NE(shown.output.find("user_data_bytes=8 user_data_hex=7465616d3d726564"), std::string::npos) << shown.output;
  // From a file: 256 bytes are fine, 257 are refused (exit 2), as are both flags at once.
  dir.write("256", std::string(256, 'x'));
  dir.write("257", std::string(257, 'x'));
  EXPECT_EQ(run_command(issue + " --user-data-file " + dir.file("256") + " --out " + dir.file("t2")).exit_code, 0);
  r = run_command(issue + " --user-data-file " + dir.file("257") + " --out " + dir.file("t3"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("is over 256 bytes: a token carries at most 256"), std::string::npos) << r.output;
  r = run_command(issue + " --user-data " + std::string(300, 'y') + " --out " + dir.file("t3"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("--user-data is 300 bytes"), std::string::npos) << r.output;
  r = run_command(issue + " --user-data a --user-data-file " + dir.file("256") + " --out " + dir.file("t3"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("not both"), std::string::npos) << r.output;
}

TEST(TokenTool, NotBeforeDelaysTheTokenAndInspectSaysWhen) {
  TempDir dir;
  ASSERT_EQ(run_command(kTool + " keygen --out " + dir.file("k")).exit_code, 0);
  const auto r = run_command(kTool + " issue --key-file " + dir.file("k") +
                             " --server 10.1.2.3:7777 --client-id 5 --expires 90 --not-before 600 --out " + dir.file("t"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  proto::ConnectToken token;
  std::string error;
  ASSERT_TRUE(proto::read_token_file(dir.file("t"), token, error)) << error;
  EXPECT_EQ(token.not_before_unix - token.created_unix, 600u);
  EXPECT_EQ(token.expires_unix - token.not_before_unix, 90u);
  proto::Key key;
  ASSERT_TRUE(proto::read_key_file(dir.file("k"), key, error)) << error;
  proto::TokenContents c;
  EXPECT_EQ(proto::open_token(key, token.sealed, proto::TokenTimeRules{unix_now(), 86400, 30}, c),
            proto::TokenError::kNotYetValid);
  EXPECT_EQ(proto::open_token(key, token.sealed, proto::TokenTimeRules{token.not_before_unix, 86400, 30}, c),
            proto::TokenError::kNone);
  const auto shown = run_command(kTool + " inspect --token " + dir.file("t") + " --key-file " + dir.file("k"));
  EXPECT_EQ(shown.exit_code, 0) << shown.output;
  EXPECT_NE(shown.output.find("not_before=" + std::to_string(token.not_before_unix)), std::string::npos) << shown.output;
  EXPECT_NE(shown.output.find("valid_in_s="), std::string::npos) << shown.output;
}

TEST(TokenTool, NotBeforeTakesZeroToADay) {
  TempDir dir;
  ASSERT_EQ(run_command(kTool + " keygen --out " + dir.file("k")).exit_code, 0);
  for (const uint64_t delay : {uint64_t(0), uint64_t(86400)}) {
    // Appended, not "t" + std::to_string(): GCC 12's -Wrestrict misjudges that in Release.
    std::string name = "t";
    name.append(std::to_string(delay));
    const std::string file = dir.file(name);
    const auto r = run_command(kTool + " issue --key-file " + dir.file("k") + " --server 10.1.2.3:7777 --client-id 5 --not-before " +
                               std::to_string(delay) + " --out " + file);
    ASSERT_EQ(r.exit_code, 0) << delay << "\n" << r.output;
    proto::ConnectToken token;
    std::string error;
    ASSERT_TRUE(proto::read_token_file(file, token, error)) << error;
    EXPECT_EQ(token.not_before_unix - token.created_unix, delay);
    EXPECT_EQ(token.expires_unix - token.not_before_unix, 60u) << "the default lifetime, from the not-before time";
    EXPECT_NE(r.output.find("from " + std::to_string(token.not_before_unix) + " until " + std::to_string(token.expires_unix)),
              std::string::npos)
        << r.output;
    // inspect judges the seal as of creation, so a token not yet valid still checks out.
    const auto shown = run_command(kTool + " inspect --token " + file + " --key-file " + dir.file("k"));
    EXPECT_EQ(shown.exit_code, 0) << shown.output;
    EXPECT_NE(shown.output.find(delay ? "valid_in_s=" : "valid_for_s="), std::string::npos) << shown.output;
  }
}

TEST(TokenTool, InspectNamesATokenFileOfTheFirstFormat) {
  TempDir dir;
  // The size of a first-format file (522 bytes), with its magic: what an older foothold-token wrote.
  const auto r = run_command(kTool + " inspect --token " + dir.write("old", "FHC1" + std::string(518, '\0')));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("FHC1"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("mint a new one"), std::string::npos) << r.output;
}

TEST(TokenTool, InspectNeverPrintsTheKeys) {
  TempDir dir;
  ASSERT_EQ(run_command(kTool + " keygen --out " + dir.file("k")).exit_code, 0);
  ASSERT_EQ(run_command(kTool + " issue --key-file " + dir.file("k") + " --server [2001:db8::7]:7777 --client-id 9 --out " +
                        dir.file("t")).exit_code, 0);
  proto::ConnectToken token;
  std::string error;
  ASSERT_TRUE(proto::read_token_file(dir.file("t"), token, error)) << error;
  const auto r = run_command(kTool + " inspect --token " + dir.file("t") + " --key-file " + dir.file("k"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("[2001:db8::7]:7777"), std::string::npos) << r.output;
  const auto hex = [](const proto::Key& k) {
    static const char* digits = "0123456789abcdef";
    std::string h;
    for (uint8_t b : k) h += {digits[b >> 4], digits[b & 15]};
    return h;
  };
  // Eight bytes of a key in hex would already be too many.
  EXPECT_EQ(r.output.find(hex(token.client_to_server).substr(0, 16)), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find(hex(token.server_to_client).substr(0, 16)), std::string::npos) << r.output;
  std::string private_key = slurp(dir.file("k"));
  EXPECT_EQ(r.output.find(private_key.substr(0, 16)), std::string::npos) << r.output;
}

TEST(TokenTool, InspectShowsTheClearPartAndChecksTheSeal) {
  TempDir dir;
  ASSERT_EQ(run_command(kTool + " keygen --out " + dir.file("k")).exit_code, 0);
  ASSERT_EQ(run_command(kTool + " keygen --out " + dir.file("other")).exit_code, 0);
  ASSERT_EQ(run_command(kTool + " issue --key-file " + dir.file("k") + " --server 127.0.0.1:7777 --client-id 42 --out " +
                        dir.file("t")).exit_code, 0);
  const auto plain = run_command(kTool + " inspect --token " + dir.file("t"));
  EXPECT_EQ(plain.exit_code, 0) << plain.output;
  EXPECT_NE(plain.output.find("client_id=42"), std::string::npos) << plain.output;
  EXPECT_NE(plain.output.find("127.0.0.1:7777"), std::string::npos) << plain.output;
  const auto checked = run_command(kTool + " inspect --token " + dir.file("t") + " --key-file " + dir.file("k"));
  EXPECT_EQ(checked.exit_code, 0) << checked.output;
  EXPECT_NE(checked.output.find("opens with the key"), std::string::npos) << checked.output;
  const auto wrong = run_command(kTool + " inspect --token " + dir.file("t") + " --key-file " + dir.file("other"));
  EXPECT_EQ(wrong.exit_code, 1) << wrong.output;
  EXPECT_NE(wrong.output.find("bad_seal"), std::string::npos) << wrong.output;
  const auto garbage = run_command(kTool + " inspect --token " + dir.write("g", "not a token"));
  EXPECT_EQ(garbage.exit_code, 1) << garbage.output;
  EXPECT_NE(garbage.output.find("bytes, not 796"), std::string::npos) << garbage.output;
}

TEST(TokenTool, BadUsageExitsWithCodeTwoAndNamesTheProblem) {
  TempDir dir;
  ASSERT_EQ(run_command(kTool + " keygen --out " + dir.file("k")).exit_code, 0);
  const std::string k = " --key-file " + dir.file("k");
  const std::string out = " --out " + dir.file("t");
  struct Case {
    std::string args;
    std::string says;
  };
  std::string nine;
  for (int i = 0; i < 9; ++i) nine += " --server 10.0.0." + std::to_string(i + 1) + ":7777";
  for (const Case& c : std::vector<Case>{
           {"", "subcommand"},
           {"issue --server 10.0.0.1:7777 --client-id 1" + out, "--key-file"},
           {"issue" + k + " --server 10.0.0.1 --client-id 1" + out, "10.0.0.1"},
           {"issue" + k + " --server example.com:7777 --client-id 1" + out, "not an IP address"},
           {"issue" + k + " --server 10.0.0.1:0 --client-id 1" + out, "port"},
           {"issue" + k + " --server 10.0.0.1:7777 --client-id 1 --expires 0" + out, "--expires 0"},
           {"issue" + k + " --server 10.0.0.1:7777 --client-id 1 --expires 86401" + out, "--expires 86401"},
           {"issue" + k + nine + " --client-id 1" + out, "at most 8"},
           {"issue" + k + " --server 10.0.0.1:7777 --client-id abc" + out, "--client-id 'abc'"},
           {"issue" + k + " --server 10.0.0.1:7777 --client-id -5" + out, "--client-id '-5'"},
           {"issue" + k + " --server 10.0.0.1:7777 --client-id 18446744073709551616" + out, "18446744073709551616"},
           {"issue" + k + " --server 10.0.0.1:7777 --client-id 1 --expires abc" + out, "--expires abc"},
           {"issue" + k + " --server 10.0.0.1:7777 --client-id 1 --not-before 86401" + out, "--not-before 86401"},
           {"issue" + k + " --server 10.0.0.1:7777 --client-id 1 --not-before -1" + out, "--not-before -1"},
           {"issue" + k + " --server 10.0.0.1:7777 --client-id 1 --not-before soon" + out, "--not-before soon"},
           {"issue" + k + " --server 10.0.0.1:7777 --client-id 1 --not-before +5" + out, "--not-before +5"},
           {"issue" + k + " --server 10.0.0.1:7777 --client-id 1 --not-before 1.5" + out, "--not-before 1.5"},
           {"issue" + k + " --server 10.0.0.1:7777 --client-id 1 --not-before 18446744073709551616" + out,
            "--not-before 18446744073709551616 is not a number of seconds in 0..86400"},
           {"issue" + k + " --server 10.0.0.1:7777 --client-id 1 --not-before 18446744073709551615" + out,
            "--not-before 18446744073709551615"},
           {"issue" + k + " --server 10.0.0.1:7777 --client-id 1 --expires -1" + out, "--expires -1"},
           {"issue" + k + " --server 10.0.0.1:+7777 --client-id 1" + out, "port '+7777'"},
           {"issue" + k + " --server 10.0.0.1:65536 --client-id 1" + out, "port '65536'"},
           {"issue" + k + " --server ::1:7777 --client-id 1" + out, "[IPV6]:PORT"},
           {"issue" + k + " --server [10.0.0.1]:7777 --client-id 1" + out, "brackets are for IPv6"},
           {"issue" + k + " --server 0.0.0.0:7777 --client-id 1" + out, "'0.0.0.0' is not an address a server is reached at"},
           {"issue" + k + " --server 10.0.0.1:7777" + out, "--client-id"},
           {"issue" + k + " --client-id 1" + out, "--server"},
           {"issue --key-file " + dir.file("missing") + " --server 10.0.0.1:7777 --client-id 1" + out, "cannot open"},
           {"issue" + k + " --server 10.0.0.1:7777 --client-id 1 --bogus" + out, "--bogus"},
           {"issue --key-file " + dir.write("bad", "xyz\n") + " --server 10.0.0.1:7777 --client-id 1" + out,
            "64 hexadecimal digits"},
           {"keygen", "--out"},
       }) {
    const auto r = run_command(kTool + " " + c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args << "\n" << r.output;
    EXPECT_NE(r.output.find(c.says), std::string::npos) << c.args << "\n" << r.output;
    EXPECT_EQ(r.output.rfind("foothold-token: ", 0), 0u) << c.args << "\n" << r.output;
  }
  struct stat st {};
  EXPECT_NE(::stat(dir.file("t").c_str(), &st), 0) << "no bad usage wrote a token";
  // The control: the same arguments, all valid, succeed.
  const auto good = run_command(kTool + " issue" + k + " --server 10.0.0.1:7777 --client-id 18446744073709551615 --expires 86400" + out);
  EXPECT_EQ(good.exit_code, 0) << good.output;
  proto::ConnectToken token;
  std::string error;
  ASSERT_TRUE(proto::read_token_file(dir.file("t"), token, error)) << error;
  EXPECT_EQ(token.client_id, 18446744073709551615u);
  EXPECT_EQ(token.expires_unix - token.created_unix, 86400u);
}

TEST(TokenTool, FilesItCannotWriteFailWithCodeOne) {
  TempDir dir;
  const auto r = run_command(kTool + " keygen --out " + dir.file("no/such/dir/k"));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("cannot create"), std::string::npos) << r.output;
  ASSERT_EQ(run_command(kTool + " keygen --out " + dir.file("k")).exit_code, 0);
  const auto t = run_command(kTool + " issue --key-file " + dir.file("k") + " --server 10.0.0.1:7777 --client-id 1 --out " +
                             dir.file("no/such/dir/t"));
  EXPECT_EQ(t.exit_code, 1) << t.output;
  EXPECT_NE(t.output.find("no/such/dir/t"), std::string::npos) << t.output;
}

}  // namespace
}  // namespace foothold::test
