#include "bots/shared_socket.h"

#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace foothold::bots {

namespace {
constexpr std::size_t kDatagramRoom = 2048;  // more than any datagram of the protocol
// Room for one IP_PKTINFO control message.
constexpr std::size_t kControlRoom = CMSG_SPACE(sizeof(in_pktinfo));
}  // namespace

std::string SharedSocket::unusable(const proto::Endpoint& server) {
  const asio::ip::address a = server.address();
  if (!a.is_v4() || !a.to_v4().is_loopback())
    return "--one-socket needs an IPv4 loopback server (127.x.x.x), not " + a.to_string() +
           ": its bots send from addresses of their own in 127.0.0.0/8";
  return {};
}

SharedSocket::SharedSocket(asio::io_context& io, const proto::Endpoint& server, std::size_t bots)
    : socket_(io), server_(server), bots_(bots) {
  if (bots > kMaxBots) {
    error_ = "--one-socket serves at most " + std::to_string(kMaxBots) + " bots";
    return;
  }
  if (error_ = unusable(server); !error_.empty()) return;
  asio::error_code ec;
  socket_.open(asio::ip::udp::v4(), ec);
  // Every address: the bots' addresses are 127.1.x.y, and a socket bound to one address receives
  // only what is sent to that one. The receive path drops whatever does not come from the server.
  if (!ec) socket_.bind(asio::ip::udp::endpoint(asio::ip::udp::v4(), 0), ec);
  if (!ec) socket_.non_blocking(true, ec);
  if (ec) {
    error_ = "cannot open the bots' shared socket: " + ec.message();
    return;
  }
  const int fd = socket_.native_handle();
  const int on = 1;
  if (setsockopt(fd, IPPROTO_IP, IP_PKTINFO, &on, sizeof on) != 0) {
    error_ = std::string("cannot ask for each datagram's address (IP_PKTINFO): ") + std::strerror(errno);
    return;
  }
  // The whole fleet's snapshots arrive here: room for a few ticks of them (beyond net.core.rmem_max
  // only for root, with SO_RCVBUFFORCE; the plain request is capped silently otherwise).
  const int room = 16 << 20;
  if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &room, sizeof room) != 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &room, sizeof room);
  if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &room, sizeof room) != 0)
    setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &room, sizeof room);
  bytes_.reserve(kBatch * kDatagramRoom);
  queued_.reserve(kBatch);
  in_.resize(kBatch * kDatagramRoom);
}

void SharedSocket::queue(uint32_t bot, std::span<const uint8_t> bytes) {
  if (!ok() || bot >= bots_ || bytes.size() > kDatagramRoom) return;
  queued_.push_back({bot, uint32_t(bytes_.size()), uint32_t(bytes.size())});
  bytes_.insert(bytes_.end(), bytes.begin(), bytes.end());
  if (queued_.size() == kBatch) flush();
}

void SharedSocket::flush() {
  if (queued_.empty()) return;
  mmsghdr msgs[kBatch];
  iovec iov[kBatch];
  alignas(cmsghdr) uint8_t control[kBatch][kControlRoom];
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(server_.port());
  to.sin_addr.s_addr = htonl(server_.address().to_v4().to_uint());
  const std::size_t n = queued_.size();
  for (std::size_t i = 0; i < n; ++i) {
    iov[i] = {bytes_.data() + queued_[i].offset, queued_[i].size};
    msghdr& h = msgs[i].msg_hdr;
    h = msghdr{};
    h.msg_name = &to;
    h.msg_namelen = sizeof to;
    h.msg_iov = &iov[i];
    h.msg_iovlen = 1;
    // The source address: the bot's own.
    std::memset(control[i], 0, kControlRoom);
    h.msg_control = control[i];
    h.msg_controllen = kControlRoom;
    cmsghdr* c = CMSG_FIRSTHDR(&h);
    c->cmsg_level = IPPROTO_IP;
    c->cmsg_type = IP_PKTINFO;
    c->cmsg_len = CMSG_LEN(sizeof(in_pktinfo));
    in_pktinfo info{};
    info.ipi_spec_dst.s_addr = htonl(address_of(queued_[i].bot));
    std::memcpy(CMSG_DATA(c), &info, sizeof info);
    msgs[i].msg_len = 0;
  }
  for (std::size_t done = 0; done < n;) {
    const int sent = sendmmsg(socket_.native_handle(), msgs + done, unsigned(n - done), MSG_DONTWAIT);
    if (sent > 0) {
      done += std::size_t(sent);
    } else if (errno == EINTR) {
      continue;
    } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
      break;  // a full send buffer: the rest are lost, as on a network
    } else {
      ++done;  // this one was refused (an ICMP error reported here, say): the next ones still go
    }
  }
  queued_.clear();
  bytes_.clear();
}

std::size_t SharedSocket::receive(const Receiver& receiver, int max_batches) {
  if (!ok()) return 0;
  std::size_t handed = 0;
  mmsghdr msgs[kBatch];
  iovec iov[kBatch];
  sockaddr_in from[kBatch];
  alignas(cmsghdr) uint8_t control[kBatch][kControlRoom + 64];
  const uint32_t server_address = server_.address().to_v4().to_uint();
  for (int batch = 0; batch < max_batches; ++batch) {
    for (std::size_t i = 0; i < kBatch; ++i) {
      iov[i] = {in_.data() + i * kDatagramRoom, kDatagramRoom};
      msghdr& h = msgs[i].msg_hdr;
      h = msghdr{};
      h.msg_name = &from[i];
      h.msg_namelen = sizeof from[i];
      h.msg_iov = &iov[i];
      h.msg_iovlen = 1;
      h.msg_control = control[i];
      h.msg_controllen = sizeof control[i];
    }
    const int got = recvmmsg(socket_.native_handle(), msgs, unsigned(kBatch), MSG_DONTWAIT, nullptr);
    if (got <= 0) {
      if (got < 0 && errno == EINTR) continue;
      break;  // nothing more waiting (or an error reported on the socket: not a datagram)
    }
    for (int i = 0; i < got; ++i) {
      const msghdr& h = msgs[i].msg_hdr;
      if (h.msg_flags & MSG_TRUNC) continue;  // larger than any datagram of ours: not the server's
      if (h.msg_namelen < sizeof(sockaddr_in) || from[i].sin_family != AF_INET ||
          ntohl(from[i].sin_addr.s_addr) != server_address || ntohs(from[i].sin_port) != server_.port())
        continue;
      // Which bot: the address it was sent to.
      uint32_t to = 0;
      for (const cmsghdr* c = CMSG_FIRSTHDR(&h); c; c = CMSG_NXTHDR(const_cast<msghdr*>(&h), const_cast<cmsghdr*>(c)))
        if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_PKTINFO) {
          in_pktinfo info;
          std::memcpy(&info, CMSG_DATA(c), sizeof info);
          to = ntohl(info.ipi_addr.s_addr);
        }
      const uint32_t bot = to - address_of(0);
      if ((to & 0xffff0000u) != address_of(0) || bot >= bots_) continue;
      receiver(bot, {in_.data() + std::size_t(i) * kDatagramRoom, std::size_t(msgs[i].msg_len)});
      ++handed;
    }
    if (std::size_t(got) < kBatch) break;
  }
  return handed;
}

}  // namespace foothold::bots
