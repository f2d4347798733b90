#pragma once
// An in-process network with virtual time, for tests: datagrams sent at time t (with impairment)
// are delivered at t + delay, in (delivery time, send order) order, to the receiver attached at the
// destination endpoint. Everything is deterministic given the seed.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <queue>
#include <vector>

#include "proto/endpoint.h"
#include "client/impairment.h"
#include "client/session.h"

namespace foothold::test {

/// Single-threaded. Time moves only through set_now() and deliver_until().
class SimNetwork {
 public:
  /// Called with the delivery time, the sender and the bytes; the bytes live in a shared buffer,
  /// valid only during the call.
  using Receiver = std::function<void(proto::Nanos now, const proto::Endpoint& from, std::span<const uint8_t> bytes)>;

  /// `seed` drives the impairment's generator (set_impairment()).
  explicit SimNetwork(uint64_t seed);
  ~SimNetwork();

  /// Receives datagrams addressed to `at` (replacing any receiver there). A datagram due at an
  /// endpoint with no receiver vanishes, like one sent to a closed port (it is not counted as lost).
  void attach(const proto::Endpoint& at, Receiver receiver) { receivers_[at] = std::move(receiver); }
  /// Stops delivering to `at`.
  void detach(const proto::Endpoint& at) { receivers_.erase(at); }

  /// A sink whose datagrams come from `from` (owned by the network: valid while it lives; one per
  /// endpoint, made on first use). Sends happen at now().
  proto::DatagramSink& sink_for(const proto::Endpoint& from);
  /// A client session's sink: its datagrams go from `from` to `server` (owned by the network, made on
  /// first use, like sink_for()).
  client::ServerSink& client_sink(const proto::Endpoint& from, const proto::Endpoint& server);

  /// A NAT rebinding: the client session sending from `from` to `server` sends from `to` from now on,
  /// and what is addressed to `to` reaches it (what is still addressed to `from` vanishes).
  void rebind_client(const proto::Endpoint& from, const proto::Endpoint& server, const proto::Endpoint& to);

  /// Sees every datagram as it is sent (an eavesdropper on the path, for tests); empty: none.
  using Tap = std::function<void(const proto::Endpoint& from, const proto::Endpoint& to, std::span<const uint8_t> bytes)>;
  /// Installs the tap (replacing any; an empty one removes it).
  void set_tap(Tap tap) { tap_ = std::move(tap); }

  /// Impairs every datagram from now on (both directions); restarts the generator from the seed.
  void set_impairment(const client::Impairment& impairment) { impairer_ = client::Impairer(impairment, seed_); }

  /// The virtual time at which sends happen (nanoseconds).
  void set_now(proto::Nanos now) { now_ = now; }
  /// The virtual time now.
  proto::Nanos now() const { return now_; }

  /// Delivers every datagram due at or before `now`, in (due time, send order) order, including those
  /// the receivers send meanwhile. Each receiver runs with now() at its delivery time; afterwards
  /// now() is `now`.
  void deliver_until(proto::Nanos now);
  /// When the next datagram is due (or a huge value when none is in flight).
  proto::Nanos next_due() const;

  /// Datagrams sent (before impairment).
  uint64_t sent() const { return sent_; }
  /// Datagrams handed to a receiver (a duplicate counts twice).
  uint64_t delivered() const { return delivered_; }
  /// Datagrams the impairment lost.
  uint64_t lost() const { return lost_; }

 private:
  class Sink;
  class ClientSink;
  struct Flight {
    proto::Nanos due;
    uint64_t order;
    proto::Endpoint from, to;
    std::vector<uint8_t> bytes;
    bool operator>(const Flight& o) const { return due != o.due ? due > o.due : order > o.order; }
  };
  void send(const proto::Endpoint& from, const proto::Endpoint& to, std::span<const uint8_t> bytes);

  uint64_t seed_;
  client::Impairer impairer_;
  Tap tap_;
  proto::Nanos now_ = 0;
  uint64_t order_ = 0;
  std::priority_queue<Flight, std::vector<Flight>, std::greater<Flight>> flights_;
  std::map<proto::Endpoint, Receiver> receivers_;
  std::vector<std::unique_ptr<Sink>> sinks_;
  std::vector<std::unique_ptr<ClientSink>> client_sinks_;
  uint64_t sent_ = 0, delivered_ = 0, lost_ = 0;
};

}  // namespace foothold::test
