#pragma once
// One bot's message load (issue #35): numbered reliable messages sent at a steady rate, and every
// echo a server running `--game echo` returns checked against what was sent. No sockets or clocks:
// the fleet hands in the time, a way to send, and the messages the session received.
//
// A message of N bytes (N drawn uniformly from the size range, by a generator seeded from --seed and
// the bot's index) holds, little-endian:
//   u32 sequence (0, 1, 2, ... per bot), u32 the bot's index in the fleet, then N - 8 payload bytes,
//   byte i a function of the sequence and i (message_byte()).
// A message shorter than 8 bytes holds the first N bytes of that header. An echo is checked byte for
// byte against the message its sequence names, so a changed, moved, cut or grown byte is seen.
//
// What an echo counts as:
//   - it names one of this bot's messages that has not been echoed yet (the sequence and the bot's
//     index it holds, or, when too short to hold the whole sequence, the oldest such message whose
//     bytes it matches), and matches it exactly: received, with its round trip;
//   - it names one but differs from it (size or any byte): corrupt; that message is never received,
//     so it counts as lost at the end;
//   - either way its order is checked: a sequence other than the one after the highest echoed
//     before it is out of order (the reliable channel delivers in order): an echo that comes late,
//     or one that skips a message not echoed;
//   - it names none (another bot's index, a sequence never sent or already echoed, the unreliable
//     channel, which these messages never use): corrupt, and not order-checked.
// Lost is what was sent and never echoed intact: sent - received, once the run is over.
// Only what the fleet hands in is checked: it keeps back the messages it recognises as the game's own
// (the tag game's announcements, bots/tag_messages.h), which are no echoes and never count here.

#include <cstdint>
#include <deque>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "proto/clock.h"
#include "proto/message_endpoint.h"

namespace foothold::bots {

/// The range of message sizes, bytes, both ends included.
struct MessageSizes {
  uint32_t min = 16;
  uint32_t max = 256;
};

/// What --messages-per-second and --message-bytes ask of every bot.
struct MessageLoad {
  double per_second = 0;  ///< 0: no messages
  MessageSizes sizes;
  bool active() const { return per_second > 0; }
};

/// The largest message the reliable channel takes (MessageLimits::max_message).
inline constexpr uint32_t kMaxMessageBytes = 64 * 1024;
/// Bytes of a message's sequence and bot index, before its payload.
inline constexpr std::size_t kMessageHeaderBytes = 8;

/// Reads --messages-per-second: a finite number above 0 (e.g. 20 or 0.5). Returns the error, naming
/// the flag; empty when `text` is valid (then `per_second` is set).
std::string parse_message_rate(std::string_view text, double& per_second);
/// Reads --message-bytes MIN:MAX, sizes in [1, kMaxMessageBytes], MIN <= MAX. Returns the error,
/// naming the flag; empty when `text` is valid (then `sizes` is set).
std::string parse_message_sizes(std::string_view text, MessageSizes& sizes);

/// Byte `index` of message `sequence` of bot `bot` (the layout above).
uint8_t message_byte(uint32_t bot, uint32_t sequence, std::size_t index);

/// One bot's figures.
struct MessageCounts {
  uint64_t sent = 0;          ///< accepted by send_message
  uint64_t received = 0;      ///< echoes that matched a message sent, each message at most once
  uint64_t lost = 0;          ///< sent - received: never echoed intact (final once the run is over)
  uint64_t out_of_order = 0;  ///< echoes whose sequence was not the one after the highest echoed before
  uint64_t corrupt = 0;       ///< echoes that differed from their message or named none
  std::vector<double> rtt_ms; ///< each received echo's round trip, from send_message to receipt
  /// Why sending stopped for good, when send_message refused a message for a reason that trying
  /// again cannot cure (kEmpty, kTooLarge); kNone otherwise.
  proto::SendError refused = proto::SendError::kNone;
};

/// One bot's sender and checker. Not thread-safe.
class MessageChecker {
 public:
  /// Sends one message (the session's send_message on the reliable channel).
  using Send = std::function<proto::SendError(std::span<const uint8_t>)>;

  /// `load` must be active; `seed` (--seed) and `bot` (the index) seed the sizes' generator.
  MessageChecker(const MessageLoad& load, uint64_t seed, uint32_t bot);

  /// Sends the messages due at `now`: message k is due k / per_second seconds after the first call
  /// (the session is connected from then on), so they are spread evenly, and those a full queue held
  /// back go as soon as it takes them, in order. A refused message (kQueueFull, kNotConnected) is
  /// tried again, with its number and size, at the next call. Returns how many went.
  int send_due(proto::Nanos now, const Send& send);
  /// When the next message is due (it may be past, when the queue held it back); max() before the
  /// first send_due() and once sending has stopped.
  proto::Nanos next_due() const;
  /// Takes an echo that arrived at `now`.
  void on_echo(proto::Nanos now, proto::Channel channel, std::span<const uint8_t> bytes);
  /// No new message from now on (the run is over: only echoes are awaited).
  void stop_sending() { sending_ = false; }
  /// Messages sent and not yet echoed (intact or not).
  std::size_t outstanding() const { return outstanding_; }
  /// The figures so far.
  const MessageCounts& counts() const { return counts_; }

 private:
  enum class State : uint8_t { kOutstanding, kReceived, kCorrupt };
  struct Pending {
    uint32_t sequence;
    uint32_t size;
    proto::Nanos sent_at;
    State state;
  };
  uint32_t draw_size();
  void build(uint32_t sequence, uint32_t size);
  Pending* named_by(std::span<const uint8_t> echo);
  bool matches(const Pending& p, std::span<const uint8_t> echo) const;
  void settle(Pending& p, State state);

  MessageLoad load_;
  uint32_t bot_;
  uint64_t rng_;
  bool started_ = false, sending_ = true;
  proto::Nanos start_ = 0;
  uint32_t next_sequence_ = 0;  // the next message to send
  uint32_t next_size_ = 0;      // its size, drawn once, kept while it is refused
  uint32_t expected_echo_ = 0;  // the sequence after the highest echoed
  std::vector<uint8_t> buffer_;
  // Messages sent, oldest first, from the oldest not yet settled: contiguous sequences.
  std::deque<Pending> pending_;
  std::size_t outstanding_ = 0;
  MessageCounts counts_;
};

}  // namespace foothold::bots
