#pragma once
// Reliable, ordered messages over a stream of datagrams that may be lost, repeated or reordered: one
// direction's sender and the other direction's receiver (issue #35's message layer, before it rides
// in the session). Socket- and clock-free: the session hands in the time and the round trip, puts
// what write() gives into its datagrams, and hands the peer's fragments and acknowledgements in.
//
// A message (1 byte to MessageLimits::max_message) is cut into fragments of at most `fragment`
// bytes; every fragment has its own 16-bit sequence number, consecutive in send order, and flags
// that mark the first and the last fragment of its message. The receiver acknowledges with the
// first sequence it still lacks and a bitmap of the 64 after it; the sender sends again what is
// not acknowledged a retransmission time after it went. Both ends hold at most `window`
// fragments in flight, so the receiver's memory is bounded and a sequence never wraps inside it.
//
// The wire (little-endian), as write_fragments() and read_fragments() make and take it:
//   fragment: u16 sequence, u8 flags (bit 0: first of its message, bit 1: last), u16 size, bytes
//   ack:      u16 next (every sequence before it received), u64 beyond (bit i: next + 1 + i received)
// A peer that sends what an honest peer never would (a fragment outside the window, a message that
// overlaps another or grows past max_message, an acknowledgement of a sequence never sent) is told
// by a Violation, which ends the session with a counted reason.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "proto/clock.h"
#include "proto/ring.h"

namespace foothold::proto {

/// The sizes a channel holds to.
struct MessageLimits {
  std::size_t max_message = 64 * 1024;  ///< bytes of one message at most
  /// Bytes of reliable messages a sender holds that the peer has not acknowledged, and bytes a
  /// receiver holds that the application has not taken: the bounds on each side's memory.
  std::size_t queue_bytes = 256 * 1024;
  std::size_t fragment = 1024;  ///< payload bytes of one fragment at most
  uint16_t window = 128;        ///< fragments in flight at most: a power of two, at most 16384 (rounded down to one)
  /// A receiver that would hold more than queue_bytes: false, the fragment is dropped unacknowledged
  /// (sent again once the application has taken what it holds: a client that reads its messages
  /// late); true, the peer is cut off with kOverflow (a server, which takes every message at every
  /// tick, so that only a peer that ignores the window can fill it).
  bool overflow_is_violation = false;
  /// Reserve every in-flight and receive slot's buffer (`fragment` bytes each, a window of each) up
  /// front, so that sending and receiving allocate nothing once the queues have grown to their use
  /// (a client, whose C API promises it: 2 x 128 KiB by default); false, they grow on first use (a
  /// server, which holds one channel per client that sends messages).
  bool reserve_buffers = true;
  /// Each new fragment goes this many times (1 to kMaxCopies), `copy_gap` apart, before waiting for
  /// the retransmission time: redundancy for messages whose worth decays in a round trip (a shot,
  /// judged against a rewind window a little longer than one), so that a lost datagram costs a copy
  /// gap, not a retransmission time. A fragment acknowledged stops its copies. Copies give no round-
  /// trip sample (Karn's rule), so a channel that copies everything keeps the initial RTO.
  uint8_t copies = 1;
  Nanos copy_gap = 10 * kMillisecond;  ///< at least this between copies (one datagram each, on a tick's pace)
};

/// MessageLimits::copies at most.
inline constexpr uint8_t kMaxCopies = 4;

/// A queue holds at most one message (a receiver's, or an unreliable queue's) or one fragment (a
/// sender's, not yet sent) per this many bytes of its byte limit: 4,096 in the default 256 KiB.
/// Each takes a slot whatever its size, so a peer's burst of one-byte messages is bounded by the
/// byte limit too (issue #63), and with the slots' kept buffers (proto/ring.h) so is the memory.
inline constexpr std::size_t kMessageSlotBytes = 64;
/// The most slots a queue of `queue_bytes` takes (at least one).
inline constexpr std::size_t max_slots(std::size_t queue_bytes) {
  return queue_bytes / kMessageSlotBytes > 0 ? queue_bytes / kMessageSlotBytes : 1;
}

/// Bytes of a fragment's header on the wire.
inline constexpr std::size_t kFragmentHeaderBytes = 5;
/// Bytes of an acknowledgement on the wire.
inline constexpr std::size_t kMessageAckBytes = 10;

/// Why send() refused a message.
enum class SendError : uint8_t {
  kNone,
  kEmpty,      ///< zero bytes: a message has at least one
  kTooLarge,   ///< over MessageLimits::max_message
  kQueueFull,  ///< the unacknowledged bytes (or messages: max_slots()) would pass MessageLimits::queue_bytes: try again later
  kNotConnected,  ///< no session to send it in (not yet connected, ended, or no such client)
};
std::string_view to_string(SendError e);

/// What a peer did that an honest one never does: the session ends with it.
enum class Violation : uint8_t {
  kNone,
  kMalformed,         ///< a block of fragments or an acknowledgement cut short or inconsistent
  kOutsideWindow,     ///< a fragment beyond the receive window
  kOversizedFragment, ///< a fragment over MessageLimits::fragment bytes, or empty
  kOverlapping,       ///< a first fragment inside a message, or a middle one outside any
  kTooLarge,          ///< a message grown past MessageLimits::max_message
  kBadAck,            ///< an acknowledgement of a sequence never sent
  kOverflow,          ///< more bytes than the receiver holds (MessageLimits::overflow_is_violation)
  kNoProgress,        ///< sent fragments the peer has not acknowledged for the no-progress time
  kIncomplete,        ///< held a gap or a part of a message for the no-progress time: it never completed
  kUnreliableMalformed, ///< an unreliable message empty, over kMaxUnreliableMessage or cut short
  kOverRate,          ///< sent message bytes faster than MessageConfig::receive_rate allows
};
std::string_view to_string(Violation v);

/// One fragment as it crosses the wire.
struct Fragment {
  uint16_t sequence = 0;
  bool first = false;
  bool last = false;
  std::span<const uint8_t> bytes;
};

/// The receiver's acknowledgement.
struct MessageAck {
  uint16_t next = 0;    ///< the first sequence not yet received (all before it were)
  uint64_t beyond = 0;  ///< bit i: sequence next + 1 + i received
};

/// The round trip as acknowledgements measure it, and the retransmission time it gives (RFC 6298:
/// SRTT + 4 RTTVAR, within [kMinRto, kMaxRto]; kInitialRto before the first sample).
class RttEstimator {
 public:
  static constexpr Nanos kInitialRto = 250 * kMillisecond;
  static constexpr Nanos kMinRto = 30 * kMillisecond;
  static constexpr Nanos kMaxRto = 2 * kSecond;
  /// One round trip measured (a fragment sent once and acknowledged).
  void sample(Nanos rtt);
  /// The retransmission time now.
  Nanos rto() const;
  /// The smoothed round trip (0 before the first sample).
  Nanos smoothed() const { return srtt_; }
  /// Samples taken.
  uint64_t samples() const { return samples_; }

 private:
  Nanos srtt_ = 0, rttvar_ = 0;
  uint64_t samples_ = 0;
};

/// The sending half. Not thread-safe.
class ReliableSender {
 public:
  explicit ReliableSender(const MessageLimits& limits = {});

  /// Queues a message (copied). Refused, with nothing queued, when empty, too large or when the
  /// queue has no room for it.
  SendError send(std::span<const uint8_t> message);
  /// Writes into `out` the fragments due at `now`: first those not yet acknowledged whose time to go
  /// again has come, oldest first: `rto` after they went, doubled for every time they went again, up
  /// to 16 times (a peer that is away is not flooded); or sooner, when a later fragment has been
  /// acknowledged and they went 9/8 of the smoothed round trip ago (lost, not late: QUIC's time
  /// threshold). Then new ones while the window has room, each whole. Returns the bytes written (0:
  /// nothing due, or no room for the next fragment).
  std::size_t write(Nanos now, Nanos rto, std::span<uint8_t> out);
  /// True when write() at `now` with `rto` would write something (given room).
  bool due(Nanos now, Nanos rto) const;
  /// Takes the peer's acknowledgement. kBadAck when it claims a sequence never sent (nothing changes).
  /// With `now` (>= 0) and an estimator, every fragment it newly acknowledges that went only once gives
  /// a round-trip sample (Karn's rule: a copy sent again would make the sample ambiguous).
  Violation on_ack(const MessageAck& ack, Nanos now = -1, RttEstimator* rtt = nullptr);
  /// kNoProgress when fragments have waited for an acknowledgement for `timeout`: the peer no longer
  /// acknowledges (or its acknowledgements never arrive). kNone otherwise.
  Violation check_progress(Nanos now, Nanos timeout) const;

  /// Bytes queued and not acknowledged (what send() weighs against queue_bytes).
  std::size_t queued_bytes() const { return queued_bytes_; }
  /// Fragments sent and not acknowledged.
  std::size_t in_flight() const { return std::size_t(uint16_t(next_sequence_ - oldest_)); }
  /// Fragments sent again after their retransmission time passed, in all.
  uint64_t retransmissions() const { return retransmissions_; }
  /// Bytes of memory held: the in-flight window's buffers and the queue's.
  std::size_t memory_bytes();
  /// Copies sent (MessageLimits::copies), in all.
  uint64_t copies_sent() const { return copies_sent_; }

 private:
  struct Pending {
    bool first = false, last = false;
    std::vector<uint8_t> bytes;
    friend std::vector<uint8_t>& ring_buffer(Pending& p) { return p.bytes; }
  };
  struct InFlight {
    bool used = false, acked = false;
    bool first = false, last = false;
    Nanos sent_at = 0;
    uint8_t resends = 0;  // times sent again (a sample only from one sent once; the backoff)
    uint8_t copies_left = 0;  // copies still to go before the retransmission time rules
    bool copied = false;      // a copy went: an acknowledgement gives no sample
    std::vector<uint8_t> bytes;
  };
  static Nanos backoff(Nanos rto, uint8_t resends) { return rto << (resends < 4 ? resends : 4); }
  // True when fragment `s` (unacknowledged) is due again at `now`.
  bool overdue(uint16_t s, const InFlight& f, Nanos now, Nanos rto) const;
  bool put(std::span<uint8_t> out, std::size_t& used, uint16_t sequence, const InFlight& f) const;
  MessageLimits limits_;
  Ring<Pending> unsent_;          // fragments not yet given a sequence (a Ring: their buffers are reused)
  std::vector<InFlight> flight_;  // by sequence % window
  uint16_t oldest_ = 0;           // the oldest sequence not acknowledged
  uint16_t next_sequence_ = 0;    // the sequence the next new fragment gets
  Nanos progress_at_ = 0;         // when the oldest unacknowledged fragment became the oldest
  bool any_acked_ = false;        // largest_acked_ is meaningful
  uint16_t largest_acked_ = 0;    // the newest sequence acknowledged (fragments before it and not acknowledged are lost or late)
  Nanos loss_delay_ = 0;          // 9/8 of the smoothed round trip (0: none measured; only the retransmission time then)
  std::size_t queued_bytes_ = 0;
  uint64_t retransmissions_ = 0;
  uint64_t copies_sent_ = 0;
};

/// The receiving half. Not thread-safe.
class ReliableReceiver {
 public:
  explicit ReliableReceiver(const MessageLimits& limits = {});

  /// Takes one fragment arriving at `now`. Duplicates and fragments already delivered change nothing;
  /// a fragment the receiver has no room for now (the application has not taken what it holds) is
  /// dropped unacknowledged, so the sender sends it again (or, with overflow_is_violation, is
  /// kOverflow). After a violation the session ends: the receiver is not to be used again.
  Violation on_fragment(const Fragment& f, Nanos now = 0);
  /// kIncomplete when the receiver has held fragments it cannot deliver (a gap before them, or a
  /// message not yet whole) for `timeout` with no fragment delivered in order. kNone otherwise.
  Violation check_progress(Nanos now, Nanos timeout) const;
  /// The acknowledgement of what has arrived.
  MessageAck ack() const;
  /// Moves the next complete message, in send order, into `out`; false when there is none. `out`'s
  /// own buffer is kept for a later message: a caller that passes the same vector every time makes
  /// the receiver allocate nothing once buffers have grown to the messages' sizes.
  bool receive(std::vector<uint8_t>& out);

  /// Bytes held: fragments waiting for earlier ones, the message being joined and those complete.
  std::size_t held_bytes() const { return held_bytes_; }
  /// Bytes of memory held: the window's buffers, the message being joined, the complete ones.
  std::size_t memory_bytes();

 private:
  struct Slot {
    bool present = false;
    bool first = false, last = false;
    std::vector<uint8_t> bytes;
  };
  Violation deliver_in_order();
  MessageLimits limits_;
  std::vector<Slot> slots_;  // by sequence % window
  uint16_t next_ = 0;        // the first sequence not yet received in order
  bool joining_ = false;     // inside a message (its first fragment delivered, not its last)
  std::size_t present_ = 0;  // slots holding a fragment not yet delivered in order
  std::size_t messages_ = 0; // messages held: complete, or their last fragment present (at most max_slots)
  Nanos waiting_since_ = 0;  // when something began to wait (a slot or a part message), or last moved on
  std::vector<uint8_t> joined_;
  Ring<std::vector<uint8_t>> complete_;  // whole messages not yet taken (buffers reused, see receive())
  std::size_t held_bytes_ = 0;
};

/// Appends `f` to `out` at `used` if it fits (header and bytes); false when it does not.
bool write_fragment(std::span<uint8_t> out, std::size_t& used, const Fragment& f);
/// Reads a block of fragments written one after another, calling `take(fragment)` for each (it
/// returns a Violation to stop); kMalformed when the block is cut short.
template <typename Take>
Violation read_fragments(std::span<const uint8_t> block, Take&& take);
/// An acknowledgement as kMessageAckBytes, and back (false when `bytes` is short).
void write_ack(const MessageAck& ack, std::span<uint8_t, kMessageAckBytes> out);
bool read_ack(std::span<const uint8_t> bytes, MessageAck& ack);

template <typename Take>
Violation read_fragments(std::span<const uint8_t> block, Take&& take) {
  std::size_t at = 0;
  while (at < block.size()) {
    if (block.size() - at < kFragmentHeaderBytes) return Violation::kMalformed;
    const uint8_t* p = block.data() + at;
    Fragment f;
    f.sequence = uint16_t(p[0] | (p[1] << 8));
    if ((p[2] & ~3u) != 0) return Violation::kMalformed;
    f.first = (p[2] & 1) != 0;
    f.last = (p[2] & 2) != 0;
    const std::size_t size = std::size_t(p[3] | (p[4] << 8));
    at += kFragmentHeaderBytes;
    if (block.size() - at < size) return Violation::kMalformed;
    f.bytes = block.subspan(at, size);
    at += size;
    if (const Violation v = take(f); v != Violation::kNone) return v;
  }
  return Violation::kNone;
}

}  // namespace foothold::proto
