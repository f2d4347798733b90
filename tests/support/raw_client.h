#pragma once
// A client that speaks Foothold's handshake and session by hand on a SimHarness network, step by
// step, so that tests can send exactly the datagrams an attacker or a broken client would.

#include <cstdint>
#include <optional>
#include <vector>

#include "proto/codec.h"
#include "proto/handshake.h"
#include "proto/secure.h"
#include "proto/token.h"
#include "support/sim_harness.h"

namespace foothold::test {

class RawClient {
 public:
  /// A client at `self` (default 10.2.0.1:port) holding `token`.
  RawClient(SimHarness& h, int port, const proto::ConnectToken& token);
  RawClient(SimHarness& h, const proto::Endpoint& self, const proto::ConnectToken& token);

  /// Sends a Packet in clear (with the prefix), or bytes as they are, then lets 10 ms pass.
  void send_clear(std::span<const uint8_t> packet);
  void send_raw(std::span<const uint8_t> datagram);
  /// Seals a Packet into the session (after connect()) and sends it.
  void send_session(std::span<const uint8_t> packet);
  /// Seals a compact message (compact.h) into the session and sends it.
  void send_compact(std::span<const uint8_t> message);
  /// Sends `inputs` (consecutive ticks ending at the last one's) as one inputs message.
  void send_inputs(std::span<const InputCmd> inputs, uint32_t ack = 0, bool want_state = false);
  /// The header of the newest snapshot received (nothing when none opens and reads).
  std::optional<proto::SnapshotHeader> last_snapshot();

  /// The last received datagram opened as a sealed reply under the token's key (to the request in
  /// flight: see `attempt`), as a clear Packet,
  /// or as a session Packet (nullptr when it is not one or does not open).
  const proto::fb::Packet* sealed_reply();
  const proto::fb::Packet* clear_reply();
  const proto::fb::Packet* session_packet();

  /// ConnectRequest: true when a Challenge came back (its cookie is kept).
  bool request();
  /// Connect with the kept cookie and the given hashes (a new proof each call): true when an Accept
  /// came back (then `keys` are the session's). The datagram sent is kept in `last_connect`.
  bool connect(uint64_t world_hash, uint64_t settings_hash);
  /// Sends `datagram` (a Connect kept from before) again: true when an Accept to `attempt` came back.
  bool resend_connect(std::span<const uint8_t> datagram);
  /// request() and connect() with the arena's hashes and default settings.
  bool join();

  SimHarness& h;
  proto::Endpoint self;
  proto::ConnectToken token;
  uint64_t salt;
  std::vector<std::vector<uint8_t>> received;
  std::size_t last_sent_size = 0;
  std::vector<uint8_t> cookie;
  /// The last Connect's attempt (salts and proof); sealed_reply() opens replies to it after
  /// connect(), and replies to the first requests (no request tag) after request().
  proto::ConnectAttempt attempt;
  bool connecting = false;
  std::vector<uint8_t> last_connect;
  proto::SessionKeys keys;
  proto::ReplayWindow window;
  uint64_t sequence = 0;
  proto::PacketWriter writer;

 private:
  proto::DatagramBuffer tx_, rx_;
};

}  // namespace foothold::test
