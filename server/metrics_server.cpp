#include "server/metrics_server.h"

#include <chrono>
#include <cstdio>

#include <httplib.h>

namespace foothold::server {

std::unique_ptr<MetricsServer> MetricsServer::start(const std::string& host, int port, proto::Nanos stall_after,
                                                    std::string& error) {
  std::unique_ptr<MetricsServer> m(new MetricsServer());
  m->stall_after_ = stall_after;
  m->http_ = std::make_unique<httplib::Server>();
  httplib::Server& http = *m->http_;
  MetricsServer* self = m.get();
  http.Get("/metrics", [self](const httplib::Request&, httplib::Response& res) {
    ++self->requests_;
    MetricsSnapshot copy;
    {
      const std::lock_guard lock(self->mutex_);
      copy = self->snapshot_;
    }
    res.set_content(prometheus_text(copy), "text/plain; version=0.0.4; charset=utf-8");
  });
  const auto probe = [self](Probe (MetricsServer::*which)(proto::Nanos) const) {
    return [self, which](const httplib::Request&, httplib::Response& res) {
      ++self->requests_;
      const Probe p = (self->*which)(proto::steady_now());
      res.status = p.status;
      res.set_content(p.body + "\n", "text/plain; charset=utf-8");
    };
  };
  // SO_REUSEADDR only: httplib's default adds SO_REUSEPORT, which would let a second server share
  // the port silently, each answering for the other.
  http.set_socket_options([](socket_t sock) {
    const int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  // Two workers: a scrape and a probe at once is all this endpoint ever sees (httplib's default is
  // one thread per core and at least eight).
  http.new_task_queue = [] { return new httplib::ThreadPool(2); };
  http.Get("/healthz", probe(&MetricsServer::health));
  http.Get("/readyz", probe(&MetricsServer::readiness));
  m->port_ = port == 0 ? http.bind_to_any_port(host) : (http.bind_to_port(host, port) ? port : -1);
  if (m->port_ <= 0) {
    error = "--metrics-address " + host + ":" + std::to_string(port) + ": cannot listen there (in use, or not an address of this machine)";
    return nullptr;
  }
  m->thread_ = std::thread([self] { self->http_->listen_after_bind(); });
  // Serving before returning: a stop() before the loop starts would not end it.
  for (int i = 0; i < 1000 && !http.is_running(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return m;
}

MetricsServer::~MetricsServer() {
  if (http_) http_->stop();
  if (thread_.joinable()) thread_.join();
}

void MetricsServer::publish(const MetricsSnapshot& snapshot, proto::Nanos now) {
  const std::lock_guard lock(mutex_);
  snapshot_ = snapshot;
  published_at_ = now;
}

MetricsServer::Probe MetricsServer::health(proto::Nanos now) const {
  const std::lock_guard lock(mutex_);
  if (published_at_ < 0) return {503, "starting: no tick yet"};
  const proto::Nanos since = now - published_at_;
  if (since > stall_after_) {
    char text[96];
    std::snprintf(text, sizeof text, "stalled: no tick for %.1f s", double(since) / 1e9);
    return {503, text};
  }
  return {200, "ok: tick " + std::to_string(snapshot_.tick)};
}

MetricsServer::Probe MetricsServer::readiness(proto::Nanos now) const {
  const Probe alive = health(now);
  if (alive.status != 200) return alive;
  const std::lock_guard lock(mutex_);
  if (snapshot_.draining) return {503, "draining: not taking players"};
  if (!snapshot_.ready) return {503, "not ready"};
  return {200, "ready: " + std::to_string(snapshot_.clients) + " of " + std::to_string(snapshot_.max_clients) + " clients"};
}

}  // namespace foothold::server
