#include "server/udp_server.h"

#include <sys/socket.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <csignal>
#include <cstring>

#include <asio/ip/v6_only.hpp>
#include <spdlog/spdlog.h>

namespace foothold::server {

namespace {
constexpr std::size_t kBatch = 64;  // datagrams per recvmmsg
}  // namespace

void drain_socket(asio::ip::udp::socket& socket, std::size_t limit,
                  const std::function<void(const proto::Endpoint&, std::span<const uint8_t>)>& handler) {
  // One byte more than the largest valid datagram would do; 2048 keeps every slot 8-byte aligned.
  constexpr std::size_t kSlot = 2048;
  alignas(8) static thread_local uint8_t buffers[kBatch][kSlot];
  static thread_local std::array<sockaddr_storage, kBatch> addrs;
  std::array<mmsghdr, kBatch> msgs{};
  std::array<iovec, kBatch> iov{};
  std::size_t received = 0;
  while (received < limit) {
    const std::size_t want = std::min(kBatch, limit - received);
    for (std::size_t i = 0; i < want; ++i) {
      iov[i] = {buffers[i], kSlot};
      msgs[i] = {};
      msgs[i].msg_hdr.msg_name = &addrs[i];
      msgs[i].msg_hdr.msg_namelen = sizeof(sockaddr_storage);
      msgs[i].msg_hdr.msg_iov = &iov[i];
      msgs[i].msg_hdr.msg_iovlen = 1;
    }
    const int n = ::recvmmsg(socket.native_handle(), msgs.data(), unsigned(want), MSG_DONTWAIT, nullptr);
    if (n <= 0) {
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
      if (n == 0) return;
      ++received;  // e.g. an ICMP error reported on this receive: not a datagram; try again
      continue;
    }
    for (int i = 0; i < n; ++i) {
      proto::Endpoint from;
      const std::size_t len = std::min<std::size_t>(msgs[size_t(i)].msg_hdr.msg_namelen, from.capacity());
      std::memcpy(from.data(), &addrs[size_t(i)], len);
      from.resize(len);
      // A truncated datagram (larger than the slot) is still handed over: it fails decoding.
      handler(from, std::span<const uint8_t>(buffers[i], std::min<std::size_t>(msgs[size_t(i)].msg_len, kSlot)));
    }
    received += std::size_t(n);
    if (std::size_t(n) < want) return;
  }
}

UdpServer::UdpServer(asio::io_context& io, const Options& options, std::shared_ptr<spdlog::logger> log)
    : io_(io),
      options_(options),
      log_(std::move(log)),
      socket_(io),
      tick_timer_(io),
      stats_timer_(io),
      signals_(io, SIGINT, SIGTERM) {
  socket_.open(options.bind.protocol());
  if (options.bind.address().is_v6()) socket_.set_option(asio::ip::v6_only(false));
  socket_.set_option(asio::socket_base::receive_buffer_size(8 << 20));
  socket_.set_option(asio::socket_base::send_buffer_size(8 << 20));
  socket_.bind(options.bind);
  socket_.non_blocking(true);
  if (!UdpSink::kernel_segments(socket_))
    log_->info("this kernel has no UDP segmentation offload (UDP_SEGMENT, Linux 4.18): each datagram is sent on its own");
}

void UdpServer::run(ServerCore& core, const std::function<void()>& on_stopped) {
  core_ = &core;
  on_stopped_ = on_stopped;
  period_ = proto::kSecond / options_.tick_rate;
  next_tick_ = steady_now() + period_;
  window_start_ = steady_now();
  last_counters_ = core.counters();
  signals_.async_wait([this](const asio::error_code& ec, int signo) {
    if (ec) return;
    log_->info("signal {}: stopping at the next tick boundary", signo);
    stop_requested_ = true;
  });
  start_receive();
  schedule_tick();
  stats_timer_.expires_after(std::chrono::milliseconds(int64_t(options_.stats_interval * 1000)));
  stats_timer_.async_wait([this](const asio::error_code& ec) {
    if (!ec) log_stats();
  });
  io_.run();
}

void UdpServer::request_stop() {
  asio::post(io_, [this] { stop_requested_ = true; });
}

void UdpServer::start_receive() {
  socket_.async_wait(asio::ip::udp::socket::wait_read, [this](const asio::error_code& ec) {
    if (ec || stopped_) return;
    drain_socket(socket_, 4096, [this](const proto::Endpoint& from, std::span<const uint8_t> bytes) {
      core_->on_datagram(steady_now(), from, bytes);
    });
    sink_.flush();
    start_receive();
  });
}

void UdpServer::schedule_tick() {
  tick_timer_.expires_at(std::chrono::steady_clock::time_point(std::chrono::nanoseconds(next_tick_)));
  tick_timer_.async_wait([this](const asio::error_code& ec) {
    if (!ec) on_tick_timer();
  });
}

void UdpServer::on_tick_timer() {
  int ran = 0;
  proto::Nanos now = steady_now();
  // No tick after the one in which the game ended the match.
  while (now >= next_tick_ && ran < options_.max_catchup_ticks && !stop_requested_ && !core_->match_over()) {
    if (now - next_tick_ > period_) ++window_.overruns;
    const proto::Nanos t0 = steady_now();
    const proto::Nanos cpu0 = thread_cpu_now();
    core_->tick(t0);
    sink_.flush();
    const proto::Nanos took = steady_now() - t0;
    window_.tick_us.push_back(double(took) / 1000.0);
    tick_histogram_.add(double(took) / 1e9);
    window_.cpu_us.push_back(double(thread_cpu_now() - cpu0) / 1000.0);
    next_tick_ += period_;
    ++ran;
    now = steady_now();
  }
  if (ran > 0) {
    publish_metrics(false);
    if (agones_) agones_->publish(now, core_->client_count());
    if (core_->match_over() && !stop_requested_) {
      log_->info("the game ended the match: stopping");
      stop_requested_ = true;
    }
  }
  if (now - next_tick_ > period_) {
    // Still behind after catching up as far as allowed: give up on the missed slots.
    const proto::Nanos behind = now - next_tick_;
    const uint64_t skipped = uint64_t(behind / period_);
    window_.slipped += skipped;
    next_tick_ += proto::Nanos(skipped) * period_;
    log_->warn("tick overrun: {} tick(s) could not be caught up; the schedule slipped {:.1f} ms", skipped,
               double(skipped) * double(period_) / 1e6);
  }
  if (stop_requested_) {
    stopped_ = true;
    publish_metrics(true);
    core_->shutdown(steady_now());
    sink_.flush();
    sink_.drain();
    log_stats();
    if (on_stopped_) on_stopped_();
    tick_timer_.cancel();
    stats_timer_.cancel();
    signals_.cancel();
    socket_.cancel();
    io_.stop();
    return;
  }
  schedule_tick();
}

void UdpServer::publish_metrics(bool draining) {
  if (!metrics_) return;
  MetricsSnapshot m;
  m.counters = core_->counters();
  m.send_errors = sink_.errors();
  m.gso_sends = sink_.gso_sends();
  m.gso_datagrams = sink_.gso_datagrams();
  m.clients = core_->client_count();
  m.npcs = core_->npc_count();
  m.max_clients = max_clients_;
  m.tick = core_->current_tick();
  m.tick_rate = options_.tick_rate;
  m.tick_duration = tick_histogram_;
  m.ready = !draining;
  m.draining = draining;
  if (agones_) m.agones_state = agones_->state();
  metrics_->publish(m, steady_now());
}

void UdpServer::log_stats() {
  const proto::Nanos now = steady_now();
  const double seconds = std::max(1e-9, double(now - window_start_) / 1e9);
  const Counters& c = core_->counters();
  auto rate = [&](Counter k) { return double(c.get(k) - last_counters_.get(k)) / seconds; };
  auto delta = [&](Counter k) { return c.get(k) - last_counters_.get(k); };
  // Per client: over the clients connected now (0 when none: no total passes for one client's).
  const std::size_t clients = core_->client_count();
  // A part's share of a whole over this window, in percent (0 when the whole is 0).
  auto pct = [&](Counter part, Counter whole) {
    const uint64_t w = delta(whole);
    return w ? 100.0 * double(delta(part)) / double(w) : 0.0;
  };
  std::vector<double>& t = window_.tick_us;
  const double p50 = percentile(t, 0.5), p99 = percentile(t, 0.99);
  double cpu_mean = 0;
  for (double u : window_.cpu_us) cpu_mean += u;
  if (!window_.cpu_us.empty()) cpu_mean /= double(window_.cpu_us.size());
  log_->info(
      "stats: clients={} tick={} tick_p50_us={:.0f} tick_p99_us={:.0f} tick_cpu_us={:.0f} tick_cpu_p99_us={:.0f} send_cpu_us={:.0f} ticks={} "
      "overruns={} slipped={} "
      "bytes_in_per_s={:.0f} bytes_out_per_s={:.0f} inputs_repeated={} inputs_late={} dropped_invalid={} "
      "dropped_unauthenticated={} dropped_replayed={} rate_limited={} source_limited={} handshake_limited={} "
      "status_limited={} token_limited={} send_errors={} bytes_in_per_client_per_s={:.0f} bytes_out_per_client_per_s={:.0f} "
      "out_snapshots_pct={:.1f} out_handshake_pct={:.1f} out_control_pct={:.1f} in_inputs_pct={:.1f} in_handshake_pct={:.1f} "
      "in_other_pct={:.1f} snapshots_with_state_pct={:.1f} version_hint_limited={} connects_replayed={} "
      "tokens_early={} tokens_far={} messages_in={} messages_out={} message_bytes_in_per_s={:.0f} "
      "message_bytes_out_per_s={:.0f} message_retransmissions={} message_violations={} message_timeouts={} "
      "messages_refused={} messages_undelivered={} game_commands={} game_commands_dropped={} game_removals={} gso_sends={} "
      "gso_datagrams={}",
      core_->client_count(), core_->current_tick(), p50, p99, cpu_mean, percentile(window_.cpu_us, 0.99),
      t.empty() ? 0.0 : double(sink_.sender_cpu() - sender_cpu_mark_) / 1000.0 / double(t.size()), t.size(),
      window_.overruns, window_.slipped,
      rate(Counter::kBytesIn), rate(Counter::kBytesOut), delta(Counter::kInputsRepeated), delta(Counter::kInputsLate),
      c.dropped() - last_counters_.dropped() - delta(Counter::kDropRateLimited) - delta(Counter::kDropReplayed) -
          delta(Counter::kDropBadSeal),
      delta(Counter::kDropBadSeal), delta(Counter::kDropReplayed), delta(Counter::kDropRateLimited),
      delta(Counter::kSourceLimited), delta(Counter::kHandshakeRateLimited), delta(Counter::kStatusRateLimited),
      delta(Counter::kTokenRateLimited), sink_.errors(), per_client(rate(Counter::kBytesIn), clients), per_client(rate(Counter::kBytesOut), clients),
      pct(Counter::kBytesOutSnapshots, Counter::kBytesOut), pct(Counter::kBytesOutHandshake, Counter::kBytesOut),
      pct(Counter::kBytesOutControl, Counter::kBytesOut), pct(Counter::kBytesInInputs, Counter::kBytesIn),
      pct(Counter::kBytesInHandshake, Counter::kBytesIn),
      remainder_pct(delta(Counter::kBytesIn), delta(Counter::kBytesInInputs), delta(Counter::kBytesInHandshake)),
      pct(Counter::kSnapshotsWithState, Counter::kSnapshotsSent), delta(Counter::kVersionHintRateLimited),
      delta(Counter::kDropCookieSpent), delta(Counter::kDropEarlyToken), delta(Counter::kDropFarToken),
      delta(Counter::kMessagesReceived) + delta(Counter::kMessagesUndelivered), delta(Counter::kMessagesSent),
      rate(Counter::kBytesInMessages), rate(Counter::kBytesOutMessages), delta(Counter::kMessageRetransmissions),
      delta(Counter::kMessageViolations), delta(Counter::kMessageTimeouts), delta(Counter::kMessagesRefused),
      delta(Counter::kMessagesUndelivered), delta(Counter::kGameCommands), delta(Counter::kGameCommandsDropped),
      delta(Counter::kGameRemovals),
      sink_.gso_sends() - gso_sends_mark_, sink_.gso_datagrams() - gso_datagrams_mark_);
  last_counters_ = c;
  sender_cpu_mark_ = sink_.sender_cpu();
  gso_sends_mark_ = sink_.gso_sends();
  gso_datagrams_mark_ = sink_.gso_datagrams();
  window_ = Window{};
  window_start_ = now;
  if (stopped_) return;
  stats_timer_.expires_after(std::chrono::milliseconds(int64_t(options_.stats_interval * 1000)));
  stats_timer_.async_wait([this](const asio::error_code& ec) {
    if (!ec) log_stats();
  });
}

}  // namespace foothold::server
