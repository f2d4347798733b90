#include "support/sim_network.h"

#include <cstring>
#include <limits>

namespace foothold::test {

class SimNetwork::Sink final : public proto::DatagramSink {
 public:
  Sink(SimNetwork& net, const proto::Endpoint& from) : net_(net), from_(from) {}
  void send(const proto::Endpoint& to, std::span<const uint8_t> bytes) override { net_.send(from_, to, bytes); }
  const proto::Endpoint& from() const { return from_; }

 private:
  SimNetwork& net_;
  proto::Endpoint from_;
};

class SimNetwork::ClientSink final : public client::ServerSink {
 public:
  ClientSink(SimNetwork& net, const proto::Endpoint& from, const proto::Endpoint& to) : net_(net), from_(from), to_(to) {}
  void send(std::span<const uint8_t> bytes) override { net_.send(from_, to_, bytes); }
  bool joins(const proto::Endpoint& from, const proto::Endpoint& to) const { return from_ == from && to_ == to; }
  void rebind(const proto::Endpoint& from) { from_ = from; }

 private:
  SimNetwork& net_;
  proto::Endpoint from_, to_;
};

SimNetwork::SimNetwork(uint64_t seed) : seed_(seed), impairer_({}, seed) {}
SimNetwork::~SimNetwork() = default;

proto::DatagramSink& SimNetwork::sink_for(const proto::Endpoint& from) {
  for (auto& s : sinks_)
    if (s->from() == from) return *s;
  sinks_.push_back(std::make_unique<Sink>(*this, from));
  return *sinks_.back();
}

client::ServerSink& SimNetwork::client_sink(const proto::Endpoint& from, const proto::Endpoint& server) {
  for (auto& s : client_sinks_)
    if (s->joins(from, server)) return *s;
  client_sinks_.push_back(std::make_unique<ClientSink>(*this, from, server));
  return *client_sinks_.back();
}

void SimNetwork::rebind_client(const proto::Endpoint& from, const proto::Endpoint& server, const proto::Endpoint& to) {
  for (auto& s : client_sinks_)
    if (s->joins(from, server)) s->rebind(to);
  const auto it = receivers_.find(from);
  if (it == receivers_.end()) return;
  Receiver r = std::move(it->second);
  receivers_.erase(it);
  receivers_[to] = std::move(r);
}

void SimNetwork::send(const proto::Endpoint& from, const proto::Endpoint& to, std::span<const uint8_t> bytes) {
  ++sent_;
  if (tap_) tap_(from, to, bytes);
  proto::Nanos delays[2];
  const int copies = impairer_.decide(delays);
  if (copies == 0) ++lost_;
  for (int i = 0; i < copies; ++i)
    flights_.push({now_ + delays[i], order_++, from, to, std::vector<uint8_t>(bytes.begin(), bytes.end())});
}

proto::Nanos SimNetwork::next_due() const {
  return flights_.empty() ? std::numeric_limits<proto::Nanos>::max() : flights_.top().due;
}

void SimNetwork::deliver_until(proto::Nanos now) {
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
