#include "server/cookie.h"

#include "proto/cookie_layout.h"

#include <cstring>

#include <sodium.h>

namespace foothold::server {

using proto::get_u64;
using proto::put_u64;

CookieJar::CookieJar() {
  if (sodium_init() < 0) throw std::runtime_error("libsodium failed to initialise");
  randombytes_buf(key_.data(), key_.size());
}

std::array<uint8_t, 16> CookieJar::mac(uint64_t issued, uint64_t server_salt, const proto::Endpoint& client,
                                       uint64_t client_salt, std::span<const uint8_t> token) const {
  // BLAKE2b keyed with the jar's key over: issued (8) | server salt (8) | family (1) | address (16) |
  // port (2) | client salt (8) | protocol version (2) | the token's bytes.
  uint8_t head[45] = {};
  put_u64(head, issued);
  put_u64(head + 8, server_salt);
  const auto a = client.address();
  if (a.is_v4()) {
    head[16] = 4;
    const auto b = a.to_v4().to_bytes();
    std::memcpy(head + 17, b.data(), b.size());
  } else {
    head[16] = 6;
    const auto b = a.to_v6().to_bytes();
    std::memcpy(head + 17, b.data(), b.size());
  }
  head[33] = uint8_t(client.port());
  head[34] = uint8_t(client.port() >> 8);
  put_u64(head + 35, client_salt);
  head[43] = uint8_t(proto::kProtocolVersion);
  head[44] = uint8_t(proto::kProtocolVersion >> 8);
  crypto_generichash_state state;
  std::array<uint8_t, 16> out{};
  crypto_generichash_init(&state, key_.data(), key_.size(), out.size());
  crypto_generichash_update(&state, head, sizeof head);
  crypto_generichash_update(&state, token.data(), token.size());
  crypto_generichash_final(&state, out.data(), out.size());
  return out;
}

CookieJar::Cookie CookieJar::issue(const proto::Endpoint& client, uint64_t client_salt, std::span<const uint8_t> token,
                                   uint64_t server_salt, proto::Nanos now) const {
  return proto::write_cookie({uint64_t(now), server_salt, mac(uint64_t(now), server_salt, client, client_salt, token)});
}

bool CookieJar::valid(std::span<const uint8_t> cookie, const proto::Endpoint& client, uint64_t client_salt,
                      std::span<const uint8_t> token, proto::Nanos now, uint64_t& server_salt) const {
  proto::CookieFields f;
  if (!proto::read_cookie(cookie, f)) return false;
  // The issue time comes from the wire: compare without signed arithmetic that it could overflow.
  if (now < 0 || f.issued > uint64_t(now) || uint64_t(now) - f.issued > uint64_t(kLifetime)) return false;
  const auto expected = mac(f.issued, f.server_salt, client, client_salt, token);
  if (sodium_memcmp(expected.data(), f.mac.data(), expected.size()) != 0) return false;
  server_salt = f.server_salt;
  return true;
}

}  // namespace foothold::server
