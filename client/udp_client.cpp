#include "client/udp_client.h"

#include <asio/io_context.hpp>
#include <asio/ip/udp.hpp>

#include "proto/endpoint.h"

namespace foothold::client {

bool parse_address(const std::string& text, proto::TokenAddress& out, std::string& error) {
  const proto::Endpoint e = proto::parse_endpoint(text, error);
  if (!error.empty()) return false;
  if (e.port() == 0) {
    error = "'" + text + "': port 0 is no server's port";
    return false;
  }
  out = proto::to_token_address(e);
  return true;
}

std::string to_string(const proto::TokenAddress& address) { return proto::to_string(proto::from_token_address(address)); }

struct UdpClient::Socket {
  asio::io_context io;
  asio::ip::udp::socket socket{io};
  // One byte more than the largest valid datagram would do; 2048 keeps it 8-byte aligned.
  alignas(8) uint8_t buffer[2048];
};

// Sends on the connected socket. A datagram the kernel refuses (a full buffer) is lost, as the
// network may lose it: the session's redundancy covers it.
class UdpClient::Sink final : public ServerSink {
 public:
  explicit Sink(asio::ip::udp::socket& socket) : socket_(socket) {}
  void send(std::span<const uint8_t> bytes) override {
    asio::error_code ignored;
    socket_.send(asio::buffer(bytes.data(), bytes.size()), 0, ignored);
  }

 private:
  asio::ip::udp::socket& socket_;
};

UdpClient::UdpClient(const World& world, const MoveSettings& settings, const proto::ConnectToken& token,
                     const proto::TokenAddress& server, const SessionOptions& options)
    : socket_(std::make_unique<Socket>()) {
  const proto::Endpoint to = proto::from_token_address(server);
  asio::error_code ec;
  socket_->socket.open(to.protocol(), ec);
  if (!ec) socket_->socket.bind(proto::Endpoint(to.protocol(), 0), ec);
  if (!ec) socket_->socket.connect(to, ec);
  if (!ec) socket_->socket.non_blocking(true, ec);
  if (ec) {
    error_ = "cannot open a UDP socket to " + proto::to_string(to) + ": " + ec.message();
    return;
  }
  sink_ = std::make_unique<Sink>(socket_->socket);
  session_ = std::make_unique<ClientSession>(world, settings, *sink_, token, options);
  session_->set_server_name(proto::to_string(to));
}

UdpClient::~UdpClient() = default;

proto::Nanos UdpClient::poll(proto::Nanos now, InputSource& source) {
  if (session_->phase() == ClientSession::Phase::kIdle) session_->start(now);
  for (int i = 0; i < 256; ++i) {
    asio::error_code error;
    const std::size_t n = socket_->socket.receive(asio::buffer(socket_->buffer, sizeof socket_->buffer), 0, error);
    if (error == asio::error::would_block || error == asio::error::try_again) break;
    if (error == asio::error::connection_refused) {
      // An ICMP "port unreachable" reported on this receive: nothing listens there (said if the
      // handshake then times out).
      session_->on_unreachable();
      continue;
    }
    if (error) continue;  // not a datagram
    session_->on_datagram(now, std::span<const uint8_t>(socket_->buffer, n));
  }
  return session_->update(now, source);
}

}  // namespace foothold::client
