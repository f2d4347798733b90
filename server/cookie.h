#pragma once
// Stateless connection cookies: the server answers a Hello with a cookie that only it can make,
// bound to the client's address, port and nonce and to the time it was made. A client that returns
// a valid cookie has proved it receives datagrams at that address, and the server allocated nothing
// for it until then.

#include <array>
#include <cstdint>
#include <span>

#include <sodium.h>

#include "proto/codec.h"
#include "server/net_types.h"

namespace foothold::server {

class CookieJar {
 public:
  using Cookie = std::array<uint8_t, proto::kCookieSize>;
  using Key = std::array<uint8_t, crypto_auth_hmacsha256_KEYBYTES>;

  /// A jar with a fresh random key (per process: cookies do not survive a restart).
  CookieJar();
  /// A jar with a given key (tests).
  explicit CookieJar(const Key& key) : key_(key) {}

  /// How long a cookie stays valid.
  static constexpr net::Nanos kLifetime = 10 * net::kSecond;

  Cookie issue(const net::Endpoint& client, uint64_t nonce, net::Nanos now) const;
  /// True when `cookie` was issued by this jar for this client and nonce within kLifetime.
  bool valid(std::span<const uint8_t> cookie, const net::Endpoint& client, uint64_t nonce, net::Nanos now) const;

 private:
  void mac(uint64_t issued, const net::Endpoint& client, uint64_t nonce, uint8_t out[crypto_auth_hmacsha256_BYTES]) const;
  Key key_{};
};

/// 64 random bits from the operating system (session ids and nonces).
uint64_t random_u64();

}  // namespace foothold::server
