#include "support/sim_harness.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "client/input_latch.h"

namespace foothold::test {

SimHarness::SimHarness(const World& world, const HarnessOptions& options)
    : world_(world), options_(options), net_(options.seed) {
  spec_.pattern = options_.pattern;
  spec_.script = options_.script;  // once: every kScript brain refers to it
  period_ = proto::kSecond / options.settings.tick_rate;
  now_ = proto::kSecond;  // any origin; not zero, so that "time 0" never means "never"
  start_ = now_;
  net_.set_now(now_);
  server::CookieJar::Key cookie_key{};
  cookie_key[0] = uint8_t(options.seed);
  server::CoreConfig core = options.core;
  core.key = key();
  if (core.addresses.empty()) core.addresses.push_back(proto::to_token_address(server_endpoint()));
  if (!core.unix_clock) core.unix_clock = [this](proto::Nanos now) { return unix_at(now); };
  server_ = std::make_unique<server::ServerCore>(core, world, options.settings, net_.sink_for(server_endpoint()), now_,
                                                 std::make_unique<server::CookieJar>(cookie_key));
  // The match's random source from the test's seed, not the system's: a game's draws (its goals,
  // who is "it") are then the same in every run of a seed.
  if (options.seed_game) server_->set_game_seed(options.seed * 0xbf58476d1ce4e5b9ull + 0x94d049bb133111ebull);
  net_.attach(server_endpoint(), [this](proto::Nanos t, const proto::Endpoint& from, std::span<const uint8_t> b) {
    server_->on_datagram(t, from, b);
  });
  next_tick_ = now_ + period_;
  clients_.resize(size_t(options.clients));
  for (int i = 0; i < options.clients; ++i) make_client(i);
}

const proto::Key& SimHarness::key() {
  static const proto::Key key = [] {
    proto::Key k{};
    for (std::size_t i = 0; i < k.size(); ++i) k[i] = uint8_t(0xa0 + i);
    return k;
  }();
  return key;
}

proto::ConnectToken SimHarness::mint(uint64_t client_id, uint64_t lifetime, std::vector<proto::Endpoint> servers,
                                     const proto::Key* with, std::span<const uint8_t> user_data) const {
  if (servers.empty()) servers.push_back(server_endpoint());
  std::vector<proto::TokenAddress> addresses;
  for (const auto& e : servers) addresses.push_back(proto::to_token_address(e));
  proto::ConnectToken token;
  std::string error;
  if (!proto::mint_token(with ? *with : key(), client_id, addresses, unix_now(), lifetime, token, error, 0, user_data))
    throw std::runtime_error("mint_token: " + error);
  return token;
}

void SimHarness::make_client(int i) {
  Client& c = clients_[size_t(i)];
  c.session = std::make_unique<client::ClientSession>(world_, options_.settings,
                                                      net_.client_sink(client_endpoint(i), server_endpoint()),
                                                      mint(client_id(i), 60, {}, nullptr,
                                                           std::size_t(i) < options_.user_data.size()
                                                               ? std::span<const uint8_t>(options_.user_data[size_t(i)])
                                                               : std::span<const uint8_t>()));
  c.brain = std::make_unique<client::LatchedSource>(bots::make_brain(spec_, options_.seed, uint32_t(i), options_.settings.tick_rate, &world_));
  client::ClientSession* s = c.session.get();
  net_.attach(client_endpoint(i), [s](proto::Nanos t, const proto::Endpoint& from, std::span<const uint8_t> b) {
    if (from == server_endpoint()) s->on_datagram(t, b);
  });
}

void SimHarness::restart_client(int i) {
  make_client(i);
  clients_[size_t(i)].started = false;
  start_client(i);
}

void SimHarness::start_client(int i) {
  Client& c = clients_[size_t(i)];
  c.started = true;
  c.session->start(now_);
  c.next = c.session->next_update();
}

void SimHarness::start_all() {
  for (int i = 0; i < int(clients_.size()); ++i) start_client(i);
}

void SimHarness::run_for(proto::Nanos duration) {
  const proto::Nanos end = now_ + duration;
  while (true) {
    // The next event: a delivery, a server tick or a client update.
    proto::Nanos t = std::min(end, std::min(next_tick_, net_.next_due()));
    for (const auto& c : clients_)
      if (c.started && !c.paused && !c.session->finished()) t = std::min(t, std::min(c.next, c.session->next_update()));
    t = std::max(t, now_);
    now_ = t;
    net_.deliver_until(now_);
    if (now_ >= next_tick_) {
      net_.set_now(now_);
      server_->tick(now_);
      next_tick_ += period_;
    }
    for (auto& c : clients_) {
      if (!c.started || c.paused || c.session->finished()) continue;
      if (now_ >= std::min(c.next, c.session->next_update())) {
        net_.set_now(now_);
        c.next = std::max(c.session->update(now_, *c.brain), now_ + 1);
      }
    }
    if (now_ >= end) break;
  }
}

void expect_clean_play(SimHarness& h, int clients) {
  for (int i = 0; i < clients; ++i) {
    const client::ClientSession& c = h.client(i);
    EXPECT_EQ(c.phase(), client::ClientSession::Phase::kConnected) << "client " << i << ": " << c.reason_text();
    EXPECT_GT(c.stats().compared, 50u) << "client " << i;
    // Every correction is one another character's moves explain (movement.md §16); none is unexplained.
    const auto& p = c.predictor().counters();
    EXPECT_EQ(p.corrections, p.interactions) << "client " << i;
    EXPECT_EQ(p.unexplained, 0u) << "client " << i;
    EXPECT_EQ(c.stats().compared, p.matched + p.interactions) << "client " << i;
  }
}

}  // namespace foothold::test
