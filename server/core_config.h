#pragma once
// What the server core needs to know: foothold-server fills it from ServerConfig (server_config.h,
// core_config()), tests and benchmarks directly. Every part of the core reads it.

#include <cstdint>
#include <functional>
#include <vector>

#include "proto/clock.h"
#include "proto/compact.h"
#include "proto/message_endpoint.h"
#include "proto/token.h"
#include "server/source_limiter.h"

namespace foothold::server {

/// UNIX seconds at the server's clock reading `now` (nanoseconds of the clock every call is given).
using UnixClock = std::function<uint64_t(proto::Nanos now)>;
/// A clock for tests and benchmarks: `unix_at` at `at`, advancing with `now` (never before `unix_at`).
UnixClock virtual_unix_clock(uint64_t unix_at, proto::Nanos at);

/// The server's messages: a receiver that is over its bytes cuts the peer off (the server takes
/// every message at every tick, so only a peer that ignores the window fills it).
inline proto::MessageConfig server_messages() {
  proto::MessageConfig m;
  m.limits.overflow_is_violation = true;
  m.limits.reserve_buffers = false;  // a channel per messaging client: buffers grow as used
  m.receive_rate = m.rate;  // a client sends at most what it is sent (issue #63: 4x, all recorded)
  return m;
}

/// What ServerCore needs to know; foothold-server fills it from ServerConfig. Rates are per second.
struct CoreConfig {
  /// Sessions at once; a Connect beyond them gets Reject(ServerFull).
  int max_clients = 1024;
  int max_clients_per_address = 8;      ///< sessions one IP address may hold at once (loopback: no cap)
  int snapshot_interval = 1;            ///< ticks between snapshots (0: none, for benchmarks of the simulation)
  /// Bytes a snapshot datagram never exceeds (encryption included), [kMinSnapshotBudget, kMaxDatagram].
  /// The nearest characters that changed go first; each one in view at least every 500 ms.
  int snapshot_budget = proto::kDefaultSnapshotBudget;
  /// The nearest characters (within 2 m) each snapshot gives in full for the client's prediction,
  /// [0, proto::kMaxSnapshotNeighbours]; 0: none (the section costs a bit). They cost bytes and the
  /// server's time in a crowd, and make the crowd's pushes predict exactly (Replication).
  int neighbours = 4;
  /// The inputs of each neighbour the server already holds for the next ticks, given with it,
  /// [0, kMaxInputsAhead]: each makes a tick of its steps on the client exact, and tells the client
  /// that player's next move about a tick before its effect would show. 0 for a game that counts that
  /// as a leak.
  int neighbour_inputs_ahead = 4;
  /// Silence after which a client is sent Disconnect(TimedOut) and forgotten.
  proto::Nanos client_timeout = 10 * proto::kSecond;
  /// Burst: a quarter of a second's worth, at least 4. Datagrams over it are dropped after they authenticate.
  int client_packet_rate = 240;         ///< packets per second per client
  /// Burst: a tenth of a second's worth, at least 1 (the same for status_rate).
  int handshake_rate = 2000;            ///< handshake replies per second, all unverified addresses together
  int status_rate = 100;                ///< status replies per second, all senders together
  /// Clear VersionMismatch hints per second, all senders together: their own budget, since they need
  /// no token, so a flood of them spends nothing that joining clients need.
  int version_hint_rate = 20;
  SourceLimits source_limits;           ///< handshake datagrams per second per address and per prefix
  double token_rate = 10;               ///< handshake replies per second to one connect token (burst: twice that)
  proto::Key key{};                     ///< the private key connect tokens are sealed with
  /// The addresses clients reach the server at: a token must name one of them. Loopback addresses
  /// here are honoured only for senders on loopback (tools on the server's own host).
  std::vector<proto::TokenAddress> addresses;
  /// UNIX time, in seconds, as token times are judged; null: the system's wall clock, read at every
  /// check, so a clock corrected while the server runs (NTP) is followed at once. Tests and
  /// benchmarks give virtual_unix_clock().
  UnixClock unix_clock;
  /// Seconds a token's expiry may lie ahead of unix_clock (plus clock_skew): a token minted for longer
  /// is refused (drop_far_token).
  uint64_t token_max_ahead = 86400;
  /// Seconds the minter's clock may run ahead of ours: a not-before time that far ahead is honoured.
  uint64_t clock_skew = 30;
  /// Threads that run the characters' steps and build the snapshots (the calling one included).
  /// Results are the same for any number.
  int threads = 1;
  /// Each session's messages: the send queue (limits.queue_bytes), the byte rate each way, the
  /// no-progress time-out.
  proto::MessageConfig messages = server_messages();
  /// Milliseconds of the past a game's lag-compensated queries may look back to (server/rewind.h).
  int rewind_window_ms = 250;
};

}  // namespace foothold::server
