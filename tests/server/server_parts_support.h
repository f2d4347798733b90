#pragma once
// The server's parts (admission, simulation, replication, the roster) built by hand, without a
// ServerCore, so that each one's own tests drive it directly: a sink that keeps what is sent, a
// fixed clock, the arena, and the same wiring the core makes.

#include <memory>
#include <utility>
#include <vector>

#include "server/admission.h"
#include "server/outbox.h"
#include "server/replication.h"
#include "server/roster.h"
#include "server/simulation.h"
#include "shared/workers/worker_pool.h"
#include "support/scenario_support.h"

namespace foothold::test {

/// Keeps every datagram sent, with where it went.
struct CaptureSink final : proto::DatagramSink {
  std::vector<std::pair<proto::Endpoint, std::vector<uint8_t>>> sent;
  void send(const proto::Endpoint& to, std::span<const uint8_t> bytes) override { sent.push_back({to, {bytes.begin(), bytes.end()}}); }
};

/// The parts, wired as ServerCore wires them, on the arena with default settings.
struct ServerParts {
  static constexpr proto::Nanos kStart = 1'000 * proto::kSecond;
  static constexpr uint64_t kUnixStart = 1'800'000'000;
  explicit ServerParts(server::CoreConfig c = {}, int threads = 1)
      : config(with_defaults(std::move(c))),
        outbox(sink, counters),
        pool(threads),
        roster(std::size_t(config.max_clients)),
        simulation(arena_world(), MoveSettings{}, pool, std::size_t(config.max_clients)),
        replication(config, MoveSettings{}.tick_rate, pool),
        admission(config, roster, simulation, replication, outbox, counters, kStart,
                  std::make_unique<server::CookieJar>(proto::Key{7})) {}

  static server::CoreConfig with_defaults(server::CoreConfig c) {
    if (!c.unix_clock) c.unix_clock = server::virtual_unix_clock(kUnixStart, kStart);
    if (c.addresses.empty()) c.addresses.push_back(proto::to_token_address(server_endpoint()));
    c.key = proto::Key{42};
    return c;
  }
  static proto::Endpoint server_endpoint() { return {asio::ip::make_address("10.0.0.1"), 4000}; }

  /// A connect token for `client_id` naming the server, valid for an hour.
  proto::ConnectToken mint(uint64_t client_id) const {
    const std::vector<proto::TokenAddress> addresses{proto::to_token_address(server_endpoint())};
    proto::ConnectToken token;
    std::string error;
    EXPECT_TRUE(proto::mint_token(config.key, client_id, addresses, kUnixStart, 3600, token, error)) << error;
    return token;
  }

  /// A client that joins with `token` from `from`, by hand: ConnectRequest, Challenge, Connect.
  /// Returns the Connect datagram sent (empty when there was no Challenge).
  std::vector<uint8_t> connect(const proto::ConnectToken& token, const proto::Endpoint& from, uint64_t salt,
                               proto::Nanos now = kStart) {
    proto::PacketWriter writer;
    proto::DatagramBuffer tx, rx;
    sink.sent.clear();
    const auto request = proto::frame_clear(writer.connect_request(token.sealed, salt), tx);
    admission.on_clear_datagram(now, from, request);
    if (sink.sent.size() != 1) return {};
    std::span<const uint8_t> packet;
    if (proto::sealed_reply_salt(sink.sent[0].second) != salt ||
        proto::open_reply(token.server_to_client, proto::kNoRequestTag, sink.sent[0].second, rx, packet) !=
        proto::OpenError::kNone)
      return {};
    const auto d = proto::decode(packet, proto::Direction::kToClient, proto::Layer::kSealed);
    if (!d.ok() || d.message.type != proto::fb::Body::Challenge) return {};
    const auto c = proto::bytes_of(d.message.packet->body_as_Challenge()->cookie());
    const std::vector<uint8_t> cookie(c.begin(), c.end());
    const auto proof = proto::seal_proof(token.client_to_server, cookie, arena_world().hash(), MoveSettings{}.hash());
    const auto connect = proto::frame_clear(writer.connect(token.sealed, salt, cookie, proof), tx);
    std::vector<uint8_t> datagram(connect.begin(), connect.end());
    sink.sent.clear();
    admission.on_clear_datagram(now, from, datagram);
    return datagram;
  }

  server::CoreConfig config;
  CaptureSink sink;
  server::Counters counters;
  server::Outbox outbox;
  WorkerPool pool;
  server::Roster roster;
  server::Simulation simulation;
  server::Replication replication;
  server::Admission admission;
};

}  // namespace foothold::test
