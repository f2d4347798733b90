// libFuzzer: datagrams arriving at a server and at a client that are connected to each other in
// process, with a real token and encrypted session. Fuzzed bytes reach every layer:
//   - as they are (the prefix byte, the seal checks, the replay window);
//   - framed in clear (the handshake decoder: tokens, cookies, proofs);
//   - sealed under the live session's keys, as a Packet or as a compact message, so that the Packet
//     decoder, the compact decoders (compact.h) and the session handlers (inputs, snapshots,
//     disconnects) see them as authentic.
// Input: the first byte picks the receiver and the layer (bits 0-2), the payload kind (bit 3) and
// the sender (bit 7); the rest is the datagram, Packet or compact message.

#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "proto/codec.h"
#include "proto/secure.h"
#include "client/session.h"
#include "server/server_core.h"
#include "shared/world.h"
#include "shared/formats/world_file.h"

namespace {

// UNIX time at the start of the server's clock in these runs (any fixed time).
constexpr uint64_t kUnixNow = 1'800'000'000;

using namespace foothold;

// Hold what was sent, to be delivered by hand: the server's datagrams, and the client's.
struct QueueSink final : proto::DatagramSink {
  std::vector<std::vector<uint8_t>> sent;
  void send(const proto::Endpoint&, std::span<const uint8_t> b) override { sent.emplace_back(b.begin(), b.end()); }
};
struct ClientQueue final : client::ServerSink {
  std::vector<std::vector<uint8_t>> sent;
  void send(std::span<const uint8_t> b) override { sent.emplace_back(b.begin(), b.end()); }
};

struct Idle final : client::InputSource {
  InputCmd next(uint32_t, const CharacterState&) override { return {}; }
};

struct Setup {
  std::unique_ptr<World> world = std::move(load_world("arena").world);
  QueueSink to_client;
  ClientQueue to_server;
  std::unique_ptr<server::ServerCore> server;
  proto::Nanos now = proto::kSecond;
  proto::Endpoint server_ep{asio::ip::make_address("10.0.0.1"), 7777};
  proto::Endpoint client_ep{asio::ip::make_address("10.0.0.2"), 5000};
  std::unique_ptr<client::ClientSession> client;
  Idle idle;
  uint64_t fuzz_sequence = uint64_t(1) << 40;  // far from the live sequences

  Setup() {
    server::CoreConfig cfg;
    cfg.handshake_rate = 1000000;
    cfg.client_packet_rate = 1000000;
    cfg.source_limits.address_rate = 1e9;
    cfg.source_limits.prefix_rate = 1e9;
    cfg.key = proto::development_key();
    cfg.addresses.push_back(proto::to_token_address(server_ep));
    cfg.unix_clock = server::virtual_unix_clock(kUnixNow, proto::kSecond);  // `now` starts at 1 s
    server = std::make_unique<server::ServerCore>(cfg, *world, MoveSettings{}, to_client, now,
                                                  std::make_unique<server::CookieJar>(server::CookieJar::Key{}));
    proto::ConnectToken token;
    std::string error;
    const auto address = proto::to_token_address(server_ep);
    proto::mint_token(cfg.key, 1, std::span(&address, 1), kUnixNow, 3600, token, error);
    client = std::make_unique<client::ClientSession>(*world, MoveSettings{}, to_server, token);
    client->start(now);
    // The handshake, delivered by hand, then a few ticks of play.
    for (int i = 0; i < 20 && client->phase() != client::ClientSession::Phase::kConnected; ++i) {
      pump();
      now += proto::kMillisecond;
      client->update(now, idle);
    }
    for (int i = 0; i < 5; ++i) {
      now += 17 * proto::kMillisecond;
      server->tick(now);
      client->update(now, idle);
      pump();
    }
  }
  void pump() {
    for (auto& b : to_server.sent) server->on_datagram(now, client_ep, b);
    to_server.sent.clear();
    for (auto& b : to_client.sent) client->on_datagram(now, b);
    to_client.sent.clear();
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // A fuzzed Disconnect ends the session: start again, so later inputs still reach the handlers.
  static std::unique_ptr<Setup> setup;
  if (!setup || setup->server->client_count() == 0 || setup->client->phase() != client::ClientSession::Phase::kConnected)
    setup = std::make_unique<Setup>();
  Setup& s = *setup;
  if (size < 1) return 0;
  const std::span<const uint8_t> body(data + 1, std::min<size_t>(size - 1, 1400));
  s.now += proto::kMillisecond;
  // Half the time from the client's own endpoint (where its session lives), else from a neighbour.
  const proto::Endpoint from = (data[0] & 0x80) ? s.client_ep : proto::Endpoint{asio::ip::make_address("10.0.0.3"), 5000};
  proto::DatagramBuffer buf;
  const auto& keys = s.client->session_keys();
  // Bit 3 seals as a compact message (inputs to the server, snapshots to the client) instead of a Packet.
  const proto::Payload payload = (data[0] & 0x08) ? proto::Payload::kCompact : proto::Payload::kPacket;
  switch (data[0] & 7) {
    case 0: s.server->on_datagram(s.now, from, body); break;
    case 1: s.server->on_datagram(s.now, from, proto::frame_clear(body, buf)); break;
    case 2: s.server->on_datagram(s.now, from, proto::seal_session(keys.send, ++s.fuzz_sequence, body, buf, payload)); break;
    case 3: s.client->on_datagram(s.now, body); break;
    case 4: s.client->on_datagram(s.now, proto::seal_session(keys.receive, ++s.fuzz_sequence, body, buf, payload)); break;
    case 5: s.client->on_datagram(s.now, proto::frame_clear(body, buf)); break;
    case 6: s.server->tick(s.now); break;
    case 7: s.client->update(s.now, s.idle); break;
  }
  s.to_client.sent.clear();
  s.to_server.sent.clear();
  return 0;
}
