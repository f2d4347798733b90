#include "proto/handshake.h"

#include <algorithm>

#include "proto/cookie_layout.h"

namespace foothold::proto {

ConnectAttempt connect_attempt(uint64_t client_salt, std::span<const uint8_t> cookie, std::span<const uint8_t> proof) {
  CookieFields f;
  read_cookie(cookie, f);  // a cookie of another size (never accepted from a Challenge) leaves the salt 0
  return {client_salt, f.server_salt, request_tag(proof)};
}

bool accept_keys(const ConnectToken& token, const ConnectAttempt& attempt, const proto::fb::Accept& accept,
                 SessionKeys& keys) {
  if (!accept.server_random() || accept.server_random()->size() != kServerRandomBytes) return false;
  KeyInputs inputs{attempt.client_salt, attempt.server_salt, attempt.connect, {}};
  std::copy(accept.server_random()->begin(), accept.server_random()->end(), inputs.server_random.begin());
  keys = client_session_keys(token.client_to_server, token.server_to_client, inputs);
  return true;
}

const proto::fb::Accept* open_accept(const ConnectToken& token, const ConnectAttempt& attempt,
                                std::span<const uint8_t> datagram, DatagramBuffer& rx, SessionKeys& keys) {
  std::span<const uint8_t> packet;
  if (sealed_reply_salt(datagram) != attempt.client_salt ||
      open_reply(token.server_to_client, attempt.connect, datagram, rx, packet) != OpenError::kNone)
    return nullptr;
  const DecodeResult d = decode(packet, Direction::kToClient, Layer::kSealed);
  if (!d.ok() || d.message.type != proto::fb::Body::Accept) return nullptr;
  const proto::fb::Accept* a = d.message.packet->body_as_Accept();
  return accept_keys(token, attempt, *a, keys) ? a : nullptr;
}

}  // namespace foothold::proto
