// The server core and client sessions on a simulated network with virtual time: the handshake and
// its refusals, play without corrections, and every kind of bad datagram dropped and counted while
// the other clients play on undisturbed.

#include <cstring>
#include <map>
#include <memory>
#include <type_traits>

#include <array>

#include <gtest/gtest.h>

#include "support/scenario_support.h"
#include "support/raw_client.h"
#include "support/sim_harness.h"

namespace foothold::test {
namespace {

// The core and the client session keep references to the world: a temporary one does not compile.
static_assert(!std::is_constructible_v<server::ServerCore, const server::CoreConfig&, World, const MoveSettings&,
                                       proto::DatagramSink&, proto::Nanos>);
static_assert(!std::is_constructible_v<client::ClientSession, World, const MoveSettings&, client::ServerSink&,
                                       const proto::ConnectToken&>);
static_assert(std::is_constructible_v<client::ClientSession, const World&, const MoveSettings&, client::ServerSink&,
                                      const proto::ConnectToken&>);

using client::ClientSession;
using server::Counter;

constexpr proto::Nanos kS = proto::kSecond;

TEST(ServerCore, ClientsConnectAndPlayWithoutCorrections) {
  SimHarness h(arena_world(), with_clients(6));
  // Every state each client predicts, by tick.
  std::vector<std::map<uint32_t, CharacterState>> predicted(6);
  for (int i = 0; i < 6; ++i)
    h.client(i).on_predicted = [&predicted, i](uint32_t tick, const CharacterState& s) { predicted[size_t(i)][tick] = s; };
  h.start_all();
  h.run_for(3 * kS);
  expect_clean_play(h, 6);
  EXPECT_EQ(h.server().client_count(), 6u);
  EXPECT_EQ(h.server().counters().get(Counter::kInputsRepeated), 0u);
  // The server's state for each character after its current tick is exactly what that character's
  // client predicted for the same tick (the clients run ahead, so they have predicted it already).
  const uint32_t tick = h.server().current_tick();
  for (int i = 0; i < 6; ++i) {
    SCOPED_TRACE("client " + std::to_string(i));
    const auto& c = h.client(i);
    const CharacterState* server_state = h.server().character(c.character_id());
    ASSERT_NE(server_state, nullptr);
    ASSERT_GE(c.predictor().latest_tick(), tick);
    const auto it = predicted[size_t(i)].find(tick);
    ASSERT_NE(it, predicted[size_t(i)].end()) << "client " << i << " never predicted tick " << tick;
    EXPECT_EQ(it->second, *server_state);
    // And they moved: the comparison is not between two spawn states.
    EXPECT_NE(server_state->position, predicted[size_t(i)].begin()->second.position);
  }
}

TEST(ServerCore, TheTokensUserDataReachesTheSession) {
  SimHarness h(arena_world(), with_clients(0));
  h.run_for(100 * proto::kMillisecond);
  // Each raw client stays alive to the end: the network keeps delivering to its endpoint.
  std::vector<std::unique_ptr<RawClient>> raws;
  for (std::size_t size : {std::size_t(0), std::size_t(17), proto::kMaxUserData}) {
    std::vector<uint8_t> user(size);
    for (std::size_t i = 0; i < size; ++i) user[i] = uint8_t(255 - i);
    proto::ConnectToken token;
    std::string error;
    const std::vector<proto::TokenAddress> at{proto::to_token_address(SimHarness::server_endpoint())};
    ASSERT_TRUE(proto::mint_token(SimHarness::key(), 700 + size, at, h.unix_now(), 60, token, error, 0, user)) << error;
    raws.push_back(std::make_unique<RawClient>(h, int(9300 + size), token));
    ASSERT_TRUE(raws.back()->join()) << size;
    const uint32_t id = h.server().character_at(raws.back()->self);
    ASSERT_NE(id, 0u);
    const auto got = h.server().user_data(id);
    EXPECT_EQ(std::vector<uint8_t>(got.begin(), got.end()), user) << size;
  }
  EXPECT_TRUE(h.server().user_data(12345).empty()) << "no such client";
}

TEST(ServerCore, RemoteCharactersAreInterpolatedFromSnapshots) {
  SimHarness h(arena_world(), with_clients(3));
  h.start_all();
  h.run_for(2 * kS);
  const auto& c = h.client(0);
  EXPECT_EQ(c.remotes().size(), 2u) << "the two other characters";
  const uint32_t other = h.client(1).character_id();
  const auto now = c.remotes().sample(other, double(h.server().current_tick()));
  ASSERT_TRUE(now);
  const Vec3 truth = to_position(h.server().character(other)->position);
  EXPECT_LT(length(now->position - truth), 0.2) << "quantized to 1/256 m, and at most a tick old";
  EXPECT_EQ(c.stats().missing_delta_base, 0u);
}

TEST(ServerCore, GarbageFromAnyoneIsDroppedAndCountedWhileOthersPlayOn) {
  SimHarness h(arena_world(), with_clients(3));
  h.start_all();
  h.run_for(1 * kS);
  const proto::Endpoint rogue{asio::ip::make_address("10.6.6.6"), 666};
  auto& sink = h.network().sink_for(rogue);
  const proto::Endpoint server = SimHarness::server_endpoint();
  proto::PacketWriter w;
  auto before = h.server().counters();
  auto send_and_run = [&](std::span<const uint8_t> bytes) {
    std::vector<uint8_t> b(bytes.begin(), bytes.end());
    sink.send(server, b);
    h.run_for(20 * proto::kMillisecond);
  };
  auto grew = [&](Counter c) { return h.server().counters().get(c) > before.get(c); };

  proto::DatagramBuffer buf;
  auto clear = [&](std::span<const uint8_t> packet) {
    const auto d = proto::frame_clear(packet, buf);
    return std::vector<uint8_t>(d.begin(), d.end());
  };
  const auto token = h.mint(99);
  send_and_run(std::vector<uint8_t>(1500, 0xab));  // oversized
  EXPECT_TRUE(grew(Counter::kDropTooLarge));
  const auto request = clear(w.connect_request(token.sealed, 1));
  send_and_run(std::span<const uint8_t>(request).subspan(0, request.size() / 2));  // truncated
  EXPECT_TRUE(grew(Counter::kDropMalformed));
  send_and_run(std::vector<uint8_t>(300, 0x00));  // no Foothold prefix at all
  EXPECT_TRUE(grew(Counter::kDropBadProtocol));
  send_and_run(clear(w.challenge({})));  // wrong direction
  EXPECT_TRUE(grew(Counter::kDropWrongDirection));
  send_and_run(clear(w.finish(proto::fb::Body::ConnectRequest, proto::fb::CreateConnectRequest(w.builder()).Union(), 0xdeadbeef)));
  EXPECT_TRUE(grew(Counter::kDropBadProtocol));
  std::array<uint8_t, 16> no_inputs{};
  send_and_run(proto::seal_session(proto::Key{}, 1, proto::write_inputs({}, {}, no_inputs), buf, proto::Payload::kCompact));  // session traffic without a session
  EXPECT_TRUE(grew(Counter::kDropNoSession));
  w.builder().Clear();
  send_and_run(clear(w.finish(proto::fb::Body::ConnectRequest, proto::fb::CreateConnectRequest(w.builder(), 0, 5).Union())));
  EXPECT_TRUE(grew(Counter::kDropTooSmall)) << "unpadded: answering could amplify";
  EXPECT_EQ(h.server().client_count(), 3u) << "nobody was disconnected";
  h.run_for(2 * kS);
  expect_clean_play(h, 3);
}

TEST(ServerCore, SilentClientTimesOutAndCanReconnect) {
  HarnessOptions o = with_clients(2);
  o.core.client_timeout = 2 * kS;
  SimHarness h(arena_world(), o);
  h.start_all();
  h.run_for(1 * kS);
  const uint32_t first_id = h.client(1).character_id();
  h.pause_client(1, true);
  h.run_for(3 * kS);
  EXPECT_EQ(h.server().client_count(), 1u);
  EXPECT_EQ(h.server().counters().get(Counter::kTimeouts), 1u);
  EXPECT_EQ(h.client(1).phase(), ClientSession::Phase::kDisconnected) << "told it timed out";
  // The process comes back as a new session from the same address.
  h.pause_client(1, false);
  h.restart_client(1);
  h.run_for(2 * kS);
  EXPECT_EQ(h.client(1).phase(), ClientSession::Phase::kConnected);
  EXPECT_NE(h.client(1).character_id(), first_id);
  EXPECT_EQ(h.server().client_count(), 2u);
  expect_clean_play(h, 2);
}

TEST(ServerCore, ClientNoticesDisconnectFromServer) {
  HarnessOptions o = with_clients(1);
  o.core.client_timeout = 1 * kS;
  SimHarness h(arena_world(), o);
  h.start_all();
  h.run_for(1 * kS);
  // Block the client's traffic to the server only: the server times it out and says so.
  h.pause_client(0, true);
  h.run_for(2 * kS);
  h.pause_client(0, false);
  h.run_for(100 * proto::kMillisecond);
  EXPECT_EQ(h.client(0).phase(), ClientSession::Phase::kDisconnected);
  EXPECT_NE(h.client(0).reason_text().find("TimedOut"), std::string::npos) << h.client(0).reason_text();
}

TEST(ServerCore, FullServerRefusesWithAReason) {
  HarnessOptions o = with_clients(3);
  o.core.max_clients = 2;
  SimHarness h(arena_world(), o);
  h.start_all();
  h.run_for(1 * kS);
  int connected = 0, refused = 0;
  for (int i = 0; i < 3; ++i) {
    connected += h.client(i).phase() == ClientSession::Phase::kConnected;
    if (h.client(i).phase() == ClientSession::Phase::kRejected) {
      ++refused;
      EXPECT_EQ(h.client(i).reject_reason(), proto::fb::RejectReason::ServerFull);
      EXPECT_NE(h.client(i).reason_text().find("full"), std::string::npos);
    }
  }
  EXPECT_EQ(connected, 2);
  EXPECT_EQ(refused, 1);
}

TEST(ServerCore, MismatchedSettingsOrWorldAreRefusedWithAReason) {
  SimHarness h(arena_world(), with_clients(0));
  MoveSettings other;
  other.gravity = 9.81;
  auto& sink = h.network().client_sink(SimHarness::client_endpoint(7), SimHarness::server_endpoint());
  ClientSession c(arena_world(), other, sink, h.mint(77));
  h.network().attach(SimHarness::client_endpoint(7), [&](proto::Nanos t, const proto::Endpoint&, std::span<const uint8_t> b) {
    c.on_datagram(t, b);
  });
  c.start(h.now());
  h.run_for(200 * proto::kMillisecond);
  EXPECT_EQ(c.phase(), ClientSession::Phase::kRejected);
  EXPECT_EQ(c.reject_reason(), proto::fb::RejectReason::SettingsMismatch);
  EXPECT_NE(c.reason_text().find("settings"), std::string::npos) << c.reason_text();

  MeshBuilder b;
  b.floor_grid(-5, -5, 5, 5, 0, 1);
  const auto small = make_world(b.take(), "small");
  auto& sink2 = h.network().client_sink(SimHarness::client_endpoint(8), SimHarness::server_endpoint());
  ClientSession c2(*small, MoveSettings{}, sink2, h.mint(88));
  h.network().attach(SimHarness::client_endpoint(8), [&](proto::Nanos t, const proto::Endpoint&, std::span<const uint8_t> bytes) {
    c2.on_datagram(t, bytes);
  });
  c2.start(h.now());
  h.run_for(200 * proto::kMillisecond);
  EXPECT_EQ(c2.reject_reason(), proto::fb::RejectReason::WorldMismatch);
  EXPECT_EQ(h.server().client_count(), 0u);
}

TEST(ServerCore, OtherProtocolVersionIsToldSoInClear) {
  // The compatibility policy (docs/compatibility.md): a server admits its own protocol version only;
  // a client of the previous one (an old build) or of the next is told so, in clear, naming both.
  SimHarness h(arena_world(), with_clients(0));
  uint16_t port = 5002;
  for (const uint16_t version : {uint16_t(proto::kProtocolVersion - 1), uint16_t(proto::kProtocolVersion + 1)}) {
    RawClient raw(h, port++, h.mint(1));
    proto::PacketWriter w;
    // A request of that version, padded like ours.
    auto& fbb = w.builder();
    fbb.Clear();
    const std::vector<uint8_t> pad(400, 0);
    const auto body = proto::fb::CreateConnectRequest(fbb, 0, 3, fbb.CreateVector(pad)).Union();
    raw.send_clear(w.finish(proto::fb::Body::ConnectRequest, body, proto::kProtocolId, version));
    ASSERT_EQ(raw.received.size(), 1u) << "version " << version;
    EXPECT_EQ(proto::layer_of(raw.received.back()), proto::Layer::kClear) << "it cannot read our seals";
    const auto* reject = raw.clear_reply();
    ASSERT_NE(reject, nullptr);
    EXPECT_EQ(reject->body_as_Reject()->reason(), proto::fb::RejectReason::VersionMismatch);
    const std::string message = reject->body_as_Reject()->message()->str();
    EXPECT_NE(message.find("protocol version " + std::to_string(version)), std::string::npos) << message;
    EXPECT_NE(message.find(std::to_string(proto::kProtocolVersion)), std::string::npos) << message;
  }
  EXPECT_EQ(h.server().counters().get(Counter::kDropVersion), 2u);
}

TEST(ServerCore, StatusProbeAnswersHoldersOfATokenSealed) {
  SimHarness h(arena_world(), with_clients(2));
  h.start_all();
  h.run_for(1 * kS);
  RawClient raw(h, 5003, h.mint(4));
  proto::PacketWriter w;
  raw.send_clear(w.status_request(raw.token.sealed, raw.salt));
  ASSERT_EQ(raw.received.size(), 1u);
  EXPECT_LE(raw.received.back().size(), raw.last_sent_size) << "never amplify";
  const auto* packet = raw.sealed_reply();
  ASSERT_NE(packet, nullptr);
  const auto* s = packet->body_as_Status();
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->clients(), 2u);
  EXPECT_LE(h.server().current_tick() - s->tick(), 1u) << "the tick it was asked at";
  EXPECT_EQ(s->world_hash(), arena_world().hash());
  EXPECT_GE(s->uptime_ms(), 900u);
  EXPECT_EQ(h.server().client_count(), 2u) << "a probe is no session";
}

TEST(ServerCore, ShutdownTellsEveryClient) {
  SimHarness h(arena_world(), with_clients(3));
  h.start_all();
  h.run_for(1 * kS);
  h.server().shutdown(h.now());
  h.run_for(100 * proto::kMillisecond);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(h.client(i).phase(), ClientSession::Phase::kDisconnected);
    EXPECT_NE(h.client(i).reason_text().find("ServerShutdown"), std::string::npos);
  }
  EXPECT_EQ(h.server().client_count(), 0u);
}

}  // namespace
}  // namespace foothold::test
