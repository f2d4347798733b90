#include "server/probe.h"

#include <thread>

#include <asio/io_context.hpp>
#include <asio/ip/udp.hpp>

#include "proto/codec.h"
#include "proto/secure.h"
#include "server/udp_server.h"

namespace foothold::server {

ProbeResult probe_server(const net::Endpoint& server, const proto::ConnectToken& token, net::Nanos timeout) {
  ProbeResult r;
  asio::io_context io;
  asio::ip::udp::socket socket(io);
  try {
    socket.open(server.protocol());
    socket.bind(net::Endpoint(server.protocol(), 0));
    socket.non_blocking(true);
  } catch (const std::exception& e) {
    r.error = std::string("cannot open a socket: ") + e.what();
    return r;
  }
  UdpSink sink(socket);
  proto::PacketWriter writer;
  proto::DatagramBuffer tx, rx;
  const uint64_t salt = proto::random_u64();
  const net::Nanos start = steady_now();
  const net::Nanos deadline = start + timeout;
  net::Nanos last_send = 0;
  std::string hint;
  while (steady_now() < deadline) {
    const net::Nanos now = steady_now();
    if (now - last_send > 200 * net::kMillisecond) {
      sink.send(server, proto::frame_clear(writer.status_request(token.sealed, salt), tx));
      last_send = now;
    }
    bool done = false;
    drain_socket(socket, 16, [&](const net::Endpoint& from, std::span<const uint8_t> bytes) {
      if (done || from != server) return;
      if (proto::layer_of(bytes) == proto::Layer::kClear) {
        // Unauthenticated: a hint for the error message only.
        const auto d = proto::decode(proto::unframe_clear(bytes, rx), proto::Direction::kToClient, proto::Layer::kClear);
        if (d.ok() && d.message.packet->body_as_Reject()->message())
          hint = d.message.packet->body_as_Reject()->message()->str().substr(0, proto::kMaxRejectMessage);
        return;
      }
      std::span<const uint8_t> packet;
      if (proto::sealed_reply_salt(bytes) != salt ||
          proto::open_reply(token.server_to_client, bytes, rx, packet) != proto::OpenError::kNone)
        return;
      const auto d = proto::decode(packet, proto::Direction::kToClient, proto::Layer::kSealed);
      if (!d.ok()) return;
      const wire::Packet& p = *d.message.packet;
      if (d.message.type == wire::Body::Reject) {
        r.error = std::string("server refused: ") + (p.body_as_Reject()->message() ? p.body_as_Reject()->message()->str() : "");
        done = true;
      } else if (d.message.type == wire::Body::Status) {
        const auto* s = p.body_as_Status();
        r.ok = true;
        r.tick = s->tick();
        r.clients = s->clients();
        r.max_clients = s->max_clients();
        r.uptime_ms = s->uptime_ms();
        r.world_hash = s->world_hash();
        r.settings_hash = s->settings_hash();
        r.rtt_ms = double(steady_now() - start) / 1e6;
        done = true;
      }
    });
    if (done) return r;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  r.error = "no answer from the server (is the token expired, for another address, or sealed with another key?)";
  if (!hint.empty()) r.error += "; the server said (unauthenticated): " + hint;
  return r;
}

}  // namespace foothold::server
