#pragma once
// A server and its clients on a simulated network with virtual time: a whole session runs in
// milliseconds, deterministically, with whatever impairment a test sets.

#include <memory>
#include <vector>

#include "bots/bot_brain.h"
#include "replay/input_script.h"
#include "client/session.h"
#include "server/server_core.h"
#include "support/sim_network.h"

namespace foothold::test {

struct HarnessOptions {
  server::CoreConfig core;
  MoveSettings settings;
  int clients = 4;
  uint64_t seed = 1;
  bots::Pattern pattern = bots::Pattern::kWander;
  /// Every client's input script, looped, for pattern kScript.
  replay::InputScript script;
  /// Each client's connect token's user data, by client index (missing: none).
  std::vector<std::vector<uint8_t>> user_data;
  /// The match's random source seeded from `seed`, so a game draws the same in every run; false
  /// leaves the server's own seed, drawn from the system's randomness.
  bool seed_game = true;
};

/// Default options with `clients` clients (0: a server alone, for tests that speak by hand).
inline HarnessOptions with_clients(int clients) {
  HarnessOptions o;
  o.clients = clients;
  return o;
}

/// #37's bad network: 50 ms each way (about 100 ms round trip), 10 ms of jitter, 5% loss.
inline client::Impairment bad_network() {
  client::Impairment bad;
  bad.loss = 0.05;
  bad.latency = 50 * proto::kMillisecond;
  bad.jitter = 10 * proto::kMillisecond;
  return bad;
}

class SimHarness {
 public:
  SimHarness(const World& world, const HarnessOptions& options);

  static proto::Endpoint server_endpoint() { return {asio::ip::make_address("10.0.0.1"), 7777}; }
  /// Client i's endpoint: an address of its own, in a /24 of its own (10.x.y.1 from 10.1.0.1), as
  /// players on the internet have.
  static proto::Endpoint client_endpoint(int i) {
    return {asio::ip::make_address_v4(0x0a010001u + uint32_t(i) * 256), uint16_t(40000 + i)};
  }
  /// The server's private key, and UNIX time at the harness's start.
  static const proto::Key& key();
  static constexpr uint64_t kUnixStart = 1'800'000'000;
  /// UNIX time now, as the server judges token times (its wall clock: set_clock_offset() moves it).
  uint64_t unix_now() const { return unix_at(now_); }
  /// UNIX time at virtual time `t`.
  uint64_t unix_at(proto::Nanos t) const { return uint64_t(int64_t(kUnixStart) + clock_offset_ + (t - start_) / proto::kSecond); }
  /// Moves the server's wall clock by `seconds` from now on (an NTP correction), virtual time unchanged.
  void set_clock_offset(int64_t seconds) { clock_offset_ = seconds; }
  /// A token for `client_id`, valid for `lifetime` seconds from now, for the server's endpoint (or
  /// `servers`), sealed with `key` (default: the server's), carrying `user_data`.
  proto::ConnectToken mint(uint64_t client_id, uint64_t lifetime = 60, std::vector<proto::Endpoint> servers = {},
                           const proto::Key* key = nullptr, std::span<const uint8_t> user_data = {}) const;

  /// Starts client i (its handshake begins at the current time).
  void start_client(int i);
  void start_all();
  /// Advances virtual time by `duration`, delivering datagrams, ticking the server and the clients
  /// (only clients that are started and not paused).
  void run_for(proto::Nanos duration);

  server::ServerCore& server() { return *server_; }
  client::ClientSession& client(int i) { return *clients_[size_t(i)].session; }
  SimNetwork& network() { return net_; }
  proto::Nanos now() const { return now_; }
  /// A paused client stops ticking and sending (as if its process hung).
  void pause_client(int i, bool paused) { clients_[size_t(i)].paused = paused; }
  /// Client i's NAT rebinds it: it sends from `to` from now on and hears only what is sent there.
  void rebind_client(int i, const proto::Endpoint& to) { net_.rebind_client(client_endpoint(i), server_endpoint(), to); }
  /// Replaces client i's session by a fresh one on the same endpoint (a restarted process), with a
  /// new token for the same client id.
  void restart_client(int i);
  /// Client i's client id (in its tokens).
  static uint64_t client_id(int i) { return 5000 + uint64_t(i); }

 private:
  struct Client {
    std::unique_ptr<client::ClientSession> session;
    std::unique_ptr<client::InputSource> brain;
    proto::Nanos next = 0;
    bool started = false;
    bool paused = false;
  };
  void make_client(int i);

  const World& world_;
  HarnessOptions options_;
  bots::PatternSpec spec_;  // the clients' brains' (a kScript brain refers to its script)
  SimNetwork net_;
  std::unique_ptr<server::ServerCore> server_;
  std::vector<Client> clients_;
  proto::Nanos now_ = 0;
  proto::Nanos start_ = 0;
  int64_t clock_offset_ = 0;
  proto::Nanos next_tick_ = 0;
  proto::Nanos period_ = 0;
};

/// Checks that clients 0..clients-1 are connected, compared more than 50 snapshots with their
/// predictions, and needed no correction at all (virtual time: not even an explained one).
void expect_clean_play(SimHarness& h, int clients);

}  // namespace foothold::test
