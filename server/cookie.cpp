#include "server/cookie.h"

#include <cstring>
#include <stdexcept>

namespace foothold::server {

namespace {
void ensure_sodium() {
  if (sodium_init() < 0) throw std::runtime_error("libsodium failed to initialise");
}
void put_u64(uint8_t* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = uint8_t(v >> (8 * i));
}
uint64_t get_u64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= uint64_t(p[i]) << (8 * i);
  return v;
}
}  // namespace

CookieJar::CookieJar() {
  ensure_sodium();
  crypto_auth_hmacsha256_keygen(key_.data());
}

void CookieJar::mac(uint64_t issued, const net::Endpoint& client, uint64_t nonce,
                    uint8_t out[crypto_auth_hmacsha256_BYTES]) const {
  // issued (8) | address family (1) | address (16) | port (2) | nonce (8) | protocol version (2)
  uint8_t msg[37] = {};
  put_u64(msg, issued);
  const auto a = client.address();
  if (a.is_v4()) {
    msg[8] = 4;
    const auto b = a.to_v4().to_bytes();
    std::memcpy(msg + 9, b.data(), b.size());
  } else {
    msg[8] = 6;
    const auto b = a.to_v6().to_bytes();
    std::memcpy(msg + 9, b.data(), b.size());
  }
  msg[25] = uint8_t(client.port());
  msg[26] = uint8_t(client.port() >> 8);
  put_u64(msg + 27, nonce);
  msg[35] = uint8_t(proto::kProtocolVersion);
  msg[36] = uint8_t(proto::kProtocolVersion >> 8);
  crypto_auth_hmacsha256(out, msg, sizeof msg, key_.data());
}

CookieJar::Cookie CookieJar::issue(const net::Endpoint& client, uint64_t nonce, net::Nanos now) const {
  Cookie c{};
  put_u64(c.data(), uint64_t(now));
  mac(uint64_t(now), client, nonce, c.data() + 8);
  return c;
}

bool CookieJar::valid(std::span<const uint8_t> cookie, const net::Endpoint& client, uint64_t nonce, net::Nanos now) const {
  if (cookie.size() != proto::kCookieSize) return false;
  const uint64_t issued = get_u64(cookie.data());
  // The issue time comes from the wire: compare without signed arithmetic that it could overflow.
  if (now < 0 || issued > uint64_t(now) || uint64_t(now) - issued > uint64_t(kLifetime)) return false;
  uint8_t expected[crypto_auth_hmacsha256_BYTES];
  mac(issued, client, nonce, expected);
  return sodium_memcmp(expected, cookie.data() + 8, sizeof expected) == 0;
}

uint64_t random_u64() {
  ensure_sodium();
  uint64_t v;
  randombytes_buf(&v, sizeof v);
  return v;
}

}  // namespace foothold::server
