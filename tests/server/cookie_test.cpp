// Stateless address cookies (server/cookie.h): valid only for the address, port, salt and token they
// were issued for, by this jar, within their lifetime.

#include <gtest/gtest.h>

#include "proto/cookie_layout.h"
#include "server/cookie.h"

namespace foothold::server {
namespace {

proto::Key key_of(uint8_t seed) {
  proto::Key k{};
  for (std::size_t i = 0; i < k.size(); ++i) k[i] = uint8_t(seed + 7 * i);
  return k;
}

struct Fixture {
  CookieJar jar{key_of(1)};
  proto::Endpoint client{asio::ip::make_address("192.0.2.10"), 40000};
  std::vector<uint8_t> token = std::vector<uint8_t>(64, 0x5a);
  uint64_t client_salt = 0x1122334455667788ull;
  uint64_t server_salt = 0x99aabbccddeeff00ull;
  proto::Nanos issued_at = 1000 * proto::kSecond;
  CookieJar::Cookie cookie = jar.issue(client, client_salt, token, server_salt, issued_at);
  bool valid(const CookieJar& j, const proto::Endpoint& from, uint64_t salt, const std::vector<uint8_t>& tok,
             proto::Nanos now, std::span<const uint8_t> c) const {
    uint64_t carried = 0;
    const bool ok = j.valid(c, from, salt, tok, now, carried);
    if (ok) {
      EXPECT_EQ(carried, server_salt);
    }
    return ok;
  }
};

TEST(Cookie, ValidForItsClientWithinItsLifetimeAndCarriesTheServerSalt) {
  Fixture f;
  EXPECT_TRUE(f.valid(f.jar, f.client, f.client_salt, f.token, f.issued_at, f.cookie));
  EXPECT_TRUE(f.valid(f.jar, f.client, f.client_salt, f.token, f.issued_at + CookieJar::kLifetime, f.cookie));
  EXPECT_FALSE(f.valid(f.jar, f.client, f.client_salt, f.token, f.issued_at + CookieJar::kLifetime + 1, f.cookie));
  EXPECT_FALSE(f.valid(f.jar, f.client, f.client_salt, f.token, f.issued_at - 1, f.cookie)) << "issued in the future";
}

TEST(Cookie, BoundToAddressPortSaltTokenAndJar) {
  Fixture f;
  const proto::Nanos now = f.issued_at + proto::kSecond;
  EXPECT_FALSE(f.valid(f.jar, {asio::ip::make_address("192.0.2.11"), 40000}, f.client_salt, f.token, now, f.cookie));
  EXPECT_FALSE(f.valid(f.jar, {asio::ip::make_address("192.0.2.10"), 40001}, f.client_salt, f.token, now, f.cookie));
  EXPECT_FALSE(f.valid(f.jar, {asio::ip::make_address("::ffff:192.0.2.10"), 40000}, f.client_salt, f.token, now, f.cookie));
  EXPECT_FALSE(f.valid(f.jar, f.client, f.client_salt + 1, f.token, now, f.cookie));
  auto other_token = f.token;
  other_token[63] ^= 1;
  EXPECT_FALSE(f.valid(f.jar, f.client, f.client_salt, other_token, now, f.cookie));
  EXPECT_FALSE(f.valid(CookieJar(key_of(2)), f.client, f.client_salt, f.token, now, f.cookie)) << "another jar's key";
}

TEST(Cookie, AnyAlteredByteOrLengthIsRefused) {
  Fixture f;
  const proto::Nanos now = f.issued_at + proto::kSecond;
  for (std::size_t i = 0; i < f.cookie.size(); ++i) {
    auto bad = f.cookie;
    bad[i] ^= 0x40;
    EXPECT_FALSE(f.valid(f.jar, f.client, f.client_salt, f.token, now, bad)) << "byte " << i;
  }
  EXPECT_FALSE(f.valid(f.jar, f.client, f.client_salt, f.token, now, std::span(f.cookie).first(f.cookie.size() - 1)));
  // An issue time from the far future or the far past (attacker-chosen) never overflows into validity.
  auto far = f.cookie;
  for (int i = 0; i < 8; ++i) far[size_t(i)] = 0xff;
  EXPECT_FALSE(f.valid(f.jar, f.client, f.client_salt, f.token, now, far));
  EXPECT_FALSE(f.valid(f.jar, f.client, f.client_salt, f.token, -1, f.cookie));
}

}  // namespace
TEST(CookieLayout, FieldsRoundTripAtTheirDocumentedOffsetsAndOtherSizesAreRefused) {
  proto::CookieFields f{0x0102030405060708ull, 0x1112131415161718ull, {}};
  for (std::size_t i = 0; i < f.mac.size(); ++i) f.mac[i] = uint8_t(0xa0 + i);
  const auto b = proto::write_cookie(f);
  EXPECT_EQ(b[0], 0x08) << "issued, little-endian, first";
  EXPECT_EQ(b[8], 0x18) << "then the server salt";
  EXPECT_EQ(b[16], 0xa0) << "then the MAC";
  proto::CookieFields back;
  ASSERT_TRUE(proto::read_cookie(b, back));
  EXPECT_EQ(back.issued, f.issued);
  EXPECT_EQ(back.server_salt, f.server_salt);
  EXPECT_EQ(back.mac, f.mac);
  proto::CookieFields untouched{7, 8, {}};
  EXPECT_FALSE(proto::read_cookie(std::span<const uint8_t>(b.data(), b.size() - 1), untouched));
  EXPECT_EQ(untouched.issued, 7u);
  // What the jar issues reads back with the salt it was given.
  const CookieJar jar(CookieJar::Key{1});
  const proto::Endpoint client(asio::ip::make_address("10.1.2.3"), 4000);
  const std::array<uint8_t, 4> token{1, 2, 3, 4};
  ASSERT_TRUE(proto::read_cookie(jar.issue(client, 9, token, 0xabcdef, 5 * proto::kSecond), back));
  EXPECT_EQ(back.server_salt, 0xabcdefu);
  EXPECT_EQ(back.issued, uint64_t(5 * proto::kSecond));
}

}  // namespace foothold::server
