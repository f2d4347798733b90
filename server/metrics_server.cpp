#include "server/metrics_server.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <vector>

#include <asio/io_context.hpp>
#include <asio/ip/tcp.hpp>
#include <asio/steady_timer.hpp>
#include <asio/write.hpp>

namespace foothold::server {

namespace {

// After the answer, what the peer still sends (the rest of a body it was told not to send) is read
// and dropped for this long at most, so that closing does not reset the connection before the peer
// has read the answer. Read into the head's buffer: it costs no memory.
constexpr auto kLinger = std::chrono::milliseconds(500);

std::chrono::nanoseconds as_duration(proto::Nanos n) { return std::chrono::nanoseconds(n); }

// One accepted connection, from accept to close; only the io thread touches it.
struct Connection : std::enable_shared_from_this<Connection> {
  explicit Connection(asio::io_context& context) : socket(context), timer(context) {}
  enum class Phase { kHead, kAnswer, kLingering, kClosed };
  asio::ip::tcp::socket socket;
  asio::steady_timer timer;
  Phase phase = Phase::kHead;
  std::array<char, kMaxRequestHead> head{};
  std::size_t used = 0;
  std::string answer;
};

}  // namespace

struct MetricsServer::Io {
  explicit Io(MetricsServer& owner) : server(owner) {}
  MetricsServer& server;
  asio::io_context context;
  asio::ip::tcp::acceptor acceptor{context};
  std::vector<std::shared_ptr<Connection>> open;  // oldest first

  void accept();
  void admit(const std::shared_ptr<Connection>& c);
  void read_head(const std::shared_ptr<Connection>& c);
  void answer(const std::shared_ptr<Connection>& c, const Reply& reply, bool head_only);
  void linger(const std::shared_ptr<Connection>& c);
  void close(const std::shared_ptr<Connection>& c);
  void arm(const std::shared_ptr<Connection>& c, std::chrono::nanoseconds after);
};

void MetricsServer::Io::accept() {
  auto c = std::make_shared<Connection>(context);
  acceptor.async_accept(c->socket, [this, c](const asio::error_code& ec) {
    if (ec == asio::error::operation_aborted) return;  // stopping
    if (!ec) admit(c);
    accept();
  });
}

void MetricsServer::Io::admit(const std::shared_ptr<Connection>& c) {
  // The oldest makes room: it has had the longest to ask, and a probe asks as it connects.
  if (open.size() >= kMaxConnections) {
    ++server.cut_off_;
    close(open.front());
  }
  open.push_back(c);
  server.connections_ = open.size();
  arm(c, as_duration(kHeadDeadline));
  read_head(c);
}

// The deadline of the phase `c` is in: missed, the connection is closed (a lingering one has simply
// had its time).
void MetricsServer::Io::arm(const std::shared_ptr<Connection>& c, std::chrono::nanoseconds after) {
  c->timer.expires_after(after);
  c->timer.async_wait([this, c, phase = c->phase](const asio::error_code& ec) {
    if (ec || c->phase != phase) return;  // cancelled, or moved on to the next phase
    if (phase != Connection::Phase::kLingering) ++server.cut_off_;
    close(c);
  });
}

void MetricsServer::Io::read_head(const std::shared_ptr<Connection>& c) {
  c->socket.async_read_some(
      asio::buffer(c->head.data() + c->used, c->head.size() - c->used), [this, c](const asio::error_code& ec, std::size_t n) {
        if (c->phase != Connection::Phase::kHead) return;
        if (ec) return close(c);
        c->used += n;
        const std::string_view bytes(c->head.data(), c->used);
        const std::size_t length = request_head_length(bytes);
        if (length == 0) {
          if (c->used < c->head.size()) return read_head(c);
          ++server.refused_;
          return answer(c, {431, "request head over " + std::to_string(kMaxRequestHead) + " bytes\n"}, false);
        }
        const RequestHead head = parse_request_head(bytes.substr(0, length));
        const bool head_only = head.valid && head.method == "HEAD";
        if (const Reply no = refusal(head); no.status != 0) {
          ++server.refused_;
          return answer(c, no, head_only);
        }
        ++server.requests_;
        answer(c, server.answer(head.path, proto::steady_now()), head_only);
      });
}

void MetricsServer::Io::answer(const std::shared_ptr<Connection>& c, const Reply& reply, bool head_only) {
  c->phase = Connection::Phase::kAnswer;
  c->answer = serialize(reply, head_only);
  arm(c, as_duration(kWriteDeadline));
  asio::async_write(c->socket, asio::buffer(c->answer), [this, c](const asio::error_code& ec, std::size_t) {
    if (c->phase != Connection::Phase::kAnswer) return;
    if (ec) return close(c);
    linger(c);
  });
}

void MetricsServer::Io::linger(const std::shared_ptr<Connection>& c) {
  if (c->phase != Connection::Phase::kLingering) {
    c->phase = Connection::Phase::kLingering;
    c->answer = {};
    asio::error_code ignored;
    c->socket.shutdown(asio::ip::tcp::socket::shutdown_send, ignored);
    arm(c, kLinger);
  }
  c->socket.async_read_some(asio::buffer(c->head), [this, c](const asio::error_code& ec, std::size_t) {
    if (c->phase != Connection::Phase::kLingering) return;
    if (ec) return close(c);  // the peer closed too (or went away)
    linger(c);
  });
}

void MetricsServer::Io::close(const std::shared_ptr<Connection>& c) {
  if (c->phase == Connection::Phase::kClosed) return;
  c->phase = Connection::Phase::kClosed;
  asio::error_code ignored;
  c->socket.close(ignored);
  c->timer.cancel();
  open.erase(std::remove(open.begin(), open.end(), c), open.end());
  server.connections_ = open.size();
}

std::unique_ptr<MetricsServer> MetricsServer::start(const std::string& host, int port, proto::Nanos stall_after,
                                                    std::string& error) {
  std::unique_ptr<MetricsServer> m(new MetricsServer());
  m->stall_after_ = stall_after;
  m->io_ = std::make_unique<Io>(*m);
  Io& io = *m->io_;
  asio::error_code ec;
  const asio::ip::address address = asio::ip::make_address(host, ec);
  const asio::ip::tcp::endpoint at(address, uint16_t(port));
  // SO_REUSEADDR only (restarts within TIME_WAIT), never SO_REUSEPORT, which would let a second
  // server share the port silently, each answering for the other.
  if (!ec) io.acceptor.open(at.protocol(), ec);
  if (!ec) io.acceptor.set_option(asio::ip::tcp::acceptor::reuse_address(true), ec);
  if (!ec) io.acceptor.bind(at, ec);
  if (!ec) io.acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    error = "--metrics-address " + host + ":" + std::to_string(port) + ": cannot listen there (" + ec.message() + ")";
    return nullptr;
  }
  m->port_ = io.acceptor.local_endpoint().port();
  io.accept();
  m->thread_ = std::thread([&io] { io.context.run(); });
  return m;
}

MetricsServer::~MetricsServer() {
  if (!io_) return;
  io_->context.stop();
  if (thread_.joinable()) thread_.join();
}

Reply MetricsServer::answer(const std::string& path, proto::Nanos now) {
  if (path == "/healthz") return health(now);
  if (path == "/readyz") return readiness(now);
  if (path != "/metrics") return {404, "not found: /metrics, /healthz and /readyz are here\n"};
  MetricsSnapshot copy;
  {
    const std::lock_guard lock(mutex_);
    copy = snapshot_;
  }
  return {200, prometheus_text(copy), "text/plain; version=0.0.4; charset=utf-8"};
}

void MetricsServer::publish(const MetricsSnapshot& snapshot, proto::Nanos now) {
  const std::lock_guard lock(mutex_);
  snapshot_ = snapshot;
  published_at_ = now;
}

Reply MetricsServer::health(proto::Nanos now) const {
  const std::lock_guard lock(mutex_);
  if (published_at_ < 0) return {503, "starting: no tick yet\n"};
  const proto::Nanos since = now - published_at_;
  if (since > stall_after_) {
    char text[96];
    std::snprintf(text, sizeof text, "stalled: no tick for %.1f s\n", double(since) / 1e9);
    return {503, text};
  }
  return {200, "ok: tick " + std::to_string(snapshot_.tick) + "\n"};
}

Reply MetricsServer::readiness(proto::Nanos now) const {
  Reply alive = health(now);
  if (alive.status != 200) return alive;
  const std::lock_guard lock(mutex_);
  if (snapshot_.draining) return {503, "draining: not taking players\n"};
  if (!snapshot_.ready) return {503, "not ready\n"};
  return {200, "ready: " + std::to_string(snapshot_.clients) + " of " + std::to_string(snapshot_.max_clients) + " clients\n"};
}

}  // namespace foothold::server
