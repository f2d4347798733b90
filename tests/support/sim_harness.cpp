#include "support/sim_harness.h"

#include <algorithm>
#include <limits>

namespace foothold::test {

SimHarness::SimHarness(const World& world, const HarnessOptions& options)
    : world_(world), options_(options), net_(options.seed) {
  period_ = net::kSecond / options.settings.tick_rate;
  now_ = net::kSecond;  // any origin; not zero, so that "time 0" never means "never"
  net_.set_now(now_);
  server::CookieJar::Key key{};
  key[0] = uint8_t(options.seed);
  server_ = std::make_unique<server::ServerCore>(options.core, world, options.settings,
                                                 net_.sink_for(server_endpoint()), now_,
                                                 std::make_unique<server::CookieJar>(key));
  net_.attach(server_endpoint(), [this](net::Nanos t, const net::Endpoint& from, std::span<const uint8_t> b) {
    server_->on_datagram(t, from, b);
  });
  next_tick_ = now_ + period_;
  clients_.resize(size_t(options.clients));
  for (int i = 0; i < options.clients; ++i) make_client(i);
}

void SimHarness::make_client(int i) {
  Client& c = clients_[size_t(i)];
  c.session = std::make_unique<server::ClientSession>(world_, options_.settings, net_.sink_for(client_endpoint(i)),
                                                      server_endpoint(), ++nonce_);
  server::PatternSpec spec;
  spec.pattern = options_.pattern;
  c.brain = server::make_brain(spec, options_.seed, uint32_t(i), options_.settings.tick_rate);
  server::ClientSession* s = c.session.get();
  net_.attach(client_endpoint(i), [s](net::Nanos t, const net::Endpoint& from, std::span<const uint8_t> b) {
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

void SimHarness::run_for(net::Nanos duration) {
  const net::Nanos end = now_ + duration;
  while (true) {
    // The next event: a delivery, a server tick or a client update.
    net::Nanos t = std::min(end, std::min(next_tick_, net_.next_due()));
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

}  // namespace foothold::test
