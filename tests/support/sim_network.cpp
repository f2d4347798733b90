#include "support/sim_network.h"

#include <cstring>
#include <limits>

namespace foothold::test {

class SimNetwork::Sink final : public net::DatagramSink {
 public:
  Sink(SimNetwork& net, const net::Endpoint& from) : net_(net), from_(from) {}
  void send(const net::Endpoint& to, std::span<const uint8_t> bytes) override { net_.send(from_, to, bytes); }
  const net::Endpoint& from() const { return from_; }

 private:
  SimNetwork& net_;
  net::Endpoint from_;
};

class SimNetwork::ClientSink final : public client::ServerSink {
 public:
  ClientSink(SimNetwork& net, const net::Endpoint& from, const net::Endpoint& to) : net_(net), from_(from), to_(to) {}
  void send(std::span<const uint8_t> bytes) override { net_.send(from_, to_, bytes); }
  bool joins(const net::Endpoint& from, const net::Endpoint& to) const { return from_ == from && to_ == to; }

 private:
  SimNetwork& net_;
  net::Endpoint from_, to_;
};

SimNetwork::SimNetwork(uint64_t seed) : seed_(seed), impairer_({}, seed) {}
SimNetwork::~SimNetwork() = default;

net::DatagramSink& SimNetwork::sink_for(const net::Endpoint& from) {
  for (auto& s : sinks_)
    if (s->from() == from) return *s;
  sinks_.push_back(std::make_unique<Sink>(*this, from));
  return *sinks_.back();
}

client::ServerSink& SimNetwork::client_sink(const net::Endpoint& from, const net::Endpoint& server) {
  for (auto& s : client_sinks_)
    if (s->joins(from, server)) return *s;
  client_sinks_.push_back(std::make_unique<ClientSink>(*this, from, server));
  return *client_sinks_.back();
}

void SimNetwork::send(const net::Endpoint& from, const net::Endpoint& to, std::span<const uint8_t> bytes) {
  ++sent_;
  if (tap_) tap_(from, to, bytes);
  net::Nanos delays[2];
  const int copies = impairer_.decide(delays);
  if (copies == 0) ++lost_;
  for (int i = 0; i < copies; ++i)
    flights_.push({now_ + delays[i], order_++, from, to, std::vector<uint8_t>(bytes.begin(), bytes.end())});
}

net::Nanos SimNetwork::next_due() const {
  return flights_.empty() ? std::numeric_limits<net::Nanos>::max() : flights_.top().due;
}

void SimNetwork::deliver_until(net::Nanos now) {
  // Received datagrams sit in 8-byte aligned memory, as a socket's receive buffer does.
  alignas(8) static thread_local uint8_t buffer[4096];
  while (!flights_.empty() && flights_.top().due <= now) {
    Flight f = flights_.top();
    flights_.pop();
    const auto it = receivers_.find(f.to);
    if (it == receivers_.end()) continue;  // nobody listens there: like a closed port
    ++delivered_;
    const std::size_t n = std::min(f.bytes.size(), sizeof buffer);
    if (n > 0) std::memcpy(buffer, f.bytes.data(), n);  // an empty datagram has no data pointer
    set_now(f.due);
    it->second(f.due, f.from, std::span<const uint8_t>(buffer, n));
  }
  set_now(now);
}

}  // namespace foothold::test
