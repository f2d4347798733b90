#include "server/outbox.h"

namespace foothold::server {

void Outbox::send(const proto::Endpoint& to, std::span<const uint8_t> bytes, Traffic kind, std::size_t message_bytes) {
  counters_.add(Counter::kPacketsOut);
  counters_.add(Counter::kBytesOut, bytes.size());
  constexpr Counter kByKind[] = {Counter::kBytesOutSnapshots, Counter::kBytesOutHandshake, Counter::kBytesOutControl,
                                 Counter::kBytesOutMessages};
  counters_.add(kByKind[std::size_t(kind)], bytes.size() - message_bytes);
  counters_.add(Counter::kBytesOutMessages, message_bytes);
  sink_.send(to, bytes);
}

void Outbox::send_session(Session& session, std::span<const uint8_t> packet) {
  send(session.endpoint, proto::seal_session(session.keys.send, ++session.send_sequence, packet, tx_), Traffic::kControl);
}

}  // namespace foothold::server
