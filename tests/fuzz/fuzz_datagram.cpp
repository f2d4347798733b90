// libFuzzer: datagrams arriving at a server (with connected clients, so that session traffic reaches
// its handlers: sessions are predictable here) and at a client.
// Input: the first byte picks the receiver; the rest is the datagram.

#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "proto/codec.h"
#include "server/client_session.h"
#include "server/server_core.h"
#include "shared/world.h"

namespace {

using namespace foothold;

struct NullSink final : net::DatagramSink {
  void send(const net::Endpoint&, std::span<const uint8_t>) override {}
};

struct Setup {
  std::unique_ptr<World> world = std::move(load_world("arena").world);
  NullSink sink;
  std::unique_ptr<server::ServerCore> server;
  net::Nanos now = net::kSecond;
  net::Endpoint client_ep{asio::ip::make_address("10.0.0.2"), 5000};
  std::unique_ptr<server::ClientSession> client;
  Setup() {
    server::CoreConfig cfg;
    cfg.predictable_sessions = 1;
    cfg.handshake_rate = 1000000;
    cfg.client_packet_rate = 1000000;
    server::CookieJar::Key key{};
    server = std::make_unique<server::ServerCore>(cfg, *world, MoveSettings{}, sink, now, std::make_unique<server::CookieJar>(key));
    client = std::make_unique<server::ClientSession>(*world, MoveSettings{}, sink, client_ep, 1);
    client->start(now);
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Setup s;
  if (size < 1) return 0;
  alignas(8) static uint8_t buf[4096];
  const size_t n = std::min(size - 1, sizeof buf);
  std::memcpy(buf, data + 1, n);
  s.now += net::kMillisecond;
  const net::Endpoint from{asio::ip::make_address_v4(0x0a000000u + (data[0] >> 2)), 5000};
  switch (data[0] & 3) {
    case 0:
    case 1:
      s.server->on_datagram(s.now, from, std::span<const uint8_t>(buf, n));
      break;
    case 2:
      s.client->on_datagram(s.now, std::span<const uint8_t>(buf, n));
      break;
    case 3:
      s.server->tick(s.now);
      break;
  }
  return 0;
}
