#pragma once
// Where every datagram the server sends goes through: the sink, and the counters of what was sent.

#include <cstdint>
#include <span>

#include "proto/endpoint.h"
#include "proto/secure.h"
#include "server/client.h"
#include "server/counters.h"

namespace foothold::server {

/// What a datagram is, for the bytes-by-kind counters.
enum class Traffic : uint8_t { kSnapshot, kHandshake, kControl, kMessages };

/// Sends datagrams and counts them. Not thread-safe: the parts of the server that run on worker
/// threads seal into their own buffers and send from the calling thread.
class Outbox {
 public:
  Outbox(proto::DatagramSink& sink, Counters& counters) : sink_(sink), counters_(counters) {}
  /// Sends `bytes` to `to`, counted as `kind`.
  /// `message_bytes` of them are a message section riding along: counted as messages, not as `kind`.
  void send(const proto::Endpoint& to, std::span<const uint8_t> bytes, Traffic kind, std::size_t message_bytes = 0);
  /// Seals a Packet into the client's session (its next sequence) and sends it as control traffic.
  void send_session(Session& session, std::span<const uint8_t> packet);

 private:
  proto::DatagramSink& sink_;
  Counters& counters_;
  proto::DatagramBuffer tx_;  // the datagram being sealed
};

}  // namespace foothold::server
