#pragma once
// Stateless proof-of-address cookies. The server answers a ConnectRequest whose token opens with a
// Challenge holding a cookie that only it can make, bound to the client's address and port, its
// salt, its token and the time. A client that returns a valid cookie in Connect has proved that it
// receives datagrams at that address; the server kept nothing for it until then. The cookie also
// carries the server's salt for the session keys (secure.h), so that too needs no state.

#include <array>
#include <cstdint>
#include <span>

#include "proto/codec.h"
#include "proto/endpoint.h"

namespace foothold::server {

/// Issues and checks cookies under one secret key. Keeps no per-client state; after construction
/// every method is const.
class CookieJar {
 public:
  /// kCookieSize bytes: issue time (8, nanoseconds of the server's clock), server salt (8), MAC (16).
  using Cookie = std::array<uint8_t, proto::kCookieSize>;
  /// The jar's secret MAC key (never sent).
  using Key = proto::Key;

  /// A jar with a fresh random key (per process: cookies do not survive a restart). Throws
  /// std::runtime_error when libsodium cannot initialise.
  CookieJar();
  /// A jar with a given key (tests).
  explicit CookieJar(const Key& key) : key_(key) {}

  /// How long a cookie stays valid after it is issued, by the server's clock.
  static constexpr proto::Nanos kLifetime = 10 * proto::kSecond;

  /// A cookie for `client`'s attempt `client_salt` with `token` (its sealed part), carrying `server_salt`.
  /// `now` is the server's clock; the MAC also covers the protocol version.
  Cookie issue(const proto::Endpoint& client, uint64_t client_salt, std::span<const uint8_t> token, uint64_t server_salt,
               proto::Nanos now) const;
  /// True when `cookie` was issued by this jar for this client, salt and token within kLifetime;
  /// then `server_salt` is the salt it carries (untouched otherwise). A cookie issued after `now` is
  /// refused.
  bool valid(std::span<const uint8_t> cookie, const proto::Endpoint& client, uint64_t client_salt,
             std::span<const uint8_t> token, proto::Nanos now, uint64_t& server_salt) const;

 private:
  std::array<uint8_t, 16> mac(uint64_t issued, uint64_t server_salt, const proto::Endpoint& client, uint64_t client_salt,
                              std::span<const uint8_t> token) const;
  Key key_{};
};

}  // namespace foothold::server
