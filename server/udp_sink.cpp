#include "server/udp_sink.h"

#include <netinet/in.h>
#include <netinet/udp.h>
#include <sys/socket.h>
#include <time.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>

namespace foothold::server {

proto::Nanos thread_cpu_now() {
  timespec ts{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return proto::Nanos(ts.tv_sec) * proto::kSecond + ts.tv_nsec;
}

namespace {

constexpr std::size_t kBatch = 64;  // messages per sendmmsg
constexpr std::size_t kMaxQueued = 1024;
// A segmented send carries at most this many datagrams (the kernel's UDP_MAX_SEGMENTS is 64 in
// the oldest kernels that have GSO) and at most this many bytes (an IPv4 UDP payload's limit, less
// some room).
constexpr std::size_t kMaxSegments = 64;
constexpr std::size_t kMaxSegmentedBytes = 65000;

// The control message of a segmented send: its segment size.
struct SegmentControl {
  alignas(cmsghdr) uint8_t bytes[CMSG_SPACE(sizeof(uint16_t))];
};

void set_segment_size(msghdr& h, SegmentControl& control, uint16_t size) {
  std::memset(control.bytes, 0, sizeof(control.bytes));
  h.msg_control = control.bytes;
  h.msg_controllen = sizeof(control.bytes);
  cmsghdr* c = CMSG_FIRSTHDR(&h);
  c->cmsg_level = SOL_UDP;
  c->cmsg_type = UDP_SEGMENT;
  c->cmsg_len = CMSG_LEN(sizeof(uint16_t));
  std::memcpy(CMSG_DATA(c), &size, sizeof(size));
}

// What the kernel says when it will not segment a send (rather than losing one datagram): no
// checksum offload on the route (EIO), checksums turned off or too many segments (EINVAL), or a
// kernel that does not know the option after all.
bool refuses_segmenting(int error) { return error == EIO || error == EINVAL || error == ENOPROTOOPT || error == EOPNOTSUPP; }

}  // namespace

UdpSink::UdpSink(asio::ip::udp::socket& socket, bool batch, bool gso) : socket_(socket), batch_(batch), gso_(batch && gso) {
  if (batch_) {
    for (Batch* b : {&filling_, &sending_}) {
      b->arena.reserve(kMaxQueued * 1300);
      b->pending.reserve(kMaxQueued);
    }
    sender_ = std::thread([this] { sender_loop(); });
  }
}

UdpSink::~UdpSink() {
  if (!batch_) return;
  flush();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  cv_.notify_all();
  sender_.join();
}

void UdpSink::send(const proto::Endpoint& to, std::span<const uint8_t> bytes) {
  if (!batch_) {
    asio::error_code ec;
    socket_.send_to(asio::buffer(bytes.data(), bytes.size()), to, 0, ec);
    if (ec) ++errors_;
    return;
  }
  filling_.pending.push_back({to, filling_.arena.size(), bytes.size()});
  filling_.arena.insert(filling_.arena.end(), bytes.begin(), bytes.end());
  if (filling_.pending.size() >= kMaxQueued) flush();
}

void UdpSink::flush() {
  if (!batch_ || filling_.pending.empty()) return;
  std::unique_lock<std::mutex> lock(mutex_);
  cv_.wait(lock, [this] { return !busy_; });
  std::swap(filling_, sending_);
  busy_ = true;
  lock.unlock();
  cv_.notify_all();
}

void UdpSink::drain() {
  if (!batch_) return;
  std::unique_lock<std::mutex> lock(mutex_);
  cv_.wait(lock, [this] { return !busy_; });
}

void UdpSink::sender_loop() {
  while (true) {
    std::unique_lock<std::mutex> lock(mutex_);
    cv_.wait(lock, [this] { return busy_ || stop_; });
    if (!busy_) return;  // stopping, nothing left
    lock.unlock();
    const proto::Nanos cpu0 = thread_cpu_now();
    send_batch(sending_);
    sender_cpu_ += thread_cpu_now() - cpu0;
    lock.lock();
    busy_ = false;
    lock.unlock();
    cv_.notify_all();
  }
}

std::size_t UdpSink::segment_run(const std::vector<Pending>& pending, std::size_t first) const {
  const Pending& head = pending[first];
  std::size_t n = 1, bytes = head.size;
  while (first + n < pending.size() && n < kMaxSegments) {
    const Pending& p = pending[first + n];
    const Pending& before = pending[first + n - 1];
    // Same address, no longer than the first, and right after the one before in the arena (the
    // queue appends, so always; checked because the segments are cut from one buffer).
    if (!(p.to == head.to) || p.size > head.size || p.size == 0 || bytes + p.size > kMaxSegmentedBytes ||
        p.offset != before.offset + before.size)
      break;
    bytes += p.size;
    ++n;
    if (p.size < head.size) break;  // a shorter one is the run's last
  }
  return n;
}

bool UdpSink::kernel_segments(asio::ip::udp::socket& socket) {
  // A kernel that has UDP_SEGMENT answers for it (0: no segmenting by default); one without it
  // would take the control message for nothing and send each run as one long datagram.
  int value = 0;
  socklen_t length = sizeof(value);
  return ::getsockopt(socket.native_handle(), SOL_UDP, UDP_SEGMENT, &value, &length) == 0;
}

void UdpSink::send_batch(Batch& batch) {
  if (gso_ && !gso_probed_) {
    gso_probed_ = true;
    if (!kernel_segments(socket_)) gso_ = false;
  }
  std::array<mmsghdr, kBatch> msgs{};
  std::array<iovec, kBatch> iov{};
  std::array<SegmentControl, kBatch> control;
  std::array<std::size_t, kBatch> carries{};  // datagrams in each message
  std::size_t next = 0;  // the first datagram not sent yet
  while (next < batch.pending.size()) {
    std::size_t n = 0;
    for (std::size_t at = next; n < kBatch && at < batch.pending.size(); ++n) {
      const Pending& p = batch.pending[at];
      const std::size_t run = gso_ ? segment_run(batch.pending, at) : 1;
      const Pending& last = batch.pending[at + run - 1];
      iov[n] = {batch.arena.data() + p.offset, last.offset + last.size - p.offset};
      msgs[n] = {};
      msgs[n].msg_hdr.msg_name = const_cast<void*>(static_cast<const void*>(p.to.data()));
      msgs[n].msg_hdr.msg_namelen = socklen_t(p.to.size());
      msgs[n].msg_hdr.msg_iov = &iov[n];
      msgs[n].msg_hdr.msg_iovlen = 1;
      if (run > 1) set_segment_size(msgs[n].msg_hdr, control[n], uint16_t(p.size));
      carries[n] = run;
      at += run;
    }
    std::size_t done = 0;
    while (done < n) {
      const int sent = ::sendmmsg(socket_.native_handle(), msgs.data() + done, unsigned(n - done), MSG_DONTWAIT);
      if (sent > 0) {
        for (std::size_t k = done; k < done + std::size_t(sent); ++k) {
          next += carries[k];
          if (carries[k] > 1) {
            ++gso_sends_;
            gso_datagrams_ += carries[k];
          }
        }
        done += std::size_t(sent);
        continue;
      }
      if (carries[done] > 1 && refuses_segmenting(errno)) {
        gso_ = false;  // never asked again; this run and the rest go one by one
        break;
      }
      // A full send buffer (or an unreachable peer) loses what this message carried, as the network might.
      errors_ += carries[done];
      next += carries[done];
      ++done;
    }
  }
  batch.pending.clear();
  batch.arena.clear();
}

}  // namespace foothold::server
