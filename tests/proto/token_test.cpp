// Connect tokens: what the backend mints the server opens, and nothing else opens; token and key
// files are read as untrusted input.

#include <sys/stat.h>

#include <fstream>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "proto/token.h"
#include "support/process.h"

namespace foothold::proto {
namespace {

constexpr uint64_t kNow = 1'800'000'000;

Key key_of(uint8_t seed) {
  Key k{};
  for (std::size_t i = 0; i < k.size(); ++i) k[i] = uint8_t(seed + 5 * i + 1);
  return k;
}

TokenAddress v4(uint8_t a, uint8_t b, uint8_t c, uint8_t d, uint16_t port) {
  TokenAddress t;
  t.ip[0] = a;
  t.ip[1] = b;
  t.ip[2] = c;
  t.ip[3] = d;
  t.port = port;
  return t;
}

TokenAddress v6_loopback(uint16_t port) {
  TokenAddress t;
  t.v6 = true;
  t.ip[15] = 1;
  t.port = port;
  return t;
}

ConnectToken mint(const Key& key, uint64_t client_id, std::vector<TokenAddress> servers = {v4(10, 0, 0, 1, 7777)},
                  uint64_t lifetime = 60) {
  ConnectToken t;
  std::string error;
  EXPECT_TRUE(mint_token(key, client_id, servers, kNow, lifetime, t, error)) << error;
  return t;
}

TEST(Token, WhatIsMintedOpensWithTheKeyWithEveryField) {
  const Key key = key_of(1);
  const ConnectToken t = mint(key, 0xfeedbeef12345678ull, {v4(10, 0, 0, 1, 7777), v6_loopback(7000)}, 120);
  EXPECT_EQ(t.created_unix, kNow);
  EXPECT_EQ(t.expires_unix, kNow + 120);
  TokenContents c;
  ASSERT_EQ(open_token(key, t.sealed, kNow + 5, c), TokenError::kNone);
  EXPECT_EQ(c.client_id, 0xfeedbeef12345678ull);
  EXPECT_EQ(c.expires_unix, kNow + 120);
  ASSERT_EQ(c.servers.count, 2);
  EXPECT_EQ(c.servers.items[0], v4(10, 0, 0, 1, 7777));
  EXPECT_EQ(c.servers.items[1], v6_loopback(7000));
  EXPECT_TRUE(c.servers.contains(v6_loopback(7000)));
  EXPECT_FALSE(c.servers.contains(v6_loopback(7001)));
  EXPECT_EQ(c.client_to_server, t.client_to_server);
  EXPECT_EQ(c.server_to_client, t.server_to_client);
  EXPECT_EQ(sealed_token_expiry(t.sealed), kNow + 120);
}

TEST(Token, AnotherKeyDoesNotOpenIt) {
  const ConnectToken t = mint(key_of(1), 7);
  TokenContents c;
  EXPECT_EQ(open_token(key_of(2), t.sealed, kNow, c), TokenError::kBadSeal);
  EXPECT_EQ(open_token(development_key(), t.sealed, kNow, c), TokenError::kBadSeal);
}

TEST(Token, ExpiresAtItsExpiry) {
  const Key key = key_of(1);
  const ConnectToken t = mint(key, 7, {v4(10, 0, 0, 1, 7777)}, 30);
  TokenContents c;
  EXPECT_EQ(open_token(key, t.sealed, kNow + 29, c), TokenError::kNone);
  EXPECT_EQ(open_token(key, t.sealed, kNow + 30, c), TokenError::kExpired);
  EXPECT_EQ(open_token(key, t.sealed, kNow + 100000, c), TokenError::kExpired);
}

TEST(Token, EveryBitFlipOfTheSealedPartIsRefused) {
  const Key key = key_of(3);
  const ConnectToken t = mint(key, 42);
  TokenContents c;
  for (std::size_t bit = 0; bit < kTokenSealedBytes * 8; ++bit) {
    auto s = t.sealed;
    s[bit / 8] ^= uint8_t(1u << (bit % 8));
    const TokenError e = open_token(key, s, kNow, c);
    if (bit < 32) {
      EXPECT_EQ(e, TokenError::kMalformed) << "bit " << bit << " (magic)";
    } else if (bit < 96) {
      EXPECT_TRUE(e == TokenError::kBadSeal || e == TokenError::kExpired) << "bit " << bit << " (expiry): " << to_string(e);
    } else {
      EXPECT_EQ(e, TokenError::kBadSeal) << "bit " << bit;
    }
  }
}

TEST(Token, EveryWrongLengthIsMalformed) {
  const Key key = key_of(3);
  const ConnectToken t = mint(key, 42);
  TokenContents c;
  for (std::size_t n = 0; n < kTokenSealedBytes; ++n)
    EXPECT_EQ(open_token(key, std::span<const uint8_t>(t.sealed.data(), n), kNow, c), TokenError::kMalformed) << n;
  std::vector<uint8_t> longer(t.sealed.begin(), t.sealed.end());
  longer.push_back(0);
  EXPECT_EQ(open_token(key, longer, kNow, c), TokenError::kMalformed);
}

TEST(Token, TwoMintsShareNoKeyAndNoNonce) {
  const Key key = key_of(4);
  const ConnectToken a = mint(key, 1), b = mint(key, 1);
  EXPECT_NE(a.client_to_server, b.client_to_server);
  EXPECT_NE(a.server_to_client, b.server_to_client);
  EXPECT_NE(a.client_to_server, a.server_to_client);
  EXPECT_FALSE(std::equal(a.sealed.begin() + 12, a.sealed.begin() + 36, b.sealed.begin() + 12)) << "the nonce";
}

TEST(Token, MintRefusesWhatCannotBeAToken) {
  const Key key = key_of(5);
  ConnectToken t;
  std::string error;
  EXPECT_FALSE(mint_token(key, 1, {}, kNow, 60, t, error));
  EXPECT_NE(error.find("1 to 8"), std::string::npos) << error;
  const std::vector<TokenAddress> nine(9, v4(10, 0, 0, 1, 1));
  EXPECT_FALSE(mint_token(key, 1, nine, kNow, 60, t, error));
  const std::vector<TokenAddress> one = {v4(10, 0, 0, 1, 1)};
  EXPECT_FALSE(mint_token(key, 1, one, kNow, 0, t, error));
  EXPECT_NE(error.find("lifetime"), std::string::npos) << error;
  EXPECT_FALSE(mint_token(key, 1, one, kNow, kMaxTokenLifetime + 1, t, error));
  EXPECT_FALSE(mint_token(key, 1, one, ~uint64_t(0) - 10, 60, t, error));
  EXPECT_NE(error.find("overflows"), std::string::npos) << error;
  const std::vector<TokenAddress> port0 = {v4(10, 0, 0, 1, 0)};
  EXPECT_FALSE(mint_token(key, 1, port0, kNow, 60, t, error));
  EXPECT_NE(error.find("port 0"), std::string::npos) << error;
  const std::vector<TokenAddress> eight(8, v4(10, 0, 0, 1, 1));
  EXPECT_TRUE(mint_token(key, 1, eight, kNow, kMaxTokenLifetime, t, error)) << error;
}

TEST(TokenFile, RoundTrips) {
  const ConnectToken t = mint(key_of(6), 99, {v4(127, 0, 0, 1, 7777), v6_loopback(7777)});
  const auto bytes = serialize_token(t);
  ConnectToken back;
  std::string error;
  ASSERT_TRUE(parse_token(bytes, back, error)) << error;
  EXPECT_EQ(back.client_id, 99u);
  EXPECT_EQ(back.created_unix, t.created_unix);
  EXPECT_EQ(back.expires_unix, t.expires_unix);
  EXPECT_EQ(back.servers.count, 2);
  EXPECT_EQ(back.servers.items[1], v6_loopback(7777));
  EXPECT_EQ(back.client_to_server, t.client_to_server);
  EXPECT_EQ(back.server_to_client, t.server_to_client);
  EXPECT_EQ(back.sealed, t.sealed);
}

TEST(TokenFile, EachCorruptedFieldIsNamed) {
  const ConnectToken t = mint(key_of(6), 99);
  const auto good = serialize_token(t);
  struct Case {
    const char* what;
    std::size_t offset;
    uint8_t value;
    const char* message;
  };
  const std::vector<Case> cases = {
      {"magic", 0, 'X', "FHC1"},
      {"count 0", 28, 0, "address count 0"},
      {"count 9", 28, 9, "address count 9"},
      {"family", 29, 7, "family 7"},
      {"port", 29 + 17, 0, "port 0"},
      {"unused entry", 29 + 19 + 3, 1, "unused address entry 2"},
      {"IPv4 tail", 29 + 1 + 5, 1, "bytes after the fourth"},
      {"expiry before creation", 27, 0, "before it was created"},
      {"lifetime", 12, 0, "lifetime"},
      {"sealed magic", 245, 'X', "FHT1"},
      {"sealed expiry", 245 + 4, 0x55, "sealed part expires"},
  };
  for (const auto& c : cases) {
    auto bad = good;
    if (std::string(c.what) == "port") {
      bad[c.offset] = 0;
      bad[c.offset + 1] = 0;
    } else if (std::string(c.what) == "expiry before creation") {
      for (int i = 0; i < 8; ++i) bad[20 + size_t(i)] = 0;  // expires 0
    } else if (std::string(c.what) == "lifetime") {
      for (int i = 0; i < 8; ++i) bad[12 + size_t(i)] = 0;  // created at 0: a lifetime of decades
    } else {
      bad[c.offset] = c.value;
    }
    ConnectToken out;
    std::string error;
    EXPECT_FALSE(parse_token(bad, out, error)) << c.what;
    EXPECT_NE(error.find(c.message), std::string::npos) << c.what << ": " << error;
  }
  ConnectToken out;
  std::string error;
  EXPECT_FALSE(parse_token(std::span<const uint8_t>(good.data(), good.size() - 1), out, error));
  EXPECT_NE(error.find("521 bytes"), std::string::npos) << error;
}

TEST(TokenFile, WrittenWithMode0600AndReadBack) {
  test::TempDir dir;
  const ConnectToken t = mint(key_of(7), 5);
  std::string error;
  ASSERT_TRUE(write_token_file(dir.file("t"), t, error)) << error;
  struct stat st {};
  ASSERT_EQ(::stat(dir.file("t").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_EQ(st.st_size, off_t(kTokenFileBytes));
  ConnectToken back;
  ASSERT_TRUE(read_token_file(dir.file("t"), back, error)) << error;
  EXPECT_EQ(back.sealed, t.sealed);
  EXPECT_FALSE(read_token_file(dir.file("missing"), back, error));
  EXPECT_NE(error.find("cannot open"), std::string::npos) << error;
  dir.write("long", std::string(kTokenFileBytes + 50, 'x'));
  EXPECT_FALSE(read_token_file(dir.file("long"), back, error));
  EXPECT_NE(error.find("long"), std::string::npos) << "names the file: " << error;
}

TEST(KeyFile, RoundTripsWithMode0600AndIsNeverOverwritten) {
  test::TempDir dir;
  const Key key = generate_key();
  std::string error;
  ASSERT_TRUE(write_key_file(dir.file("k"), key, error)) << error;
  struct stat st {};
  ASSERT_EQ(::stat(dir.file("k").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_EQ(st.st_size, 65);
  Key back{};
  ASSERT_TRUE(read_key_file(dir.file("k"), back, error)) << error;
  EXPECT_EQ(back, key);
  EXPECT_FALSE(write_key_file(dir.file("k"), generate_key(), error));
  EXPECT_NE(error.find("already exists"), std::string::npos) << error;
  ASSERT_TRUE(read_key_file(dir.file("k"), back, error));
  EXPECT_EQ(back, key) << "the first key is still there";
}

TEST(KeyFile, RefusesAnythingButSixtyFourHexDigits) {
  test::TempDir dir;
  const std::string hex64(64, 'a');
  Key k{};
  std::string error;
  EXPECT_TRUE(read_key_file(dir.write("ok", hex64), k, error)) << "no newline is fine: " << error;
  EXPECT_TRUE(read_key_file(dir.write("ok2", std::string(64, 'B') + "\n"), k, error)) << "upper case: " << error;
  for (const auto& [name, text] : std::vector<std::pair<std::string, std::string>>{
           {"short", std::string(63, 'a') + "\n"},
           {"long", std::string(65, 'a') + "\n"},
           {"nonhex", std::string(63, 'a') + "g\n"},
           {"spaces", " " + hex64 + "\n"},
           {"empty", ""},
           {"huge", std::string(5000, 'a')}}) {
    EXPECT_FALSE(read_key_file(dir.write(name, text), k, error)) << name;
    EXPECT_NE(error.find("64 hexadecimal digits"), std::string::npos) << name << ": " << error;
  }
  EXPECT_FALSE(read_key_file(dir.write("zero", std::string(64, '0')), k, error));
  EXPECT_NE(error.find("all zeros"), std::string::npos) << error;
  EXPECT_FALSE(read_key_file(dir.file("missing"), k, error));
  EXPECT_NE(error.find("cannot open"), std::string::npos) << error;
}

TEST(DevelopmentKey, IsFixedAndNotZero) {
  const Key& a = development_key();
  const Key& b = development_key();
  EXPECT_EQ(a, b);
  EXPECT_NE(a, Key{});
  // The same bytes in every process and on every machine: BLAKE2b of a fixed text.
  std::set<uint8_t> distinct(a.begin(), a.end());
  EXPECT_GT(distinct.size(), 16u);
}

}  // namespace
}  // namespace foothold::proto
