#include "server/probe.h"

#include <thread>

#include <asio/io_context.hpp>
#include <asio/ip/udp.hpp>

#include "proto/codec.h"
#include "server/cookie.h"
#include "server/udp_server.h"

namespace foothold::server {

ProbeResult probe_server(const net::Endpoint& server, net::Nanos timeout) {
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
  const uint64_t nonce = random_u64();
  const net::Nanos start = steady_now();
  const net::Nanos deadline = start + timeout;
  std::vector<uint8_t> cookie;
  net::Nanos last_send = 0;
  while (steady_now() < deadline) {
    const net::Nanos now = steady_now();
    if (now - last_send > 200 * net::kMillisecond) {
      sink.send(server, cookie.empty() ? writer.hello(nonce) : writer.status_request(nonce, cookie));
      last_send = now;
    }
    bool done = false;
    drain_socket(socket, 16, [&](const net::Endpoint& from, std::span<const uint8_t> bytes) {
      if (done || from != server) return;
      const auto d = proto::decode(bytes, proto::Direction::kToClient);
      if (!d.ok()) return;
      const wire::Packet& p = *d.message.packet;
      if (d.message.type == wire::Body::Challenge && p.body_as_Challenge()->client_nonce() == nonce && cookie.empty()) {
        const auto c = proto::bytes_of(p.body_as_Challenge()->cookie());
        cookie.assign(c.begin(), c.end());
        last_send = 0;  // ask at once
      } else if (d.message.type == wire::Body::Reject && p.body_as_Reject()->client_nonce() == nonce) {
        r.error = std::string("server refused: ") + (p.body_as_Reject()->message() ? p.body_as_Reject()->message()->str() : "");
        done = true;
      } else if (d.message.type == wire::Body::Status && p.body_as_Status()->client_nonce() == nonce) {
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
  r.error = cookie.empty() ? "no answer from the server" : "no status from the server";
  return r;
}

}  // namespace foothold::server
