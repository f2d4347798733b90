#pragma once
// The client's UDP driver: a ClientSession on a real socket, connected to its one server, run on the
// caller's thread without blocking (a game calls poll() every frame). Asio stays inside the .cpp, so
// this header asks nothing of a game's include path but our own.

#include <memory>
#include <string>

#include "proto/clock.h"
#include "proto/token.h"
#include "client/impairment.h"
#include "client/session.h"

namespace foothold::client {

/// "HOST:PORT", "[v6]:PORT" or "localhost:PORT" to an address; a host name is resolved (a blocking
/// DNS lookup, preferring IPv4). False, with `error` naming the problem, otherwise.
bool parse_address(const std::string& text, proto::TokenAddress& out, std::string& error);
/// "a.b.c.d:PORT" or "[v6]:PORT".
std::string to_string(const proto::TokenAddress& address);

/// One session on one UDP socket. Not thread-safe; not copyable. Keeps a reference to `world`.
class UdpClient {
 public:
  /// Opens a non-blocking socket of `server`'s family on an ephemeral port, connected to `server`
  /// (the kernel then drops datagrams from anyone else). On failure ok() is false and error() says why;
  /// nothing else may be called then. `settings`, `token` and `options` are copied.
  UdpClient(const World& world, const MoveSettings& settings, const proto::ConnectToken& token,
            const proto::TokenAddress& server, const SessionOptions& options = {});
  UdpClient(World&&, const MoveSettings&, const proto::ConnectToken&, const proto::TokenAddress&,
            const SessionOptions& = {}) = delete;  // a temporary world would dangle
  /// Closes the socket (without a goodbye: call session().disconnect() first for one).
  ~UdpClient();
  UdpClient(const UdpClient&) = delete;
  UdpClient& operator=(const UdpClient&) = delete;

  /// Puts a network conditioner between the session and the socket (client/impairment.h): every
  /// datagram either way is lost, duplicated, held back or delayed as `impairment` says, from a
  /// generator seeded with `seed`. For testing a game on a bad network on a good one; off when
  /// nothing is set. Copies the datagrams it holds (it allocates while on).
  void set_conditioner(const Impairment& impairment, uint64_t seed);

  /// True when the socket opened.
  bool ok() const { return error_.empty(); }
  /// Why the socket could not be opened.
  const std::string& error() const { return error_; }

  /// Receives every datagram waiting (at most 256), each at the moment the kernel stamped its
  /// arrival (placed on the session's clock; not before the last poll), then runs the session's due
  /// work with `source`; returns when the session next wants to run. Starts the session on the first call. Allocates
  /// nothing once connected.
  proto::Nanos poll(proto::Nanos now, InputSource& source);
  /// The session (its phase, prediction, remotes, stats).
  ClientSession& session() { return *session_; }
  /// The session, read-only.
  const ClientSession& session() const { return *session_; }

 private:
  struct Socket;
  class Sink;
  struct Conditioner;
  // Releases the conditioner's datagrams due by `now`: to the socket, or to the session.
  void release_due(proto::Nanos now);
  // Takes every datagram waiting on the socket (up to 256) and hands each on, stamped with when it
  // arrived.
  void receive_waiting(proto::Nanos now);
  void deliver(proto::Nanos arrived, std::span<const uint8_t> bytes);
  std::string error_;
  std::unique_ptr<Socket> socket_;
  std::unique_ptr<Conditioner> conditioner_;  // null when off
  proto::Nanos last_poll_ = 0;                // the session's clock at the last poll
  std::unique_ptr<Sink> sink_;
  std::unique_ptr<ClientSession> session_;
};

}  // namespace foothold::client
