#pragma once
// One side's messages in a session: the reliable channel (message_channel.h) both ways, unreliable
// messages both ways, the round trip that times retransmission, the byte budget, the time-outs, and
// the message section a session datagram carries them in (WIRE_FORMAT.md, "Messages").
//
// A session datagram carries messages as a compact message of kind kCarrier (compact.h's kinds):
//   u8  3 (the carrier kind, nothing else in that byte)
//   u16 bytes of the compact message it carries (a snapshot or inputs; 0: none), then that message
//   the message section, to the end of the datagram:
//     u8  flags: bit 0 an acknowledgement follows, bit 1 reliable fragments, bit 2 unreliable
//         messages (other bits 0; at least one set)
//     [ack, kMessageAckBytes]                            (bit 0)
//     [u16 bytes, then fragments one after another]      (bit 1, message_channel.h's layout)
//     [u16 bytes, then unreliable messages: u16 sequence, u16 size, bytes] (bit 2)
// Anything cut short, left over, or a flag outside these, and the datagram is refused as malformed.
// The carrier is sealed in the session like everything else: a forged, replayed or truncated one
// never reaches this code.

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "proto/clock.h"
#include "proto/message_channel.h"

namespace foothold::proto {

/// The first byte of a carrier (a compact kind beside kSnapshot and kInputs).
inline constexpr uint8_t kCarrierKind = 3;
/// Bytes a carrier adds to the compact message it carries: its kind byte and the length.
inline constexpr std::size_t kCarrierOverhead = 3;
/// Bytes of one unreliable message at most: it goes whole in one datagram, sent once.
inline constexpr std::size_t kMaxUnreliableMessage = 1024;
/// Bytes of a message section's smallest useful content: flags and an acknowledgement.
inline constexpr std::size_t kAckSectionBytes = 1 + kMessageAckBytes;

/// A carrier's two parts, as split_carrier() finds them.
struct CarrierParts {
  std::span<const uint8_t> compact;   ///< the compact message carried (empty: none)
  std::span<const uint8_t> messages;  ///< the message section (may be empty)
};
/// True when `payload` is a carrier (its first byte is kCarrierKind).
bool is_carrier(std::span<const uint8_t> payload);
/// Splits a carrier; false when it is cut short.
bool split_carrier(std::span<const uint8_t> payload, CarrierParts& parts);
/// Writes a carrier around `compact` (copied) into `out`, leaving the section's room after it.
/// Returns the bytes written before the section (0 when `out` cannot hold it).
std::size_t begin_carrier(std::span<const uint8_t> compact, std::span<uint8_t> out);

class MessageEndpoint;
/// A carrier of `compact` and the message section `m` has to send at `now` (write_section()), in
/// `out`: its bytes in all (the section's are that less kCarrierOverhead and compact's), or 0 when
/// `out` has no room for them or `m` has nothing to say, and `compact` goes alone.
std::size_t write_carrier(MessageEndpoint& m, Nanos now, std::span<const uint8_t> compact, std::span<uint8_t> out);

/// Which channel a message goes on.
enum class Channel : uint8_t {
  kReliable = 0,    ///< delivered exactly once, in order, or the session ends
  kUnreliable = 1,  ///< sent once: may be lost; never delivered twice or out of order
};

/// A message handed to the application.
struct ReceivedMessage {
  Channel channel = Channel::kReliable;
  std::vector<uint8_t> bytes;  ///< reused from call to call: moved out of, it allocates again
};

/// How a session's messages behave, one side. The defaults are the server's and the client's.
struct MessageConfig {
  MessageLimits limits;                             ///< the reliable channel's (queue_bytes: the send queue)
  std::size_t unreliable_queue = 16 * 1024;          ///< unreliable bytes waiting to go, at most
  uint32_t rate = 64 * 1024;                         ///< message bytes sent per second at most (the section's)
  /// Message bytes (fragments and unreliable messages, with their headers: what the peer's `rate`
  /// counts) the peer may send per second, with a burst of a tenth of a second (the peer's own) and
  /// half a second more (the network bunching datagrams up); a peer over it is cut off with
  /// Violation::kOverRate. 0: no limit (a client's: its server's rate is the server's to choose).
  uint32_t receive_rate = 0;
  Nanos timeout = 10 * kSecond;                      ///< no progress for this long ends the session
};

/// What one side's messages did, counted.
struct MessageStats {
  uint64_t sent = 0, received = 0;                      ///< messages handed over, both channels
  uint64_t unreliable_sent = 0, unreliable_received = 0;
  uint64_t unreliable_stale = 0;                        ///< arrived after a newer one: dropped
  uint64_t unreliable_dropped = 0;                      ///< arrived with no room left to hold it: dropped
  uint64_t bytes_out = 0, bytes_in = 0;                 ///< section bytes
  uint64_t retransmissions = 0;                         ///< reliable fragments sent again
};

/// One side of a session's messages. Not thread-safe; nothing here knows sockets or clocks.
class MessageEndpoint {
 public:
  explicit MessageEndpoint(const MessageConfig& config = {}, Nanos now = 0);

  /// Queues a message. Refused with nothing queued: kEmpty, kTooLarge (over the channel's limit:
  /// MessageLimits::max_message, or kMaxUnreliableMessage), kQueueFull (try again later).
  SendError send(Channel channel, std::span<const uint8_t> message);
  /// Moves the next message received (reliable ones in order first, then unreliable ones) into
  /// `out`; false when there is none.
  bool receive(ReceivedMessage& out);

  /// Takes a message section that arrived at `now`; a Violation ends the session.
  Violation on_section(Nanos now, std::span<const uint8_t> section);
  /// True when write_section() at `now` has something worth a datagram of its own: an
  /// acknowledgement owed, or fragments or unreliable messages due within the byte budget.
  bool wants_to_send(Nanos now) const;
  /// True when it has that, or an acknowledgement to repeat: worth the room a datagram that goes
  /// anyway leaves (each acknowledgement goes in the next kAckRepeats sections that can carry it, so
  /// that one lost does not hold the sender up for a whole retransmission time).
  bool can_ride(Nanos now) const { return ack_repeats_ > 0 || wants_to_send(now); }
  /// Times an acknowledgement is repeated in room that costs nothing, after it went once.
  static constexpr int kAckRepeats = 2;
  /// Writes a message section into `out`: the acknowledgement if owed (it always fits in
  /// kAckSectionBytes), then what is due while the budget and `out` have room. Returns its bytes
  /// (0: nothing to say, or `out` under kAckSectionBytes).
  std::size_t write_section(Nanos now, std::span<uint8_t> out);
  /// kNoProgress or kIncomplete when the peer has let the channel stand still for the time-out.
  Violation check(Nanos now) const;

  /// Reliable bytes queued and unacknowledged (what send() weighs).
  std::size_t queued_bytes() const { return sender_.queued_bytes(); }
  /// Bytes received and not yet taken, and unreliable ones waiting to go.
  std::size_t held_bytes() const { return receiver_.held_bytes() + unreliable_in_bytes_ + unreliable_out_bytes_; }
  /// Bytes of memory the session's messages hold, both channels, both ways (a test's and a figure's
  /// measure): at most memory_bound() whatever the peer sends.
  std::size_t memory_bytes();
  /// What memory_bytes() stays within for `config`: the send and receive queues' bytes, and what
  /// does not grow with the peer: the windows' fragment buffers, the message being joined, the
  /// slots (max_slots() of each queue) and the buffers emptied slots keep (proto/ring.h).
  static std::size_t memory_bound(const MessageConfig& config);
  /// The round trip the reliable channel measured.
  const RttEstimator& rtt() const { return rtt_; }
  /// What was counted.
  MessageStats stats() const;
  /// Reliable fragments sent again since the last call (for a caller that sums them).
  uint64_t take_retransmissions() {
    const uint64_t n = stats_.retransmissions - retransmissions_taken_;
    retransmissions_taken_ = stats_.retransmissions;
    return n;
  }

 private:
  void refill(Nanos now) const;
  // Takes `bytes` from the receive budget at `now`; false when the peer is over it.
  bool within_receive_budget(Nanos now, std::size_t bytes);
  Violation read_unreliable(std::span<const uint8_t> block);
  std::size_t write_unreliable(std::span<uint8_t> out);

  MessageConfig config_;
  ReliableSender sender_;
  ReliableReceiver receiver_;
  RttEstimator rtt_;
  bool ack_owed_ = false;
  int ack_repeats_ = 0;  // the acknowledgement, again, where there is room
  // The byte budget: a bucket of config_.rate bytes per second, a tenth of a second deep (at least
  // one datagram's worth). Refilled lazily, hence mutable.
  mutable double budget_ = 0;
  mutable Nanos budget_at_ = 0;
  // The receive budget (config_.receive_rate).
  double receive_budget_ = 0;
  Nanos received_at_ = 0;
  // Unreliable messages waiting to go, and those received not yet taken.
  struct Unreliable {
    uint16_t sequence = 0;
    std::vector<uint8_t> bytes;
    friend std::vector<uint8_t>& ring_buffer(Unreliable& u) { return u.bytes; }
  };
  Ring<Unreliable> unreliable_out_;  // Rings: their buffers are reused
  std::size_t unreliable_out_bytes_ = 0;
  uint16_t unreliable_next_ = 0;
  Ring<std::vector<uint8_t>> unreliable_in_;
  std::size_t unreliable_in_bytes_ = 0;
  bool unreliable_seen_ = false;
  uint16_t unreliable_newest_ = 0;
  MessageStats stats_;
  uint64_t retransmissions_taken_ = 0;
};

}  // namespace foothold::proto
