#include "client/udp_client.h"

#include <algorithm>
#include <functional>
#include <queue>
#include <vector>

#include <cerrno>
#include <cstring>
#include <ctime>

#include "proto/asio.h"

#if defined(_WIN32)
#include <mstcpip.h>
#include <winsock2.h>
#else
#include <sys/socket.h>
#include <sys/types.h>
#endif

#include "proto/endpoint.h"

namespace foothold::client {

bool parse_address(const std::string& text, proto::TokenAddress& out, std::string& error) {
  const proto::Endpoint e = proto::parse_endpoint(text, error);
  if (!error.empty()) return false;
  if (e.port() == 0) {
    error = "'" + text + "': port 0 is no server's port";
    return false;
  }
  out = proto::to_token_address(e);
  return true;
}

std::string to_string(const proto::TokenAddress& address) { return proto::to_string(proto::from_token_address(address)); }

struct UdpClient::Socket {
  asio::io_context io;
  asio::ip::udp::socket socket{io};
  // One byte more than the largest valid datagram would do; 2048 keeps it 8-byte aligned.
  alignas(8) uint8_t buffer[2048];
};

namespace {
void send_on(asio::ip::udp::socket& socket, std::span<const uint8_t> bytes) {
  asio::error_code ignored;
  socket.send(asio::buffer(bytes.data(), bytes.size()), 0, ignored);
}
}  // namespace

// Datagrams the conditioner holds, each way, until they are due.
struct UdpClient::Conditioner {
  Conditioner(const Impairment& impairment, uint64_t seed) : impairer(impairment, seed) {}
  struct Flight {
    proto::Nanos due = 0;
    uint64_t order = 0;  // ties leave in the order they came
    bool outgoing = false;
    std::vector<uint8_t> bytes;
    bool operator>(const Flight& o) const { return due != o.due ? due > o.due : order > o.order; }
  };
  void hold(proto::Nanos at, bool outgoing, std::span<const uint8_t> bytes) {
    proto::Nanos delays[2];
    const int copies = impairer.decide(delays);
    for (int i = 0; i < copies; ++i)
      flights.push({at + delays[i], order++, outgoing, std::vector<uint8_t>(bytes.begin(), bytes.end())});
  }
  Impairer impairer;
  std::priority_queue<Flight, std::vector<Flight>, std::greater<Flight>> flights;
  uint64_t order = 0;
  proto::Nanos now = 0;  // the poll under way: when what the session sends leaves it
};

// Sends on the connected socket, or hands the datagram to the conditioner. A datagram the kernel
// refuses (a full buffer) is lost, as the network may lose it: the session's redundancy covers it.
class UdpClient::Sink final : public ServerSink {
 public:
  Sink(asio::ip::udp::socket& socket, std::unique_ptr<Conditioner>& conditioner)
      : socket_(socket), conditioner_(conditioner) {}
  void send(std::span<const uint8_t> bytes) override {
    if (conditioner_) {
      conditioner_->hold(conditioner_->now, true, bytes);
      return;
    }
    send_on(socket_, bytes);
  }

 private:
  asio::ip::udp::socket& socket_;
  std::unique_ptr<Conditioner>& conditioner_;
};

UdpClient::UdpClient(const World& world, const MoveSettings& settings, const proto::ConnectToken& token,
                     const proto::TokenAddress& server, const SessionOptions& options)
    : socket_(std::make_unique<Socket>()) {
  const proto::Endpoint to = proto::from_token_address(server);
  asio::error_code ec;
  socket_->socket.open(to.protocol(), ec);
  if (!ec) socket_->socket.bind(proto::Endpoint(to.protocol(), 0), ec);
  if (!ec) socket_->socket.connect(to, ec);
  if (!ec) socket_->socket.non_blocking(true, ec);
#if defined(_WIN32)
  // Windows reports an ICMP "port unreachable" (a server restarting, say) as WSAECONNRESET on the
  // next receive, and keeps failing receives on a connected UDP socket after it: a session must
  // outlive that, as every Windows game client's does, so the report is switched off.
  BOOL report_resets = FALSE;
  DWORD returned = 0;
  if (!ec && ::WSAIoctl(socket_->socket.native_handle(), SIO_UDP_CONNRESET, &report_resets, sizeof report_resets,
                        nullptr, 0, &returned, nullptr, nullptr) != 0)
    ec = asio::error_code(::WSAGetLastError(), asio::system_category());
#else
  // Receive time stamps (SO_TIMESTAMPNS): the round trip as the network sees it, not the frame loop.
  const int on = 1;
  if (!ec && ::setsockopt(socket_->socket.native_handle(), SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof on) != 0)
    ec = asio::error_code(errno, asio::system_category());
#endif
  if (ec) {
    error_ = "cannot open a UDP socket to " + proto::to_string(to) + ": " + ec.message();
    return;
  }
  sink_ = std::make_unique<Sink>(socket_->socket, conditioner_);
  session_ = std::make_unique<ClientSession>(world, settings, *sink_, token, options);
  session_->set_server_name(proto::to_string(to));
}

UdpClient::~UdpClient() = default;

void UdpClient::set_conditioner(const Impairment& impairment, uint64_t seed) {
  conditioner_ = impairment.active() ? std::make_unique<Conditioner>(impairment, seed) : nullptr;
}

void UdpClient::release_due(proto::Nanos now) {
  while (conditioner_ && !conditioner_->flights.empty() && conditioner_->flights.top().due <= now) {
    Conditioner::Flight f = conditioner_->flights.top();
    conditioner_->flights.pop();
    if (f.outgoing) {
      send_on(socket_->socket, f.bytes);
    } else {
      // Delivered when it was due, as the network would have brought it (not before the last poll).
      session_->on_datagram(std::max(f.due, last_poll_), f.bytes);
    }
  }
}

void UdpClient::deliver(proto::Nanos arrived, std::span<const uint8_t> bytes) {
  if (conditioner_) {
    conditioner_->hold(arrived, false, bytes);
  } else {
    session_->on_datagram(arrived, bytes);
  }
}

#if defined(_WIN32)
void UdpClient::receive_waiting(proto::Nanos now) {
  // Winsock has no receive time stamps: a datagram arrived at this poll. Non-blocking, so an empty
  // socket answers WSAEWOULDBLOCK (asio's would_block).
  for (int i = 0; i < 256; ++i) {
    asio::error_code ec;
    const std::size_t n = socket_->socket.receive(asio::buffer(socket_->buffer), 0, ec);
    if (ec == asio::error::would_block) break;
    if (ec == asio::error::connection_refused || ec == asio::error::connection_reset) {
      session_->on_unreachable();  // only if SIO_UDP_CONNRESET could not be switched off
      continue;
    }
    if (ec) continue;  // not a datagram of ours (one larger than any: WSAEMSGSIZE)
    deliver(std::max(last_poll_, now), {socket_->buffer, n});
  }
}
#else
void UdpClient::receive_waiting(proto::Nanos now) {
  // The kernel's clock now, to place each datagram's receive time stamp on the session's clock.
  timespec real_now{};
  clock_gettime(CLOCK_REALTIME, &real_now);
  const int fd = socket_->socket.native_handle();
  for (int i = 0; i < 256; ++i) {
    iovec io{socket_->buffer, sizeof socket_->buffer};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(timespec))];
    msghdr msg{};
    msg.msg_iov = &io;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    const ssize_t n = ::recvmsg(fd, &msg, MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    if (n < 0 && errno == ECONNREFUSED) {
      // An ICMP "port unreachable" reported on this receive: nothing listens there (said if the
      // handshake then times out).
      session_->on_unreachable();
      continue;
    }
    if (n < 0) continue;  // not a datagram
    // When it arrived: the kernel's stamp, as long before this poll as it is before the kernel's
    // clock now (never before the last poll, so the session's times stay in order). A frame loop
    // polls up to a frame late: measured at the poll, every round trip would carry that.
    proto::Nanos arrived = now;
    for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
      if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_TIMESTAMPNS) continue;
      timespec stamp{};
      std::memcpy(&stamp, CMSG_DATA(c), sizeof stamp);
      const proto::Nanos age = (real_now.tv_sec - stamp.tv_sec) * proto::kSecond + (real_now.tv_nsec - stamp.tv_nsec);
      arrived = std::max(last_poll_, now - std::clamp<proto::Nanos>(age, 0, proto::kSecond));
    }
    deliver(arrived, {socket_->buffer, std::size_t(n)});
  }
}
#endif

proto::Nanos UdpClient::poll(proto::Nanos now, InputSource& source) {
  if (conditioner_) conditioner_->now = now;
  if (session_->phase() == ClientSession::Phase::kIdle) session_->start(now);
  receive_waiting(now);
  release_due(now);
  last_poll_ = now;
  const proto::Nanos next = session_->update(now, source);
  release_due(now);  // what the update sent with no delay due
  if (conditioner_ && !conditioner_->flights.empty()) return std::min(next, conditioner_->flights.top().due);
  return next;
}

}  // namespace foothold::client
