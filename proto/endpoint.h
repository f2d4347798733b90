#pragma once
// UDP endpoints as Asio names them, their text form, and their conversion to and from the addresses
// connect tokens carry; and the server's place to send datagrams (its UDP socket, or the tests'
// simulated network). For our tools and drivers only: Asio's header is not installed with the client
// SDK, whose own headers name servers by proto::TokenAddress.

#include <cstdint>
#include <functional>
#include <span>
#include <string>

#include "proto/asio.h"

#include "proto/clock.h"
#include "proto/token.h"

namespace foothold::proto {

/// A UDP endpoint: an IPv4 or IPv6 address and a port.
using Endpoint = asio::ip::udp::endpoint;

/// Where outgoing datagrams go: a real socket (UdpSink), the simulated network, or an impairing wrapper.
class DatagramSink {
 public:
  virtual ~DatagramSink() = default;
  /// Sends one datagram (fire and forget: a full socket buffer drops it, as the network may).
  /// `bytes` need only stay valid during the call: a sink that keeps them copies them.
  virtual void send(const Endpoint& to, std::span<const uint8_t> bytes) = 0;
};

/// A hash of an endpoint, for lookups (never for iteration order).
struct EndpointHash {
  /// Hashes the address and port.
  std::size_t operator()(const Endpoint& e) const noexcept;
};

/// "HOST:PORT" (or "[v6]:PORT") to an endpoint; HOST is an address or a name to resolve.
/// `error` is empty on success. "localhost" means 127.0.0.1; a host name is resolved here (a
/// blocking DNS lookup), preferring an IPv4 address.
Endpoint parse_endpoint(const std::string& text, std::string& error);
/// "a.b.c.d:PORT" or "[v6]:PORT".
std::string to_string(const Endpoint& e);

/// An endpoint as connect tokens name it, and back. An IPv4 address mapped into IPv6
/// (::ffff:a.b.c.d, as a dual-stack socket reports IPv4 peers) is named as the IPv4 address.
proto::TokenAddress to_token_address(const Endpoint& e);
/// The endpoint a token's address names.
Endpoint from_token_address(const proto::TokenAddress& a);

}  // namespace foothold::proto
