// Connect tokens: what the backend mints the server opens, and nothing else opens; token and key
// files are read as untrusted input.

#include <sys/stat.h>

#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <sodium.h>

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

TokenAddress v6_documentation(uint16_t port) {
  // 2001:db8:85a3::8a2e:370:7334 with every byte distinct from its neighbours, so that a swapped or
  // dropped byte shows.
  TokenAddress t;
  t.v6 = true;
  t.ip = {0x20, 0x01, 0x0d, 0xb8, 0x85, 0xa3, 0x00, 0x00, 0x00, 0x00, 0x8a, 0x2e, 0x03, 0x70, 0x73, 0x34};
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

// TOKEN_FORMAT.md written out again from the document, not from token.cpp, as a backend in another
// language would: what it seals the server must open, and the other way round.
namespace doc {

void put64(uint8_t* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = uint8_t(v >> (8 * i));
}

uint64_t get64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= uint64_t(p[i]) << (8 * i);
  return v;
}

using Entry = std::array<uint8_t, 19>;

Entry entry(uint8_t family, const std::array<uint8_t, 16>& ip, uint16_t port) {
  Entry e{};
  e[0] = family;
  std::memcpy(e.data() + 1, ip.data(), 16);
  e[17] = uint8_t(port);
  e[18] = uint8_t(port >> 8);
  return e;
}

/// The 483-byte plaintext: client id, count, 8 entries (those given, the rest zero), two keys, the
/// user data's size and its 256 bytes (those given, the rest zero).
std::array<uint8_t, 483> plaintext(uint64_t client_id, uint8_t count, const std::vector<Entry>& entries, const Key& c2s,
                                   const Key& s2c, std::span<const uint8_t> user = {}) {
  std::array<uint8_t, 483> p{};
  put64(p.data(), client_id);
  p[8] = count;
  for (std::size_t i = 0; i < entries.size(); ++i) std::memcpy(p.data() + 9 + 19 * i, entries[i].data(), 19);
  std::memcpy(p.data() + 161, c2s.data(), 32);
  std::memcpy(p.data() + 193, s2c.data(), 32);
  p[225] = uint8_t(user.size());
  p[226] = uint8_t(user.size() >> 8);
  if (!user.empty()) std::memcpy(p.data() + 227, user.data(), std::min<std::size_t>(user.size(), 256));
  return p;
}

std::array<uint8_t, 543> seal(const Key& key, uint64_t expires, const std::array<uint8_t, 483>& plain,
                              uint64_t not_before = 0) {
  EXPECT_GE(sodium_init(), 0);
  std::array<uint8_t, 543> s{};
  std::memcpy(s.data(), "FHT3", 4);
  put64(s.data() + 4, expires);
  put64(s.data() + 12, not_before);
  randombytes_buf(s.data() + 20, 24);
  unsigned long long clen = 0;
  EXPECT_EQ(crypto_aead_xchacha20poly1305_ietf_encrypt(s.data() + 44, &clen, plain.data(), plain.size(), s.data(), 20,
                                                       nullptr, s.data() + 20, key.data()),
            0);
  EXPECT_EQ(clen, 499u);
  return s;
}

/// Step 9: the 796-byte token file, field by field from the table.
std::array<uint8_t, 796> file(uint64_t client_id, uint64_t created, uint64_t not_before, uint64_t expires, uint8_t count,
                              const std::vector<Entry>& entries, const Key& c2s, const Key& s2c,
                              const std::array<uint8_t, 543>& sealed) {
  std::array<uint8_t, 796> f{};
  std::memcpy(f.data(), "FHC3", 4);
  put64(f.data() + 4, client_id);
  put64(f.data() + 12, created);
  put64(f.data() + 20, not_before);
  put64(f.data() + 28, expires);
  f[36] = count;
  for (std::size_t i = 0; i < entries.size(); ++i) std::memcpy(f.data() + 37 + 19 * i, entries[i].data(), 19);
  std::memcpy(f.data() + 189, c2s.data(), 32);
  std::memcpy(f.data() + 221, s2c.data(), 32);
  std::memcpy(f.data() + 253, sealed.data(), 543);
  return f;
}

/// A token file of the first format, as an older foothold-token wrote it: FHC1 | client_id |
/// created | expires | count | entries | c2s | s2c | a 277-byte FHT1 sealed part (magic | expires |
/// nonce | ciphertext, the first 12 bytes as additional data).
std::vector<uint8_t> first_format_file(const Key& key, uint64_t created, uint64_t expires,
                                       const std::array<uint8_t, 483>& plain) {
  EXPECT_GE(sodium_init(), 0);
  std::array<uint8_t, 277> sealed{};  // its plaintext: the first 225 bytes of today's, no user data
  std::memcpy(sealed.data(), "FHT1", 4);
  put64(sealed.data() + 4, expires);
  randombytes_buf(sealed.data() + 12, 24);
  unsigned long long clen = 0;
  crypto_aead_xchacha20poly1305_ietf_encrypt(sealed.data() + 36, &clen, plain.data(), 225, sealed.data(), 12,
                                             nullptr, sealed.data() + 12, key.data());
  std::vector<uint8_t> f(522);
  std::memcpy(f.data(), "FHC1", 4);
  std::memcpy(f.data() + 4, plain.data(), 8);  // client id
  put64(f.data() + 12, created);
  put64(f.data() + 20, expires);
  std::memcpy(f.data() + 28, plain.data() + 8, 217);  // count, entries, both keys
  std::memcpy(f.data() + 245, sealed.data(), sealed.size());
  return f;
}

}  // namespace doc

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

TEST(Token, UserDataOfNoneToTwoHundredFiftySixBytesTravelsSealedAndMoreIsRefusedAtMinting) {
  const Key key = key_of(3);
  for (std::size_t size : {std::size_t(0), std::size_t(1), std::size_t(200), kMaxUserData}) {
    std::vector<uint8_t> user(size);
    for (std::size_t i = 0; i < size; ++i) user[i] = uint8_t(i * 13 + 1);
    ConnectToken t;
    std::string error;
    ASSERT_TRUE(mint_token(key, 8, std::vector<TokenAddress>{v4(10, 0, 0, 1, 7777)}, kNow, 60, t, error, 0, user)) << error;
    TokenContents c;
    ASSERT_EQ(open_token(key, t.sealed, kNow, c), TokenError::kNone);
    EXPECT_EQ(std::vector<uint8_t>(c.user_data_view().begin(), c.user_data_view().end()), user) << size;
    // The sealed part does not show it: the client cannot read it, an eavesdropper neither.
    if (size >= 8) {
      const auto found = std::search(t.sealed.begin(), t.sealed.end(), user.begin(), user.begin() + 8);
      EXPECT_EQ(found, t.sealed.end());
    }
  }
  ConnectToken t;
  std::string error;
  const std::vector<uint8_t> too_long(kMaxUserData + 1, 1);
  EXPECT_FALSE(mint_token(key, 8, std::vector<TokenAddress>{v4(10, 0, 0, 1, 7777)}, kNow, 60, t, error, 0, too_long));
  EXPECT_EQ(error, "user data is 257 bytes: at most 256");
  // A sealed part whose user data claims more than 256 bytes, or has bytes after its end, is
  // malformed even though it opens (only a broken minter writes one).
  auto plain = doc::plaintext(5, 1, {doc::entry(4, v4(10, 0, 0, 1, 0).ip, 7777)}, key_of(1), key_of(2));
  plain[225] = 1;
  plain[226] = 1;  // 257
  TokenContents c;
  EXPECT_EQ(open_token(key, doc::seal(key, kNow + 60, plain, kNow), kNow, c), TokenError::kMalformed);
  plain[225] = 2;
  plain[226] = 0;
  plain[227 + 5] = 9;  // past the 2 bytes it says it has
  EXPECT_EQ(open_token(key, doc::seal(key, kNow + 60, plain, kNow), kNow, c), TokenError::kMalformed);
  plain[227 + 5] = 0;
  ASSERT_EQ(open_token(key, doc::seal(key, kNow + 60, plain, kNow), kNow, c), TokenError::kNone);
  EXPECT_EQ(c.user_data_size, 2u);
}

TEST(Token, AnIPv6AddressKeepsEveryByte) {
  const Key key = key_of(8);
  const ConnectToken t = mint(key, 3, {v6_documentation(65535), v4(192, 0, 2, 255, 1)});
  TokenContents c;
  ASSERT_EQ(open_token(key, t.sealed, kNow, c), TokenError::kNone);
  ASSERT_EQ(c.servers.count, 2);
  EXPECT_EQ(c.servers.items[0], v6_documentation(65535));
  EXPECT_EQ(c.servers.items[1], v4(192, 0, 2, 255, 1));
  EXPECT_TRUE(c.servers.contains(v6_documentation(65535)));
  TokenAddress as_v4 = v6_documentation(65535);
  as_v4.v6 = false;
  EXPECT_FALSE(c.servers.contains(as_v4)) << "the family is part of the address";
  ConnectToken back;
  std::string error;
  ASSERT_TRUE(parse_token(serialize_token(t), back, error)) << error;
  EXPECT_EQ(back.servers.items[0], v6_documentation(65535));
  EXPECT_EQ(back.servers.items[1], v4(192, 0, 2, 255, 1));
}

TEST(Token, MintedBytesFollowTheDocumentedLayout) {
  const Key key = key_of(9);
  const ConnectToken t = mint(key, 0x0102030405060708ull, {v4(10, 0, 0, 1, 0x1e61), v6_documentation(7000)}, 300);
  EXPECT_EQ(std::memcmp(t.sealed.data(), "FHT3", 4), 0);
  EXPECT_EQ(doc::get64(t.sealed.data() + 4), kNow + 300);
  EXPECT_EQ(doc::get64(t.sealed.data() + 12), kNow) << "not before: now, by default";
  ASSERT_GE(sodium_init(), 0);
  std::array<uint8_t, 483> plain{};
  unsigned long long mlen = 0;
  ASSERT_EQ(crypto_aead_xchacha20poly1305_ietf_decrypt(plain.data(), &mlen, nullptr, t.sealed.data() + 44, 499,
                                                       t.sealed.data(), 20, t.sealed.data() + 20, key.data()),
            0)
      << "libsodium alone opens it, with the first 20 bytes as additional data";
  EXPECT_EQ(mlen, 483u);
  const auto expected = doc::plaintext(0x0102030405060708ull, 2,
                                       {doc::entry(4, v4(10, 0, 0, 1, 0).ip, 0x1e61), doc::entry(6, v6_documentation(0).ip, 7000)},
                                       t.client_to_server, t.server_to_client);
  EXPECT_EQ(plain, expected);
  const auto file = serialize_token(t);
  EXPECT_EQ(std::memcmp(file.data(), "FHC3", 4), 0);
  EXPECT_EQ(doc::get64(file.data() + 4), 0x0102030405060708ull);
  EXPECT_EQ(doc::get64(file.data() + 12), kNow);
  EXPECT_EQ(doc::get64(file.data() + 20), kNow);
  EXPECT_EQ(doc::get64(file.data() + 28), kNow + 300);
  EXPECT_EQ(file[36], 2);
  EXPECT_EQ(std::memcmp(file.data() + 37, expected.data() + 9, 152), 0) << "the same entries as the sealed part";
  EXPECT_EQ(std::memcmp(file.data() + 189, t.client_to_server.data(), 32), 0);
  EXPECT_EQ(std::memcmp(file.data() + 221, t.server_to_client.data(), 32), 0);
  EXPECT_EQ(std::memcmp(file.data() + 253, t.sealed.data(), kTokenSealedBytes), 0);
  EXPECT_EQ(kTokenSealedBytes, 543u);
  EXPECT_EQ(kTokenFileBytes, 796u);
}

TEST(Token, WhatABackendSealsByTheDocumentOpens) {
  const Key key = key_of(10), c2s = key_of(11), s2c = key_of(12);
  // Step 2's times: created now, valid after a delay, expiring a lifetime after that.
  const uint64_t created = kNow, not_before = created + 120, expires = not_before + 60;
  const std::vector<doc::Entry> entries = {doc::entry(6, v6_documentation(0).ip, 9000),
                                           doc::entry(4, v4(198, 51, 100, 7, 0).ip, 9001)};
  const auto sealed = doc::seal(key, expires, doc::plaintext(77, 2, entries, c2s, s2c), not_before);
  EXPECT_EQ(sealed_token_expiry(sealed), expires);
  EXPECT_EQ(sealed_token_not_before(sealed), not_before);
  TokenContents c;
  EXPECT_EQ(open_token(key, sealed, TokenTimeRules{created, kMaxTokenLifetime, 30}, c), TokenError::kNotYetValid);
  ASSERT_EQ(open_token(key, sealed, TokenTimeRules{not_before, kMaxTokenLifetime, 30}, c), TokenError::kNone);
  EXPECT_EQ(c.client_id, 77u);
  EXPECT_EQ(c.not_before_unix, not_before);
  EXPECT_EQ(c.expires_unix, expires);
  ASSERT_EQ(c.servers.count, 2);
  EXPECT_EQ(c.servers.items[0], v6_documentation(9000));
  EXPECT_EQ(c.servers.items[1], v4(198, 51, 100, 7, 9001));
  EXPECT_EQ(c.client_to_server, c2s);
  EXPECT_EQ(c.server_to_client, s2c);
  // Step 9: the file the player is given is what the client reads.
  const auto file = doc::file(77, created, not_before, expires, 2, entries, c2s, s2c, sealed);
  ConnectToken t;
  std::string error;
  ASSERT_TRUE(parse_token(file, t, error)) << error;
  EXPECT_EQ(t.client_id, 77u);
  EXPECT_EQ(t.created_unix, created);
  EXPECT_EQ(t.not_before_unix, not_before);
  EXPECT_EQ(t.expires_unix, expires);
  EXPECT_EQ(t.servers.view().size(), 2u);
  EXPECT_EQ(t.servers.items[1], v4(198, 51, 100, 7, 9001));
  EXPECT_EQ(t.client_to_server, c2s);
  EXPECT_EQ(t.server_to_client, s2c);
  EXPECT_EQ(t.sealed, sealed);
  EXPECT_EQ(serialize_token(t), file) << "and writes back byte for byte";
}

TEST(Token, SealedButMalformedContentsAreRefused) {
  // The seal proves who wrote it, not that the writer followed the format: a backend's bug must not
  // reach the server as a token with 9 addresses or a port 0.
  const Key key = key_of(13);
  const auto ok = doc::entry(4, v4(10, 0, 0, 1, 0).ip, 7777);
  std::array<uint8_t, 16> v4_tail = v4(10, 0, 0, 1, 0).ip;
  v4_tail[9] = 1;
  struct Case {
    const char* what;
    uint8_t count;
    std::vector<doc::Entry> entries;
  };
  const std::vector<Case> cases = {
      {"count 0", 0, {}},
      {"count 0 with an entry", 0, {ok}},
      {"count 9", 9, std::vector<doc::Entry>(8, ok)},
      {"count 255", 255, std::vector<doc::Entry>(8, ok)},
      {"family 7", 1, {doc::entry(7, v4(10, 0, 0, 1, 0).ip, 7777)}},
      {"family 0", 1, {doc::entry(0, v4(10, 0, 0, 1, 0).ip, 7777)}},
      {"port 0", 1, {doc::entry(4, v4(10, 0, 0, 1, 0).ip, 0)}},
      {"IPv4 with a tail", 1, {doc::entry(4, v4_tail, 7777)}},
      {"an unused entry not zero", 1, {ok, doc::entry(0, {}, 1)}},
  };
  for (const auto& k : cases) {
    const auto sealed = doc::seal(key, kNow + 60, doc::plaintext(5, k.count, k.entries, key_of(1), key_of(2)));
    TokenContents c;
    c.client_id = 12345;
    EXPECT_EQ(open_token(key, sealed, kNow, c), TokenError::kMalformed) << k.what;
    EXPECT_EQ(c.client_id, 12345u) << k.what << ": out is written only on success";
  }
  // The control: the same recipe with valid contents opens.
  TokenContents c;
  EXPECT_EQ(open_token(key, doc::seal(key, kNow + 60, doc::plaintext(5, 1, {ok}, key_of(1), key_of(2))), kNow, c),
            TokenError::kNone);
}

TEST(Token, RefusalLeavesTheOutputAlone) {
  const Key key = key_of(14);
  const ConnectToken t = mint(key, 99);
  TokenContents before;
  before.client_id = 555;
  before.expires_unix = 666;
  before.servers.count = 1;
  before.client_to_server = key_of(20);
  TokenContents c = before;
  auto bad = t.sealed;
  bad[100] ^= 1;
  EXPECT_EQ(open_token(key, bad, kNow, c), TokenError::kBadSeal);
  EXPECT_EQ(open_token(key, t.sealed, kNow + 1000, c), TokenError::kExpired);
  EXPECT_EQ(open_token(key_of(15), t.sealed, kNow, c), TokenError::kBadSeal);
  EXPECT_EQ(open_token(key, std::span<const uint8_t>(t.sealed.data(), 10), kNow, c), TokenError::kMalformed);
  EXPECT_EQ(c.client_id, before.client_id);
  EXPECT_EQ(c.expires_unix, before.expires_unix);
  EXPECT_EQ(c.servers.count, before.servers.count);
  EXPECT_EQ(c.client_to_server, before.client_to_server);
  EXPECT_EQ(open_token(key, t.sealed, kNow, c), TokenError::kNone);
  EXPECT_EQ(c.client_id, 99u);
}

TEST(Token, AnExpiredTokenIsRefusedBeforeItsSealIsJudged) {
  // A forged token with a past expiry is refused as expired: the server spends no decryption on it.
  const ConnectToken t = mint(key_of(1), 7, {v4(10, 0, 0, 1, 7777)}, 30);
  auto forged = t.sealed;
  for (std::size_t i = 44; i < forged.size(); ++i) forged[i] = 0;  // the ciphertext and tag
  TokenContents c;
  EXPECT_EQ(open_token(key_of(1), forged, kNow + 30, c), TokenError::kExpired);
  EXPECT_EQ(open_token(key_of(1), forged, kNow, c), TokenError::kBadSeal);
  EXPECT_EQ(open_token(key_of(1), forged, TokenTimeRules{kNow + 30, kMaxTokenLifetime, 30}, c), TokenError::kExpired);
}

TEST(Token, ATokenOutOfItsTimeIsRefusedForItBeforeItsSealIsJudged) {
  // Sealed with another key (a forgery): only a refusal that comes before the decryption can name
  // its time rather than its seal.
  const auto plain = doc::plaintext(5, 1, {doc::entry(4, v4(10, 0, 0, 1, 0).ip, 7777)}, key_of(1), key_of(2));
  const TokenTimeRules rules{kNow, kMaxTokenLifetime, 30};
  TokenContents c;
  EXPECT_EQ(open_token(key_of(1), doc::seal(key_of(2), kNow + 400, plain, kNow + 300), rules, c), TokenError::kNotYetValid);
  EXPECT_EQ(open_token(key_of(1), doc::seal(key_of(2), kNow + 3 * 86400, plain, kNow), rules, c), TokenError::kTooFarAhead);
  EXPECT_EQ(open_token(key_of(1), doc::seal(key_of(2), kNow + 60, plain, kNow), rules, c), TokenError::kBadSeal)
      << "the control: in its time, the forgery fails at the seal";
  // Expiry is judged first: a token both expired and not yet valid (impossible when minted) is expired.
  EXPECT_EQ(open_token(key_of(1), doc::seal(key_of(2), kNow, plain, kNow + 300), rules, c), TokenError::kExpired);
  // Not-before before the furthest expiry: a token both early and too far ahead is early.
  EXPECT_EQ(open_token(key_of(1), doc::seal(key_of(2), kNow + 3 * 86400, plain, kNow + 300), rules, c),
            TokenError::kNotYetValid);
}

TEST(Token, ErrorsHaveNames) {
  EXPECT_EQ(to_string(TokenError::kNone), "none");
  EXPECT_EQ(to_string(TokenError::kMalformed), "malformed");
  EXPECT_EQ(to_string(TokenError::kExpired), "expired");
  EXPECT_EQ(to_string(TokenError::kBadSeal), "bad_seal");
  EXPECT_EQ(to_string(TokenError::kNotYetValid), "not_yet_valid");
  EXPECT_EQ(to_string(TokenError::kTooFarAhead), "too_far_ahead");
  EXPECT_EQ(to_string(TokenError::kCount), "invalid") << "kCount is no error";
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

TEST(Token, EveryBitFlipIsRefusedUnderTheServersRulesForTheFieldItHit) {
  const Key key = key_of(3);
  const ConnectToken t = mint(key, 42);  // valid from kNow for 60 s
  const TokenTimeRules rules{kNow, kMaxTokenLifetime, 30};
  TokenContents c;
  for (std::size_t bit = 0; bit < kTokenSealedBytes * 8; ++bit) {
    auto s = t.sealed;
    s[bit / 8] ^= uint8_t(1u << (bit % 8));
    const uint64_t expires = doc::get64(s.data() + 4), not_before = doc::get64(s.data() + 12);
    TokenError expected = TokenError::kBadSeal;
    if (bit < 32)
      expected = TokenError::kMalformed;
    else if (bit < 96)
      expected = expires <= kNow                       ? TokenError::kExpired
                 : expires - kNow > kMaxTokenLifetime + 30 ? TokenError::kTooFarAhead
                                                            : TokenError::kBadSeal;
    else if (bit < 160)
      expected = not_before > kNow + 30 ? TokenError::kNotYetValid : TokenError::kBadSeal;
    EXPECT_EQ(open_token(key, s, rules, c), expected) << "bit " << bit;
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
  EXPECT_NE(error.find("not 9"), std::string::npos) << error;
  const std::vector<TokenAddress> one = {v4(10, 0, 0, 1, 1)};
  EXPECT_FALSE(mint_token(key, 1, one, kNow, 0, t, error));
  EXPECT_NE(error.find("lifetime"), std::string::npos) << error;
  EXPECT_FALSE(mint_token(key, 1, one, kNow, kMaxTokenLifetime + 1, t, error));
  EXPECT_NE(error.find("86401"), std::string::npos) << error;
  EXPECT_FALSE(mint_token(key, 1, one, ~uint64_t(0) - 10, 60, t, error));
  EXPECT_NE(error.find("overflows"), std::string::npos) << error;
  const std::vector<TokenAddress> port0 = {v4(10, 0, 0, 1, 1), v4(10, 0, 0, 1, 0)};
  EXPECT_FALSE(mint_token(key, 1, port0, kNow, 60, t, error));
  EXPECT_NE(error.find("server 2 has port 0"), std::string::npos) << error;
  TokenAddress tail = v4(10, 0, 0, 1, 1);
  tail.ip[15] = 1;
  EXPECT_FALSE(mint_token(key, 1, std::vector<TokenAddress>{tail}, kNow, 60, t, error));
  EXPECT_NE(error.find("server 1 is IPv4"), std::string::npos) << error;
  EXPECT_EQ(t.client_id, 0u) << "nothing is written on a refusal";
  // The edges that are allowed.
  const std::vector<TokenAddress> eight(8, v4(10, 0, 0, 1, 1));
  EXPECT_TRUE(mint_token(key, 1, eight, kNow, kMaxTokenLifetime, t, error)) << error;
  EXPECT_EQ(t.servers.count, 8);
  EXPECT_TRUE(mint_token(key, 1, one, ~uint64_t(0) - 60, 60, t, error)) << error;
  EXPECT_EQ(t.expires_unix, ~uint64_t(0));
  EXPECT_TRUE(mint_token(key, 1, one, kNow, 1, t, error)) << error;
  // The delay: up to a day, and counted in the overflow check.
  EXPECT_TRUE(mint_token(key, 1, one, kNow, 60, t, error, kMaxTokenLifetime)) << error;
  EXPECT_EQ(t.not_before_unix, kNow + kMaxTokenLifetime);
  EXPECT_TRUE(mint_token(key, 1, one, ~uint64_t(0) - 120, 60, t, error, 60)) << error;
  EXPECT_EQ(t.not_before_unix, ~uint64_t(0) - 60);
  EXPECT_EQ(t.expires_unix, ~uint64_t(0));
  t = {};
  EXPECT_FALSE(mint_token(key, 1, one, ~uint64_t(0) - 120, 60, t, error, 61));
  EXPECT_NE(error.find("overflows"), std::string::npos) << error;
  EXPECT_FALSE(mint_token(key, 1, one, kNow, 60, t, error, kMaxTokenLifetime + 1));
  EXPECT_NE(error.find("not-before delay 86401"), std::string::npos) << error;
  EXPECT_EQ(t.client_id, 0u) << "nothing is written on a refusal";
}

TEST(TokenFile, ACountBeyondTheLimitIsNeverWrittenPastTheEntries) {
  // A caller's bug (count 200) must neither overrun the buffers nor produce a file that parses.
  ConnectToken t = mint(key_of(6), 1);
  t.servers.count = 200;
  EXPECT_TRUE(t.servers.contains(v4(10, 0, 0, 1, 7777)));
  EXPECT_FALSE(t.servers.contains(v4(10, 0, 0, 2, 7777)));
  const auto bytes = serialize_token(t);
  ConnectToken back;
  std::string error;
  EXPECT_FALSE(parse_token(bytes, back, error));
  EXPECT_NE(error.find("address count 200"), std::string::npos) << error;
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
  ConnectToken later;
  ASSERT_TRUE(mint_token(key_of(6), 99, std::vector<TokenAddress>{v4(127, 0, 0, 1, 7777)}, kNow, 60, later, error, 45)) << error;
  ASSERT_TRUE(parse_token(serialize_token(later), back, error)) << error;
  EXPECT_EQ(back.created_unix, kNow);
  EXPECT_EQ(back.not_before_unix, kNow + 45);
  EXPECT_EQ(back.expires_unix, kNow + 105);
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
      {"magic", 0, 'X', "FHC3"},
      {"count 0", 36, 0, "address count 0"},
      {"count 9", 36, 9, "address count 9"},
      {"family", 37, 7, "family 7"},
      {"port", 37 + 17, 0, "port 0"},
      {"unused entry", 37 + 19 + 3, 1, "unused address entry 2"},
      {"IPv4 tail", 37 + 1 + 5, 1, "bytes after the fourth"},
      {"expiry before validity", 0, 0, "before it is valid"},
      {"valid before creation", 0, 0, "before it was created"},
      {"created long before", 0, 0, "after it was created"},
      {"sealed magic", 253, 'X', "FHT3"},
      {"sealed expiry", 253 + 4, 0x55, "sealed part expires"},
      {"sealed not-before", 253 + 12, 0x55, "sealed part is valid from"},
      {"the first format", 3, '1', "FHC1"},
      {"the second format", 3, '2', "FHC2"},
      {"a sealed part of the first format", 253 + 3, '1', "FHT1"},
      {"a sealed part of the second format", 253 + 3, '2', "FHT2"},
  };
  for (const auto& c : cases) {
    auto bad = good;
    if (std::string(c.what) == "port") {
      bad[c.offset] = 0;
      bad[c.offset + 1] = 0;
    } else if (std::string(c.what) == "expiry before validity") {
      doc::put64(bad.data() + 28, 0);  // expires 0
    } else if (std::string(c.what) == "valid before creation") {
      doc::put64(bad.data() + 20, kNow - 1);
    } else if (std::string(c.what) == "created long before") {
      doc::put64(bad.data() + 12, 0);  // created at 0: valid decades later
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
  EXPECT_NE(error.find("795 bytes"), std::string::npos) << error;
  std::vector<uint8_t> longer(good.begin(), good.end());
  longer.push_back(0);
  EXPECT_FALSE(parse_token(longer, out, error));
  EXPECT_NE(error.find("797 bytes"), std::string::npos) << error;
  EXPECT_EQ(out.client_id, 0u) << "nothing is written on a refusal";
  // The control: the unaltered bytes parse.
  EXPECT_TRUE(parse_token(good, out, error)) << error;
}

TEST(TokenFile, TheLongestLifetimeParsesAndOneSecondMoreDoesNot) {
  const ConnectToken t = mint(key_of(6), 99, {v4(10, 0, 0, 1, 7777)}, kMaxTokenLifetime);
  auto bytes = serialize_token(t);
  ConnectToken out;
  std::string error;
  EXPECT_TRUE(parse_token(bytes, out, error)) << error;
  doc::put64(bytes.data() + 12, kNow - 1);  // created and valid a second earlier: a lifetime of a day and a second
  doc::put64(bytes.data() + 20, kNow - 1);
  EXPECT_FALSE(parse_token(bytes, out, error));
  EXPECT_NE(error.find("lifetime 86401"), std::string::npos) << error;
}

TEST(TokenFile, TheLongestDelayParsesAndOneSecondMoreDoesNot) {
  ConnectToken t;
  std::string error;
  ASSERT_TRUE(mint_token(key_of(6), 99, std::vector<TokenAddress>{v4(10, 0, 0, 1, 7777)}, kNow, 60, t, error,
                         kMaxTokenLifetime)) << error;
  auto bytes = serialize_token(t);
  ConnectToken out;
  EXPECT_TRUE(parse_token(bytes, out, error)) << error;
  doc::put64(bytes.data() + 12, kNow - 1);  // created a second earlier: valid a day and a second after
  EXPECT_FALSE(parse_token(bytes, out, error));
  EXPECT_NE(error.find("valid only 86401 s after it was created"), std::string::npos) << error;
}

TEST(TokenFile, TimesAtTheEdgesOfTheirRangeAreRefusedCleanly) {
  const auto good = serialize_token(mint(key_of(6), 99));
  const uint64_t max = ~uint64_t(0);
  struct Case {
    const char* what;
    uint64_t created, not_before, expires;
    const char* message;
  };
  for (const Case& k : std::vector<Case>{
           {"expires at the end of time", kNow, kNow, max, "lifetime"},
           {"valid from the end of time", kNow, max, max, "before it is valid"},
           {"valid from the end of time, expiring before", kNow, max, kNow + 60, "before it is valid"},
           {"all at the end of time", max, max, max, "before it is valid"},
           {"created at the end of time", max, kNow, kNow + 60, "before it was created"},
           {"all zero", 0, 0, 0, "before it is valid"},
       }) {
    auto bad = good;
    doc::put64(bad.data() + 12, k.created);
    doc::put64(bad.data() + 20, k.not_before);
    doc::put64(bad.data() + 28, k.expires);
    ConnectToken out;
    std::string error;
    EXPECT_FALSE(parse_token(bad, out, error)) << k.what;
    EXPECT_NE(error.find(k.message), std::string::npos) << k.what << ": " << error;
  }
}

TEST(TokenFile, TheFirstFormatIsRefusedByName) {
  // A whole file of the first format (522 bytes, FHC1), as an older foothold-token wrote it: refused
  // by its version, not as a file of the wrong size, so that its holder knows to ask for a new one.
  const Key key = key_of(7);
  const auto plain = doc::plaintext(5, 1, {doc::entry(4, v4(10, 0, 0, 1, 0).ip, 7777)}, key_of(1), key_of(2));
  const auto old = doc::first_format_file(key, kNow, kNow + 60, plain);
  ConnectToken out;
  std::string error;
  EXPECT_FALSE(parse_token(old, out, error));
  EXPECT_NE(error.find("FHC1"), std::string::npos) << error;
  EXPECT_NE(error.find("first token format"), std::string::npos) << error;
  EXPECT_NE(error.find("mint a new one"), std::string::npos) << error;
  EXPECT_EQ(out.client_id, 0u);
  // Its sealed part (277 bytes, FHT1) is refused by the server before anything else, by either rule.
  const std::span<const uint8_t> old_sealed(old.data() + 245, 277);
  TokenContents c;
  EXPECT_EQ(open_token(key, old_sealed, kNow, c), TokenError::kMalformed);
  EXPECT_EQ(open_token(key, old_sealed, TokenTimeRules{kNow, kMaxTokenLifetime, 30}, c), TokenError::kMalformed);
  // And padded to the new size it is still refused by its magic.
  std::vector<uint8_t> padded(old_sealed.begin(), old_sealed.end());
  padded.resize(kTokenSealedBytes);
  EXPECT_EQ(open_token(key, padded, TokenTimeRules{kNow, kMaxTokenLifetime, 30}, c), TokenError::kMalformed);
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
  EXPECT_NE(error.find(dir.file("long")), std::string::npos) << "names the file: " << error;
  EXPECT_NE(error.find("797 bytes"), std::string::npos) << "reads one byte past a token, no more: " << error;
}

TEST(TokenFile, WritingOverAReadableFileMakesItPrivate) {
  test::TempDir dir;
  const std::string path = dir.write("t", "old");
  ASSERT_EQ(::chmod(path.c_str(), 0644), 0);
  std::string error;
  ASSERT_TRUE(write_token_file(path, mint(key_of(7), 5), error)) << error;
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_EQ(st.st_size, off_t(kTokenFileBytes));
  EXPECT_FALSE(write_token_file(dir.file("no/such/dir"), mint(key_of(7), 5), error));
  EXPECT_NE(error.find("cannot create"), std::string::npos) << error;
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
           {"two newlines", hex64 + "\n\n"},
           {"carriage return", hex64 + "\r\n"},
           {"empty", ""},
           {"newline only", "\n"},
           {"huge", std::string(5000, 'a')}}) {
    EXPECT_FALSE(read_key_file(dir.write(name, text), k, error)) << name;
    EXPECT_NE(error.find("64 hexadecimal digits"), std::string::npos) << name << ": " << error;
    EXPECT_NE(error.find(dir.file(name)), std::string::npos) << name << " names the file: " << error;
  }
  EXPECT_FALSE(read_key_file(dir.write("huge2", std::string(5000, 'a')), k, error));
  EXPECT_NE(error.find("too long"), std::string::npos) << error;
  EXPECT_FALSE(read_key_file(dir.write("zero", std::string(64, '0')), k, error));
  EXPECT_NE(error.find("all zeros"), std::string::npos) << error;
  EXPECT_FALSE(read_key_file(dir.file("missing"), k, error));
  EXPECT_NE(error.find("cannot open"), std::string::npos) << error;
  EXPECT_NE(error.find("No such file"), std::string::npos) << "says why: " << error;
  // Docker mounts secrets world-readable: the mode is the operator's business.
  const std::string shared = dir.write("shared", hex64 + "\n");
  ASSERT_EQ(::chmod(shared.c_str(), 0444), 0);
  EXPECT_TRUE(read_key_file(shared, k, error)) << error;
}

TEST(KeyFile, DigitsDecodeInOrderWhateverTheirCase) {
  test::TempDir dir;
  std::string hex;
  Key expected{};
  for (std::size_t i = 0; i < kKeyBytes; ++i) {
    expected[i] = uint8_t(i * 8 + 3);
    const char* digits = i % 2 ? "0123456789ABCDEF" : "0123456789abcdef";
    hex += digits[expected[i] >> 4];
    hex += digits[expected[i] & 15];
  }
  Key k{};
  std::string error;
  ASSERT_TRUE(read_key_file(dir.write("mixed", hex + "\n"), k, error)) << error;
  EXPECT_EQ(k, expected);
}

TEST(DevelopmentKey, IsFixedAndNotZero) {
  const Key& a = development_key();
  const Key& b = development_key();
  EXPECT_EQ(a, b);
  EXPECT_NE(a, Key{});
  // The same bytes in every process and on every machine: BLAKE2b-256 of a fixed text, so a bot in
  // another language can compute it too.
  ASSERT_GE(sodium_init(), 0);
  const std::string text = "foothold public development key: loopback only";
  Key expected{};
  crypto_generichash(expected.data(), expected.size(), reinterpret_cast<const unsigned char*>(text.data()), text.size(),
                     nullptr, 0);
  EXPECT_EQ(a, expected);
  const ConnectToken t = mint(a, 1);
  TokenContents c;
  EXPECT_EQ(open_token(development_key(), t.sealed, kNow, c), TokenError::kNone);
}


TEST(Token, ANotBeforeTimeIsHonouredWithinTheClockSkewOnly) {
  const Key key = key_of(21);
  ConnectToken t;
  std::string error;
  ASSERT_TRUE(mint_token(key, 8, std::vector<TokenAddress>{v4(10, 0, 0, 1, 7777)}, kNow, 60, t, error, 300)) << error;
  EXPECT_EQ(t.not_before_unix, kNow + 300);
  EXPECT_EQ(t.expires_unix, kNow + 360) << "the lifetime runs from the not-before time";
  EXPECT_EQ(sealed_token_not_before(t.sealed), kNow + 300);
  TokenContents c;
  const auto at = [&](uint64_t now, uint64_t skew) { return open_token(key, t.sealed, TokenTimeRules{now, kMaxTokenLifetime, skew}, c); };
  EXPECT_EQ(at(kNow, 30), TokenError::kNotYetValid);
  EXPECT_EQ(at(kNow + 269, 30), TokenError::kNotYetValid) << "31 s early";
  EXPECT_EQ(at(kNow + 270, 30), TokenError::kNone) << "30 s early: within the skew";
  EXPECT_EQ(c.not_before_unix, kNow + 300);
  EXPECT_EQ(at(kNow + 299, 0), TokenError::kNotYetValid);
  EXPECT_EQ(at(kNow + 300, 0), TokenError::kNone);
  EXPECT_EQ(at(kNow + 360, 30), TokenError::kExpired);
  // The old overload (tools, as of a given time) judges the seal and the expiry only.
  EXPECT_EQ(open_token(key, t.sealed, kNow, c), TokenError::kNone);
  // Minting refuses a delay beyond a day.
  EXPECT_FALSE(mint_token(key, 8, std::vector<TokenAddress>{v4(10, 0, 0, 1, 7777)}, kNow, 60, t, error, kMaxTokenLifetime + 1));
  EXPECT_NE(error.find("not-before delay"), std::string::npos) << error;
}

TEST(Token, AnExpiryTooFarAheadIsRefused) {
  // Sealed by the document (a backend that ignored the day's limit): 2 days ahead.
  const Key key = key_of(22);
  const auto ok = doc::entry(4, v4(10, 0, 0, 1, 0).ip, 7777);
  const auto sealed = doc::seal(key, kNow + 2 * 86400, doc::plaintext(5, 1, {ok}, key_of(1), key_of(2)), kNow);
  TokenContents c;
  const auto at = [&](uint64_t now, uint64_t max_ahead, uint64_t skew) {
    return open_token(key, sealed, TokenTimeRules{now, max_ahead, skew}, c);
  };
  EXPECT_EQ(at(kNow, 86400, 30), TokenError::kTooFarAhead);
  EXPECT_EQ(at(kNow + 86400 - 31, 86400, 30), TokenError::kTooFarAhead) << "86431 s ahead";
  EXPECT_EQ(at(kNow + 86400 - 30, 86400, 30), TokenError::kNone) << "86430 s ahead: the maximum and the skew";
  EXPECT_EQ(at(kNow, 2 * 86400, 0), TokenError::kNone) << "a configured maximum of two days";
}

TEST(Token, TimesAtTheEdgesOfTheirRangeAreRefusedCleanly) {
  const Key key = key_of(23);
  const auto ok = doc::entry(4, v4(10, 0, 0, 1, 0).ip, 7777);
  const auto plain = doc::plaintext(5, 1, {ok}, key_of(1), key_of(2));
  TokenContents c;
  const uint64_t max = ~uint64_t(0);
  EXPECT_EQ(open_token(key, doc::seal(key, max, plain, kNow), TokenTimeRules{kNow, max, max}, c), TokenError::kNone)
      << "limits that would overflow are saturated";
  EXPECT_EQ(open_token(key, doc::seal(key, max, plain, kNow), TokenTimeRules{kNow, 86400, 30}, c), TokenError::kTooFarAhead);
  EXPECT_EQ(open_token(key, doc::seal(key, kNow + 60, plain, max), TokenTimeRules{kNow, 86400, 30}, c),
            TokenError::kNotYetValid);
  EXPECT_EQ(open_token(key, doc::seal(key, kNow + 60, plain, max), TokenTimeRules{kNow, 86400, max}, c), TokenError::kNone);
  EXPECT_EQ(open_token(key, doc::seal(key, kNow + 60, plain, kNow), TokenTimeRules{max, 86400, 30}, c), TokenError::kExpired);
  // Altering either time breaks the seal (both are its additional data).
  for (std::size_t byte : {4u, 12u}) {
    auto altered = doc::seal(key, kNow + 60, plain, kNow);
    altered[byte] ^= 1;
    EXPECT_EQ(open_token(key, altered, TokenTimeRules{kNow, 86400, 30}, c), TokenError::kBadSeal) << byte;
  }
  // A sealed part of the first format is refused before anything else.
  auto old = doc::seal(key, kNow + 60, plain, kNow);
  old[3] = '1';
  EXPECT_EQ(open_token(key, old, TokenTimeRules{kNow, 86400, 30}, c), TokenError::kMalformed);
}

}  // namespace

}  // namespace foothold::proto
