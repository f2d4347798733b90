// The metrics and probes (server/metrics.h, server/metrics_server.h): the text Prometheus reads,
// /healthz failing when the tick loop stops publishing, and the port holding up to what anyone who
// can reach it sends (issue #63: a 200 MiB POST buffered whole, two slow clients failing the probes).

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <set>
#include <sstream>
#include <string>
#include <thread>

#include <gtest/gtest.h>
#include <spdlog/fmt/fmt.h>
#include <httplib.h>

#include "server/counters.h"
#include "server/http_request.h"
#include "server/metrics.h"
#include "server/metrics_server.h"

namespace foothold::test {
namespace {

using server::Counter;
using server::MetricsServer;
using server::MetricsSnapshot;

// The value on the line that starts with `series` followed by a space (-1 when there is none).
double value_of(const std::string& text, const std::string& series) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (line.rfind(series + " ", 0) == 0) return std::stod(line.substr(series.size() + 1));
  return -1;
}

// Issue #66: the stats line showed in_other_pct=-0.0 (100 less the inputs' 33.3..% and the
// handshakes' 66.6..% of 3 bytes is -1.4e-14 in floating point) and, with no clients, the totals as
// per-client figures.
TEST(StatsLine, ARemainderOfNothingIsZeroAndNoClientsHaveNoPerClientFigure) {
  EXPECT_EQ(fmt::format("{:.1f}", server::remainder_pct(3, 1, 2)), "0.0");
  EXPECT_EQ(fmt::format("{:.1f}", server::remainder_pct(0, 0, 0)), "0.0");
  EXPECT_EQ(fmt::format("{:.1f}", server::remainder_pct(3, 5, 2)), "0.0") << "shares beyond the whole leave nothing";
  EXPECT_DOUBLE_EQ(server::remainder_pct(8, 1, 1), 75.0);
  EXPECT_EQ(server::per_client(1626.0, 0), 0.0);
  EXPECT_DOUBLE_EQ(server::per_client(1626.0, 2), 813.0);
}

TEST(Metrics, TheTextHasEveryFamilyOnceItsHistogramCumulativeAndItsLabels) {
  MetricsSnapshot m;
  m.clients = 3;
  m.max_clients = 64;
  m.tick = 1234;
  m.tick_rate = 60;
  m.ready = true;
  m.agones_state = "Allocated";
  m.counters.add(Counter::kDropBadSeal, 7);
  m.counters.add(Counter::kAccepted, 5);
  m.counters.add(Counter::kRejectedFull, 2);
  m.counters.add(Counter::kBytesOut, 9000);
  m.gso_sends = 11;
  m.gso_datagrams = 40;
  for (double s : {0.0001, 0.0003, 0.003, 0.003, 0.02, 2.0}) m.tick_duration.add(s);
  const std::string text = server::prometheus_text(m);

  EXPECT_EQ(value_of(text, "foothold_clients"), 3);
  EXPECT_EQ(value_of(text, "foothold_max_clients"), 64);
  EXPECT_EQ(value_of(text, "foothold_tick"), 1234);
  EXPECT_EQ(value_of(text, "foothold_ready"), 1);
  EXPECT_EQ(value_of(text, "foothold_agones_state{state=\"Allocated\"}"), 1);
  EXPECT_EQ(value_of(text, "foothold_datagrams_dropped_total{reason=\"bad_seal\"}"), 7);
  EXPECT_EQ(value_of(text, "foothold_drop_bad_seal_total"), 7);
  EXPECT_EQ(value_of(text, "foothold_handshakes_total{outcome=\"accepted\"}"), 5);
  EXPECT_EQ(value_of(text, "foothold_handshakes_total{outcome=\"rejected_full\"}"), 2);
  EXPECT_EQ(value_of(text, "foothold_bytes_out_total"), 9000);
  EXPECT_EQ(value_of(text, "foothold_gso_sends_total"), 11);
  EXPECT_EQ(value_of(text, "foothold_gso_datagrams_total"), 40);
  // Buckets count every tick at or below their bound.
  EXPECT_EQ(value_of(text, "foothold_tick_duration_seconds_bucket{le=\"0.00025\"}"), 1);
  EXPECT_EQ(value_of(text, "foothold_tick_duration_seconds_bucket{le=\"0.0005\"}"), 2);
  EXPECT_EQ(value_of(text, "foothold_tick_duration_seconds_bucket{le=\"0.004\"}"), 4);
  EXPECT_EQ(value_of(text, "foothold_tick_duration_seconds_bucket{le=\"0.0333\"}"), 5);
  EXPECT_EQ(value_of(text, "foothold_tick_duration_seconds_bucket{le=\"1\"}"), 5);
  EXPECT_EQ(value_of(text, "foothold_tick_duration_seconds_bucket{le=\"+Inf\"}"), 6);
  EXPECT_EQ(value_of(text, "foothold_tick_duration_seconds_count"), 6);
  EXPECT_NEAR(value_of(text, "foothold_tick_duration_seconds_sum"), 2.0264, 1e-9);
  // Each family is declared once, and every sample belongs to a declared family.
  std::set<std::string> declared;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("# TYPE ", 0) == 0) {
      const std::string name = line.substr(7, line.find(' ', 7) - 7);
      EXPECT_TRUE(declared.insert(name).second) << name << " declared twice";
    } else if (!line.empty() && line[0] != '#') {
      std::string name = line.substr(0, line.find_first_of("{ "));
      for (const char* suffix : {"_bucket", "_sum", "_count"})
        if (declared.count(name) == 0 && name.size() > std::string(suffix).size() &&
            name.compare(name.size() - std::string(suffix).size(), std::string::npos, suffix) == 0)
          name.resize(name.size() - std::string(suffix).size());
      EXPECT_EQ(declared.count(name), 1u) << "undeclared: " << line;
    }
  }
  m.draining = true;
  EXPECT_EQ(value_of(server::prometheus_text(m), "foothold_ready"), 0) << "draining is not ready";
}

TEST(MetricsServer, ProbesFollowTheTicksAndAHungTickFailsHealth) {
  std::string error;
  const auto stall = std::chrono::milliseconds(300);
  auto m = MetricsServer::start("127.0.0.1", 0, proto::Nanos(std::chrono::nanoseconds(stall).count()), error);
  ASSERT_NE(m, nullptr) << error;
  httplib::Client http("127.0.0.1", m->port());
  auto get = [&](const char* path) {
    const auto r = http.Get(path);
    return r ? std::pair<int, std::string>{r->status, r->body} : std::pair<int, std::string>{-1, ""};
  };
  EXPECT_EQ(get("/healthz").first, 503) << "no tick yet";
  MetricsSnapshot s;
  s.ready = true;
  s.clients = 2;
  s.max_clients = 8;
  s.tick = 77;
  m->publish(s, proto::steady_now());
  EXPECT_EQ(get("/healthz"), (std::pair<int, std::string>{200, "ok: tick 77\n"}));
  EXPECT_EQ(get("/readyz"), (std::pair<int, std::string>{200, "ready: 2 of 8 clients\n"}));
  const auto metrics = get("/metrics");
  EXPECT_EQ(metrics.first, 200);
  EXPECT_EQ(value_of(metrics.second, "foothold_tick"), 77);
  // The tick loop stops publishing (a hung tick): both probes fail, saying why.
  std::this_thread::sleep_for(stall * 2);
  const auto hung = get("/healthz");
  EXPECT_EQ(hung.first, 503);
  EXPECT_EQ(hung.second.rfind("stalled: no tick for ", 0), 0u) << hung.second;
  EXPECT_EQ(get("/readyz").first, 503);
  // Ticking again, but draining: alive, not ready.
  s.draining = true;
  m->publish(s, proto::steady_now());
  EXPECT_EQ(get("/healthz").first, 200);
  EXPECT_EQ(get("/readyz"), (std::pair<int, std::string>{503, "draining: not taking players\n"}));
  EXPECT_GE(m->requests(), 8u);
  // A port already taken is refused, naming the address.
  auto second = MetricsServer::start("127.0.0.1", m->port(), proto::kSecond, error);
  EXPECT_EQ(second, nullptr);
  EXPECT_NE(error.find("--metrics-address 127.0.0.1:" + std::to_string(m->port()) + ": cannot listen there"),
            std::string::npos)
      << error;
}

TEST(HttpRequest, AHeadIsWholeAtItsBlankLineAndItsFieldsAreRead) {
  const std::string head = "GET /metrics?name=x HTTP/1.1\r\nHost: a\r\ncontent-length: 12\r\n\r\nbody";
  EXPECT_EQ(server::request_head_length(head.substr(0, 20)), 0u) << "not yet whole";
  EXPECT_EQ(server::request_head_length(head), head.size() - 4);
  const server::RequestHead h = server::parse_request_head(head.substr(0, head.size() - 4));
  EXPECT_TRUE(h.valid);
  EXPECT_EQ(h.method, "GET");
  EXPECT_EQ(h.path, "/metrics");
  EXPECT_EQ(h.content_length, 12u);
  EXPECT_EQ(server::refusal(h).status, 0) << "a small body may ride along (it is never read)";
  auto status_of = [](const std::string& text) { return server::refusal(server::parse_request_head(text)).status; };
  EXPECT_EQ(status_of("POST /metrics HTTP/1.1\r\nContent-Length: 209715200\r\n\r\n"), 405);
  EXPECT_EQ(status_of("DELETE /healthz HTTP/1.1\r\n\r\n"), 405);
  EXPECT_EQ(status_of("GET /metrics HTTP/1.1\r\nContent-Length: 4097\r\n\r\n"), 413);
  EXPECT_EQ(status_of("GET /metrics HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"), 413);
  EXPECT_EQ(status_of("GET /metrics HTTP/1.1\r\nContent-Length: 99999999999999999999999\r\n\r\n"), 413);
  EXPECT_EQ(status_of("GET /metrics HTTP/1.1\r\nContent-Length: 1x\r\n\r\n"), 413);
  EXPECT_EQ(status_of("GET metrics HTTP/1.1\r\n\r\n"), 400);
  EXPECT_EQ(status_of("GET /metrics SPDY/3\r\n\r\n"), 400);
  EXPECT_EQ(status_of("GET /metrics HTTP/1.1\r\nno colon here\r\n\r\n"), 400);
  EXPECT_EQ(status_of("get /metrics HTTP/1.1\r\n\r\n"), 400);
  const std::string answer = server::serialize({405, "only GET and HEAD\n"}, true);
  EXPECT_EQ(answer.rfind("HTTP/1.1 405 Method Not Allowed\r\n", 0), 0u);
  EXPECT_NE(answer.find("Allow: GET, HEAD\r\n"), std::string::npos);
  EXPECT_NE(answer.find("Content-Length: 18\r\n"), std::string::npos);
  EXPECT_EQ(answer.substr(answer.size() - 4), "\r\n\r\n") << "HEAD: no body";
}

// A TCP connection to the metrics port on loopback, spoken to byte by byte.
class RawHttp {
 public:
  explicit RawHttp(int port) : fd_(socket(AF_INET, SOCK_STREAM, 0)) {
    sockaddr_in at{};
    at.sin_family = AF_INET;
    at.sin_port = htons(uint16_t(port));
    at.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = fd_ >= 0 && connect(fd_, reinterpret_cast<sockaddr*>(&at), sizeof at) == 0;
  }
  ~RawHttp() {
    if (fd_ >= 0) ::close(fd_);
  }
  RawHttp(const RawHttp&) = delete;
  RawHttp& operator=(const RawHttp&) = delete;
  bool connected() const { return connected_; }
  // False when the peer has closed or reset the connection.
  bool send_text(const std::string& text) { return ::send(fd_, text.data(), text.size(), MSG_NOSIGNAL) == ssize_t(text.size()); }
  // Everything the server sends until it closes, or what came within `timeout` (closed() says which).
  std::string read_until_closed(std::chrono::milliseconds timeout) {
    std::string got;
    const auto until = std::chrono::steady_clock::now() + timeout;
    while (!closed_) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now());
      if (left.count() <= 0) break;
      pollfd p{fd_, POLLIN, 0};
      if (poll(&p, 1, int(left.count())) <= 0) break;
      char buffer[65536];
      const ssize_t n = recv(fd_, buffer, sizeof buffer, 0);
      if (n <= 0) closed_ = true;
      else got.append(buffer, std::size_t(n));
    }
    return got;
  }
  bool closed() const { return closed_; }

 private:
  int fd_;
  bool connected_ = false;
  bool closed_ = false;
};

// The status of the answer to `request` on a new connection, or -1 when none came whole within a
// second (the probes' own time-out in the manifests is 1 to 2 s).
int status_within_a_second(int port, const std::string& request) {
  RawHttp c(port);
  if (!c.connected() || !c.send_text(request)) return -1;
  const std::string answer = c.read_until_closed(std::chrono::milliseconds(1000));
  if (!c.closed() || answer.rfind("HTTP/1.1 ", 0) != 0) return -1;
  return std::atoi(answer.c_str() + 9);
}

std::unique_ptr<MetricsServer> ticking_server() {
  std::string error;
  auto m = MetricsServer::start("127.0.0.1", 0, 60 * proto::kSecond, error);
  if (m) m->publish(MetricsSnapshot{}, proto::steady_now());
  EXPECT_NE(m, nullptr) << error;
  return m;
}

TEST(MetricsServer, AHugePostIsRefusedBeforeItsBodyIsRead) {
  // Issue #63: a POST announcing 200 MiB was buffered whole (RSS +200 MB while it was open). Now the
  // answer comes as soon as the head is in, with none of the body sent.
  auto m = ticking_server();
  ASSERT_NE(m, nullptr);
  RawHttp c(m->port());
  ASSERT_TRUE(c.connected());
  ASSERT_TRUE(c.send_text("POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 209715200\r\n\r\n"));
  const std::string answer = c.read_until_closed(std::chrono::milliseconds(1000));
  EXPECT_EQ(answer.rfind("HTTP/1.1 405 ", 0), 0u) << answer;
  EXPECT_NE(answer.find("Allow: GET, HEAD"), std::string::npos) << answer;
  EXPECT_TRUE(c.closed()) << "one request per connection";
  EXPECT_EQ(m->refused(), 1u);
  EXPECT_EQ(m->requests(), 0u) << "no endpoint saw it";
  // A GET that announces a body over the limit, and a head over the limit, are refused too.
  EXPECT_EQ(status_within_a_second(m->port(), "GET /metrics HTTP/1.1\r\nContent-Length: 1000000\r\n\r\n"), 413);
  EXPECT_EQ(status_within_a_second(m->port(), "GET /metrics HTTP/1.1\r\nX: " + std::string(5000, 'a') + "\r\n\r\n"), 431);
  EXPECT_EQ(status_within_a_second(m->port(), "GET /nothing HTTP/1.1\r\n\r\n"), 404);
  EXPECT_EQ(status_within_a_second(m->port(), "HEAD /healthz HTTP/1.1\r\n\r\n"), 200);
}

TEST(MetricsServer, OneRequestPerConnection) {
  auto m = ticking_server();
  ASSERT_NE(m, nullptr);
  RawHttp c(m->port());
  ASSERT_TRUE(c.send_text("GET /healthz HTTP/1.1\r\n\r\nGET /readyz HTTP/1.1\r\n\r\n"));
  const std::string answer = c.read_until_closed(std::chrono::milliseconds(1000));
  EXPECT_TRUE(c.closed());
  EXPECT_EQ(answer.find("HTTP/1.1 "), 0u);
  EXPECT_EQ(answer.find("HTTP/1.1 ", 1), std::string::npos) << "the second request is not answered: " << answer;
  EXPECT_EQ(m->requests(), 1u);
}

TEST(MetricsServer, SlowClientsAreCutOffAndNeverHoldTheProbes) {
  // Issue #63: two connections sending a header byte every 2 s held both of httplib's workers, and
  // 5 of 5 /healthz probes with a 2 s time-out failed. Now four drip a byte every 100 ms, for longer
  // than the head's deadline, while a probe every 100 ms must be answered within a second.
  auto m = ticking_server();
  ASSERT_NE(m, nullptr);
  constexpr int kSlow = 4;
  std::vector<std::unique_ptr<RawHttp>> slow;
  for (int i = 0; i < kSlow; ++i) slow.push_back(std::make_unique<RawHttp>(m->port()));
  const std::string drip = "GET /metrics HTTP/1.1\r\nX-Slow: " + std::string(200, 'z');
  std::vector<int> cut_at(kSlow, -1);
  int probes = 0, answered = 0;
  for (std::size_t step = 0; step < 25; ++step) {  // 2.5 s: past MetricsServer::kHeadDeadline (1 s)
    for (int i = 0; i < kSlow; ++i)
      if (cut_at[i] < 0 && (!slow[i]->send_text(drip.substr(step, 1)) ||
                            (slow[i]->read_until_closed(std::chrono::milliseconds(1)), slow[i]->closed())))
        cut_at[i] = int(step);
    ++probes;
    if (status_within_a_second(m->port(), "GET /healthz HTTP/1.1\r\nHost: kubelet\r\n\r\n") == 200) ++answered;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_EQ(answered, probes) << "every probe answered while the slow clients dripped";
  for (int i = 0; i < kSlow; ++i) EXPECT_GE(cut_at[i], 0) << "slow client " << i << " was never cut off";
  EXPECT_GE(m->cut_off(), uint64_t(kSlow));
}

TEST(MetricsServer, ConnectionsPastTheCapCloseTheOldestAndTheProbeIsAnswered) {
  auto m = ticking_server();
  ASSERT_NE(m, nullptr);
  constexpr std::size_t kIdle = 3 * MetricsServer::kMaxConnections;
  std::vector<std::unique_ptr<RawHttp>> idle;
  for (std::size_t i = 0; i < kIdle; ++i) idle.push_back(std::make_unique<RawHttp>(m->port()));
  EXPECT_EQ(status_within_a_second(m->port(), "GET /healthz HTTP/1.1\r\n\r\n"), 200);
  EXPECT_LE(m->connections(), MetricsServer::kMaxConnections);
  EXPECT_GE(m->cut_off(), kIdle + 1 - MetricsServer::kMaxConnections);
  // The oldest went first: the first idle connection is closed, the newest is not.
  idle.front()->read_until_closed(std::chrono::milliseconds(200));
  EXPECT_TRUE(idle.front()->closed());
  idle.back()->read_until_closed(std::chrono::milliseconds(1));
  EXPECT_FALSE(idle.back()->closed());
}

}  // namespace
}  // namespace foothold::test
