#include "proto/endpoint.h"

#include <charconv>

#include "proto/asio.h"

namespace foothold::proto {

std::size_t EndpointHash::operator()(const Endpoint& e) const noexcept {
  std::size_t h = std::hash<unsigned short>()(e.port());
  const auto a = e.address();
  if (a.is_v4()) {
    h ^= std::hash<uint32_t>()(a.to_v4().to_uint()) * 0x9e3779b97f4a7c15ull;
  } else {
    const auto b = a.to_v6().to_bytes();
    for (unsigned char c : b) h = h * 131 + c;
  }
  return h;
}

Endpoint parse_endpoint(const std::string& text, std::string& error) {
  error.clear();
  std::string host, port;
  if (!text.empty() && text[0] == '[') {
    const auto close = text.find(']');
    if (close == std::string::npos || close + 1 >= text.size() || text[close + 1] != ':') {
      error = "'" + text + "' is not [IPV6]:PORT";
      return {};
    }
    host = text.substr(1, close - 1);
    port = text.substr(close + 2);
  } else {
    const auto colon = text.rfind(':');
    if (colon == std::string::npos) {
      error = "'" + text + "' is not HOST:PORT";
      return {};
    }
    host = text.substr(0, colon);
    port = text.substr(colon + 1);
  }
  if (host == "localhost") host = "127.0.0.1";
  unsigned value = 0;
  const auto [p, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
  if (ec != std::errc() || p != port.data() + port.size() || value > 65535) {
    error = "port '" + port + "' is not a number in 0..65535";
    return {};
  }
  asio::error_code aec;
  const auto address = asio::ip::make_address(host, aec);
  if (!aec) return {address, static_cast<unsigned short>(value)};
  // A host name (e.g. a compose service): resolve it, preferring IPv4.
  asio::io_context io;
  asio::ip::udp::resolver resolver(io);
  const auto results = resolver.resolve(host, port, aec);
  if (aec || results.empty()) {
    error = "'" + host + "' is neither an IP address nor a host name that resolves";
    return {};
  }
  for (const auto& r : results)
    if (r.endpoint().address().is_v4()) return r.endpoint();
  return results.begin()->endpoint();
}

std::string to_string(const Endpoint& e) {
  const auto a = e.address();
  // Appended piece by piece: GCC 12's -Wrestrict misfires on chained operator+ here.
  std::string out;
  if (a.is_v6()) out += '[';
  out += a.to_string();
  if (a.is_v6()) out += ']';
  out += ':';
  out += std::to_string(e.port());
  return out;
}

proto::TokenAddress to_token_address(const Endpoint& e) {
  proto::TokenAddress t;
  t.port = e.port();
  auto a = e.address();
  if (a.is_v6() && a.to_v6().is_v4_mapped()) a = asio::ip::make_address_v4(asio::ip::v4_mapped, a.to_v6());
  if (a.is_v4()) {
    const auto b = a.to_v4().to_bytes();
    std::copy(b.begin(), b.end(), t.ip.begin());
  } else {
    t.v6 = true;
    const auto b = a.to_v6().to_bytes();
    std::copy(b.begin(), b.end(), t.ip.begin());
  }
  return t;
}

Endpoint from_token_address(const proto::TokenAddress& t) {
  if (!t.v6) return {asio::ip::address_v4({t.ip[0], t.ip[1], t.ip[2], t.ip[3]}), t.port};
  asio::ip::address_v6::bytes_type b{};
  std::copy(t.ip.begin(), t.ip.end(), b.begin());
  return {asio::ip::address_v6(b), t.port};
}

}  // namespace foothold::proto
