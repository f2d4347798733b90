#include "bots/probe.h"

#include <thread>

#include "proto/asio.h"

#include "proto/codec.h"
#include "proto/secure.h"
#include "proto/untrusted_text.h"
#include "proto/clock.h"

namespace foothold::bots {

ProbeResult probe_server(const proto::Endpoint& server, const proto::ConnectToken& token, proto::Nanos timeout) {
  ProbeResult r;
  asio::io_context io;
  asio::ip::udp::socket socket(io);
  try {
    socket.open(server.protocol());
    socket.bind(proto::Endpoint(server.protocol(), 0));
    socket.connect(server);  // only the server's datagrams arrive
    socket.non_blocking(true);
  } catch (const std::exception& e) {
    r.error = std::string("cannot open a socket: ") + e.what();
    return r;
  }
  proto::PacketWriter writer;
  proto::DatagramBuffer tx, rx;
  const uint64_t salt = proto::random_u64();
  const proto::Nanos start = proto::steady_now();
  const proto::Nanos deadline = start + timeout;
  proto::Nanos last_send = 0;
  std::string hint;
  while (proto::steady_now() < deadline) {
    const proto::Nanos now = proto::steady_now();
    if (now - last_send > 200 * proto::kMillisecond) {
      const auto request = proto::frame_clear(writer.status_request(token.sealed, salt), tx);
      asio::error_code ignored;  // a refused send is a lost request: the next one is 200 ms away
      socket.send(asio::buffer(request.data(), request.size()), 0, ignored);
      last_send = now;
    }
    bool done = false;
    alignas(8) uint8_t buffer[2048];
    for (int i = 0; i < 16 && !done; ++i) {
      asio::error_code error;
      const std::size_t n = socket.receive(asio::buffer(buffer, sizeof buffer), 0, error);
      if (error == asio::error::would_block || error == asio::error::try_again) break;
      if (error) continue;
      const std::span<const uint8_t> bytes(buffer, n);
      if (proto::layer_of(bytes) == proto::Layer::kClear) {
        // Unauthenticated: a hint for the error message only.
        const auto d = proto::decode(proto::unframe_clear(bytes, rx), proto::Direction::kToClient, proto::Layer::kClear);
        if (d.ok() && d.message.packet->body_as_Reject()->message())
          hint = proto::printable(d.message.packet->body_as_Reject()->message()->string_view(), proto::kMaxRejectMessage);
        continue;
      }
      std::span<const uint8_t> packet;
      if (proto::sealed_reply_salt(bytes) != salt ||
          proto::open_reply(token.server_to_client, proto::kNoRequestTag, bytes, rx, packet) != proto::OpenError::kNone)
        continue;
      const auto d = proto::decode(packet, proto::Direction::kToClient, proto::Layer::kSealed);
      if (!d.ok()) continue;
      const proto::fb::Packet& p = *d.message.packet;
      if (d.message.type == proto::fb::Body::Reject) {
        const auto* message = p.body_as_Reject()->message();
        r.error = "server refused: " + (message ? proto::printable(message->string_view(), proto::kMaxRejectMessage) : "");
        done = true;
      } else if (d.message.type == proto::fb::Body::Status) {
        const auto* s = p.body_as_Status();
        r.ok = true;
        r.tick = s->tick();
        r.clients = s->clients();
        r.max_clients = s->max_clients();
        r.uptime_ms = s->uptime_ms();
        r.world_hash = s->world_hash();
        r.settings_hash = s->settings_hash();
        r.rtt_ms = double(proto::steady_now() - start) / 1e6;
        done = true;
      }
    }
    if (done) return r;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  r.error = "no answer from the server (is the token expired, for another address, or sealed with another key?)";
  if (!hint.empty()) r.error += "; the server said (unauthenticated): " + hint;
  return r;
}

}  // namespace foothold::bots
