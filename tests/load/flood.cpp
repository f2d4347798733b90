// foothold-flood: hostile traffic for load measurements (not a test): one real client sending
// InputBatches far faster than allowed, and a stream of spoofed hellos from many loopback addresses.
//
//   foothold-flood --server 127.0.0.1:PORT [--input-rate PPS] [--hello-rate PPS] [--duration S]
//
// The spoofed hellos come from 127.1.x.y addresses (any 127/8 address is loopback on Linux), as an
// attacker forging source addresses would send them; their replies go nowhere useful.

#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>
#include <asio/io_context.hpp>
#include <asio/ip/udp.hpp>

#include "proto/codec.h"
#include "server/cookie.h"
#include "server/udp_server.h"
#include "shared/settings.h"
#include "shared/world.h"

using namespace foothold;

int main(int argc, char** argv) {
  CLI::App app{"foothold-flood: a client over its packet rate and a spoofed-hello flood, for load measurements"};
  std::string server_text;
  double input_rate = 4800, hello_rate = 10000, duration = 10;
  app.add_option("--server", server_text, "HOST:PORT")->required();
  app.add_option("--input-rate", input_rate, "InputBatch packets per second from one connected client (default 4800)");
  app.add_option("--hello-rate", hello_rate, "spoofed hellos per second (default 10000)");
  app.add_option("--duration", duration, "seconds (default 10)");
  CLI11_PARSE(app, argc, argv);
  std::string err;
  const net::Endpoint server = net::parse_endpoint(server_text, err);
  if (!err.empty()) {
    std::fprintf(stderr, "foothold-flood: %s\n", err.c_str());
    return 2;
  }
  asio::io_context io;
  proto::PacketWriter w;
  const auto arena = load_world("arena");

  // The client: a real handshake, then far too many packets.
  asio::ip::udp::socket client(io);
  client.open(asio::ip::udp::v4());
  client.bind(net::Endpoint(asio::ip::make_address("127.0.0.1"), 0));
  client.non_blocking(true);
  server::UdpSink client_sink(client);
  uint64_t session = 0;
  uint32_t tick = 0;
  const uint64_t nonce = server::random_u64();
  std::vector<uint8_t> cookie;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(3);
  while (session == 0 && std::chrono::steady_clock::now() < deadline) {
    client_sink.send(server, cookie.empty() ? w.hello(nonce) : w.connect(nonce, cookie, arena.world->hash(), MoveSettings{}.hash()));
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    server::drain_socket(client, 64, [&](const net::Endpoint&, std::span<const uint8_t> b) {
      const auto d = proto::decode(b, proto::Direction::kToClient);
      if (!d.ok()) return;
      if (d.message.type == wire::Body::Challenge) {
        const auto c = proto::bytes_of(d.message.packet->body_as_Challenge()->cookie());
        cookie.assign(c.begin(), c.end());
      } else if (d.message.type == wire::Body::Accept) {
        session = d.message.packet->body_as_Accept()->session();
        tick = d.message.packet->body_as_Accept()->tick();
      }
    });
  }
  if (session == 0) {
    std::fprintf(stderr, "foothold-flood: could not connect to %s\n", server_text.c_str());
    return 1;
  }

  // Spoofed senders: 256 loopback addresses.
  std::vector<std::unique_ptr<asio::ip::udp::socket>> spoofers;
  for (int i = 0; i < 256; ++i) {
    auto s = std::make_unique<asio::ip::udp::socket>(io);
    s->open(asio::ip::udp::v4());
    s->bind(net::Endpoint(asio::ip::make_address_v4(0x7f010000u + uint32_t(i) + 1), 0));
    s->set_option(asio::socket_base::receive_buffer_size(4096));
    s->non_blocking(true);
    spoofers.push_back(std::move(s));
  }
  const auto hello = w.hello(1);
  const std::vector<uint8_t> hello_bytes(hello.begin(), hello.end());

  const auto t0 = std::chrono::steady_clock::now();
  uint64_t inputs_sent = 0, hellos_sent = 0, sequence = 0;
  while (true) {
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (elapsed >= duration) break;
    while (inputs_sent < uint64_t(elapsed * input_rate)) {
      const InputCmd in = encode_move(1, 0, 0, ++tick);
      client_sink.send(server, w.input_batch(session, uint32_t(++sequence), 0, 0, std::span<const InputCmd>(&in, 1)));
      ++inputs_sent;
    }
    while (hellos_sent < uint64_t(elapsed * hello_rate)) {
      asio::error_code ec;
      spoofers[hellos_sent % spoofers.size()]->send_to(asio::buffer(hello_bytes), server, 0, ec);
      ++hellos_sent;
    }
    // Replies to the spoofed addresses are nobody's business: their small buffers fill and the
    // kernel drops the rest, as it would for a real spoofer. Only the client's socket is emptied.
    server::drain_socket(client, 256, [](const net::Endpoint&, std::span<const uint8_t>) {});
    std::this_thread::sleep_for(std::chrono::microseconds(500));
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("flood: %llu input packets (%.0f/s) from one client, %llu spoofed hellos (%.0f/s) in %.1f s\n",
              static_cast<unsigned long long>(inputs_sent), double(inputs_sent) / secs, static_cast<unsigned long long>(hellos_sent),
              double(hellos_sent) / secs, secs);
  return 0;
}
