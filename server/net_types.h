#pragma once
// What the server and the client sessions need from a network: endpoints, a time line, and a place
// to send datagrams. The real UDP socket and the tests' simulated network both provide them.

#include <cstdint>
#include <functional>
#include <span>
#include <string>

#include <asio/ip/udp.hpp>

#include "proto/token.h"

namespace foothold::net {

using Endpoint = asio::ip::udp::endpoint;

/// Monotonic time in nanoseconds since an arbitrary origin: a real steady clock, or a test's virtual one.
using Nanos = int64_t;
inline constexpr Nanos kSecond = 1'000'000'000;
inline constexpr Nanos kMillisecond = 1'000'000;

/// Where outgoing datagrams go.
class DatagramSink {
 public:
  virtual ~DatagramSink() = default;
  /// Sends one datagram (fire and forget: a full socket buffer drops it, as the network may).
  virtual void send(const Endpoint& to, std::span<const uint8_t> bytes) = 0;
};

/// A hash of an endpoint, for lookups (never for iteration order).
struct EndpointHash {
  std::size_t operator()(const Endpoint& e) const noexcept;
};

/// "HOST:PORT" (or "[v6]:PORT") to an endpoint; HOST is an address or a name to resolve.
/// `error` is empty on success.
Endpoint parse_endpoint(const std::string& text, std::string& error);
std::string to_string(const Endpoint& e);

/// An endpoint as connect tokens name it, and back. An IPv4 address mapped into IPv6
/// (::ffff:a.b.c.d, as a dual-stack socket reports IPv4 peers) is named as the IPv4 address.
proto::TokenAddress to_token_address(const Endpoint& e);
Endpoint from_token_address(const proto::TokenAddress& a);

}  // namespace foothold::net
