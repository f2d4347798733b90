#include "support/raw_client.h"

#include <array>

#include "support/scenario_support.h"

namespace foothold::test {

RawClient::RawClient(SimHarness& harness, int port, const proto::ConnectToken& t)
    : RawClient(harness, proto::Endpoint(asio::ip::make_address("10.2.0.1"), uint16_t(port)), t) {}

RawClient::RawClient(SimHarness& harness, const proto::Endpoint& at, const proto::ConnectToken& t)
    : h(harness), self(at), token(t), salt(proto::random_u64()) {
  h.network().attach(self, [this](proto::Nanos, const proto::Endpoint&, std::span<const uint8_t> b) {
    received.emplace_back(b.begin(), b.end());
  });
}

void RawClient::send_raw(std::span<const uint8_t> datagram) {
  last_sent_size = datagram.size();
  h.network().sink_for(self).send(SimHarness::server_endpoint(), datagram);
  h.run_for(10 * proto::kMillisecond);
}

void RawClient::send_clear(std::span<const uint8_t> packet) { send_raw(proto::frame_clear(packet, tx_)); }

void RawClient::send_session(std::span<const uint8_t> packet) {
  send_raw(proto::seal_session(keys.send, ++sequence, packet, tx_));
}

void RawClient::send_compact(std::span<const uint8_t> message) {
  send_raw(proto::seal_session(keys.send, ++sequence, message, tx_, proto::Payload::kCompact));
}

void RawClient::send_inputs(std::span<const InputCmd> inputs, uint32_t ack, bool want_state) {
  std::array<uint8_t, proto::kMaxDatagram> message{};
  const uint32_t newest = inputs.empty() ? h.server().current_tick() : inputs.back().tick;
  send_compact(proto::write_inputs({ack, newest, want_state}, inputs, message));
}

std::optional<proto::SnapshotHeader> RawClient::last_snapshot() {
  for (auto it = received.rbegin(); it != received.rend(); ++it) {
    uint64_t s = 0;
    std::span<const uint8_t> message;
    const proto::ReplayWindow fresh;  // only to open: the session's window is left alone
    if (proto::session_payload(*it) != proto::Payload::kCompact ||
        proto::open_session(keys.receive, fresh, *it, rx_, s, message) != proto::OpenError::kNone)
      continue;
    proto::SnapshotHeader header;
    if (proto::read_snapshot_header(message, h.server().current_tick(), 1, header) == proto::SnapshotError::kNone)
      return header;
  }
  return std::nullopt;
}

const proto::fb::Packet* RawClient::sealed_reply() {
  std::span<const uint8_t> packet;
  const proto::RequestTag& answers = connecting ? attempt.connect : proto::kNoRequestTag;
  if (received.empty() || proto::sealed_reply_salt(received.back()) != salt ||
      proto::open_reply(token.server_to_client, answers, received.back(), rx_, packet) != proto::OpenError::kNone)
    return nullptr;
  const auto d = proto::decode(packet, proto::Direction::kToClient, proto::Layer::kSealed);
  return d.ok() ? d.message.packet : nullptr;
}

const proto::fb::Packet* RawClient::clear_reply() {
  if (received.empty()) return nullptr;
  const auto d = proto::decode(proto::unframe_clear(received.back(), rx_), proto::Direction::kToClient, proto::Layer::kClear);
  return d.ok() ? d.message.packet : nullptr;
}

const proto::fb::Packet* RawClient::session_packet() {
  uint64_t s = 0;
  std::span<const uint8_t> packet;
  if (received.empty() || proto::open_session(keys.receive, window, received.back(), rx_, s, packet) != proto::OpenError::kNone)
    return nullptr;
  const auto d = proto::decode(packet, proto::Direction::kToClient, proto::Layer::kSession);
  if (!d.ok()) return nullptr;
  window.mark(s);
  return d.message.packet;
}

bool RawClient::request() {
  received.clear();
  connecting = false;
  send_clear(writer.connect_request(token.sealed, salt));
  const proto::fb::Packet* p = sealed_reply();
  if (!p || p->body_type() != proto::fb::Body::Challenge) return false;
  const auto c = proto::bytes_of(p->body_as_Challenge()->cookie());
  cookie.assign(c.begin(), c.end());
  return true;
}

bool RawClient::connect(uint64_t world_hash, uint64_t settings_hash) {
  const auto proof = proto::seal_proof(token.client_to_server, cookie, world_hash, settings_hash);
  const auto datagram = proto::frame_clear(writer.connect(token.sealed, salt, cookie, proof), tx_);
  last_connect.assign(datagram.begin(), datagram.end());
  attempt = proto::connect_attempt(salt, cookie, proof);
  connecting = true;
  window = proto::ReplayWindow();
  sequence = 0;
  return resend_connect(last_connect);
}

bool RawClient::resend_connect(std::span<const uint8_t> datagram) {
  received.clear();
  send_raw(datagram);
  // A snapshot may follow the Accept within the same few milliseconds: look at each in order.
  for (const auto& d : received)
    if (proto::open_accept(token, attempt, d, rx_, keys)) return true;
  return false;
}

bool RawClient::join() { return request() && connect(arena_world().hash(), MoveSettings{}.hash()); }

}  // namespace foothold::test
