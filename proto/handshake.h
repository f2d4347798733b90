#pragma once
// The client's side of the last handshake step, in one place for every client (the session, the
// bots, the test and load tools that speak the protocol by hand): an Accept is a sealed reply bound
// to the client's Connect, and it carries the server's share of the session keys.

#include <cstdint>
#include <span>

#include "proto/codec.h"
#include "proto/secure.h"
#include "proto/token.h"

namespace foothold::proto {

/// One connection attempt as the client knows it once it has sent its Connect.
struct ConnectAttempt {
  uint64_t client_salt = 0;
  uint64_t server_salt = 0;  ///< from the cookie (bytes 8 to 15)
  RequestTag connect{};      ///< request_tag() of the Connect's proof
};

/// The attempt for `cookie` (kCookieSize bytes) and `proof`.
ConnectAttempt connect_attempt(uint64_t client_salt, std::span<const uint8_t> cookie, std::span<const uint8_t> proof);

/// The session keys an Accept to `attempt` gives (its server random and the attempt's salts and
/// proof, under the token's keys); false, with `keys` untouched, when the Accept lacks the server's
/// 32 random bytes.
bool accept_keys(const ConnectToken& token, const ConnectAttempt& attempt, const proto::fb::Accept& accept,
                 SessionKeys& keys);

/// Opens `datagram` as the Accept that answers `attempt` under `token`'s key and derives the session
/// keys into `keys`. Returns the Accept (in `rx`), or nullptr, with `keys` untouched, when the
/// datagram is not that: another layer or salt, a reply to another request, not an Accept, or an
/// Accept without the server's 32 random bytes.
const proto::fb::Accept* open_accept(const ConnectToken& token, const ConnectAttempt& attempt,
                                std::span<const uint8_t> datagram, DatagramBuffer& rx, SessionKeys& keys);

}  // namespace foothold::proto
