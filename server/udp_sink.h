#pragma once
// The server's datagrams onto its UDP socket: queued per tick, sent by a thread of their own with
// sendmmsg, and a run of datagrams to one client sent as one with UDP GSO where the kernel takes it.

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <span>
#include <thread>
#include <vector>

#include <asio/ip/udp.hpp>

#include "proto/clock.h"
#include "proto/endpoint.h"

namespace foothold::server {

/// CPU time the calling thread has used, as Nanos.
proto::Nanos thread_cpu_now();

/// A DatagramSink over a non-blocking UDP socket. In batch mode datagrams are queued, and flush()
/// hands the queue to a sender thread that puts it on the wire with sendmmsg (one system call for up
/// to 64): the tick thread builds the next batch while the kernel works on the last one. A flush
/// waits only when the previous batch is still being sent.
///
/// With `gso` (batch mode only), consecutive datagrams to one address, all of one size but the last
/// (no longer than the others), go to the kernel as one buffer that it cuts into those datagrams (UDP
/// generic segmentation offload, Linux 4.18 on): a client's message datagrams of a tick, all full
/// size, cross the network stack once. The receiver sees the same datagrams either way. Where the
/// kernel does not know UDP_SEGMENT, or refuses a segmented send (no checksum offload on the route,
/// SO_NO_CHECK), the sink sends every datagram on its own from then on, the refused ones included.
///
/// Keeps a reference to `socket`: it must outlive the sink. send() and flush() belong to one
/// thread. Without batch mode each send() is a send_to at once and there is no sender thread.
class UdpSink final : public proto::DatagramSink {
 public:
  /// In batch mode starts the sender thread, which the destructor joins after a last flush().
  explicit UdpSink(asio::ip::udp::socket& socket, bool batch = false, bool gso = true);
  /// In batch mode flushes what is queued and joins the sender thread once it is sent.
  ~UdpSink() override;
  /// In batch mode the datagram is copied into the queue, which is flushed by itself at 1024 datagrams.
  /// A datagram the kernel refuses counts in errors(), never throws.
  void send(const proto::Endpoint& to, std::span<const uint8_t> bytes) override;
  /// Hands the queued datagrams to the sender thread (waiting while it still sends the previous
  /// batch). Does nothing without batch mode or with an empty queue.
  void flush();
  /// Waits until everything flushed so far has been sent.
  void drain();
  /// Datagrams the kernel refused (full send buffer, unreachable peer): lost, as the network may.
  uint64_t errors() const { return errors_.load(); }
  /// CPU time the sender thread has spent sending, nanoseconds.
  proto::Nanos sender_cpu() const { return sender_cpu_.load(); }
  /// Segmented sends the kernel took, and the datagrams they carried.
  uint64_t gso_sends() const { return gso_sends_.load(); }
  uint64_t gso_datagrams() const { return gso_datagrams_.load(); }
  /// Whether runs are still sent segmented: false without `gso`, once the socket turned out not to
  /// know UDP_SEGMENT, or once the kernel refused a segmented send.
  bool gso() const { return gso_.load(); }
  /// Whether the kernel knows UDP_SEGMENT on `socket` (open): the sink asks before its first send.
  static bool kernel_segments(asio::ip::udp::socket& socket);

 private:
  struct Pending {
    proto::Endpoint to;
    std::size_t offset;
    std::size_t size;
  };
  struct Batch {
    std::vector<uint8_t> arena;
    std::vector<Pending> pending;
  };
  void send_batch(Batch& batch);
  /// How many of `pending` from `first` on go as one segmented send (1: on its own).
  std::size_t segment_run(const std::vector<Pending>& pending, std::size_t first) const;
  void sender_loop();

  asio::ip::udp::socket& socket_;
  bool batch_;
  Batch filling_;   // the io thread's
  Batch sending_;   // the sender thread's while busy_
  std::mutex mutex_;
  std::condition_variable cv_;
  bool busy_ = false;
  bool stop_ = false;
  bool gso_probed_ = false;  // the sender thread's: whether the socket was asked for UDP_SEGMENT yet
  std::thread sender_;
  std::atomic<bool> gso_;
  std::atomic<uint64_t> errors_{0};
  std::atomic<uint64_t> gso_sends_{0};
  std::atomic<uint64_t> gso_datagrams_{0};
  std::atomic<proto::Nanos> sender_cpu_{0};
};

}  // namespace foothold::server
