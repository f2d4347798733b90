#include "bots/message_checker.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace foothold::bots {

namespace {

// splitmix64, as the brains use: small, and the same everywhere.
uint64_t next_random(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// One size of --message-bytes: digits only, in [1, kMaxMessageBytes].
bool parse_size(std::string_view text, uint32_t& size) {
  uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < 1 || value > kMaxMessageBytes) return false;
  size = uint32_t(value);
  return true;
}

}  // namespace

std::string parse_message_rate(std::string_view text, double& per_second) {
  const std::string copy(text);
  char* end = nullptr;
  const double value = copy.empty() ? 0 : std::strtod(copy.c_str(), &end);
  // Written out whole, finite and above zero: "20", "0.5"; not "", "0", "-1", "inf", "nan", "5x".
  if (copy.empty() || std::isspace(static_cast<unsigned char>(copy[0])) || end != copy.c_str() + copy.size() ||
      !std::isfinite(value) || !(value > 0))
    return "--messages-per-second must be a number of messages per second above 0 (e.g. 20 or 0.5), not '" + copy + "'";
  per_second = value;
  return {};
}

std::string parse_message_sizes(std::string_view text, MessageSizes& sizes) {
  const std::size_t colon = text.find(':');
  MessageSizes parsed;
  if (colon == std::string_view::npos || !parse_size(text.substr(0, colon), parsed.min) ||
      !parse_size(text.substr(colon + 1), parsed.max))
    return "--message-bytes must be MIN:MAX, two sizes in [1, " + std::to_string(kMaxMessageBytes) + "] bytes (e.g. 16:256), not '" +
           std::string(text) + "'";
  if (parsed.min > parsed.max)
    return "--message-bytes: MIN (" + std::to_string(parsed.min) + ") is over MAX (" + std::to_string(parsed.max) + ")";
  sizes = parsed;
  return {};
}

uint8_t message_byte(uint32_t bot, uint32_t sequence, std::size_t index) {
  if (index < 4) return uint8_t(sequence >> (8 * index));
  if (index < kMessageHeaderBytes) return uint8_t(bot >> (8 * (index - 4)));
  // The payload: a hash of the sequence and the position, so that a byte changed, moved, or taken
  // from another message differs from what is expected (with odds of 255 in 256 for each byte).
  uint32_t x = sequence * 0x9e3779b1u ^ uint32_t(index) * 0x85ebca6bu;
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  return uint8_t(x);
}

MessageChecker::MessageChecker(const MessageLoad& load, uint64_t seed, uint32_t bot)
    // A stream of its own: the brains and the impairment draw from other mixes of the same seed.
    : load_(load), bot_(bot), rng_((seed ^ 0x6d65737361676573ull) * 0x9e3779b97f4a7c15ull + bot) {
  next_size_ = draw_size();
}

uint32_t MessageChecker::draw_size() {
  const uint64_t span = uint64_t(load_.sizes.max) - load_.sizes.min + 1;
  return load_.sizes.min + uint32_t(next_random(rng_) % span);
}

void MessageChecker::build(uint32_t sequence, uint32_t size) {
  buffer_.resize(size);
  for (std::size_t i = 0; i < size; ++i) buffer_[i] = message_byte(bot_, sequence, i);
}

proto::Nanos MessageChecker::next_due() const {
  if (!started_ || !sending_) return std::numeric_limits<proto::Nanos>::max();
  // From the start and the message's number, not from the previous send: no drift, and a late call
  // does not push every later message back.
  return start_ + proto::Nanos(double(next_sequence_) * 1e9 / load_.per_second);
}

int MessageChecker::send_due(proto::Nanos now, const Send& send) {
  if (!sending_) return 0;
  if (!started_) {
    started_ = true;
    start_ = now;
  }
  int sent = 0;
  while (next_due() <= now) {
    build(next_sequence_, next_size_);
    const proto::SendError e = send(buffer_);
    if (e == proto::SendError::kQueueFull || e == proto::SendError::kNotConnected) {
      break;  // the same message, number and size, is tried again at the next call
    }
    if (e != proto::SendError::kNone) {
      counts_.refused = e;
      sending_ = false;
      break;
    }
    pending_.push_back({next_sequence_, next_size_, now, State::kOutstanding});
    ++outstanding_;
    ++counts_.sent;
    counts_.lost = counts_.sent - counts_.received;
    ++next_sequence_;
    next_size_ = draw_size();
    ++sent;
  }
  return sent;
}

MessageChecker::Pending* MessageChecker::named_by(std::span<const uint8_t> echo) {
  if (echo.size() < 4) {
    // Too short to hold the whole sequence: the oldest message still awaited that it matches.
    for (Pending& p : pending_)
      if (p.state == State::kOutstanding && matches(p, echo)) return &p;
    return nullptr;
  }
  const uint32_t sequence = uint32_t(echo[0]) | uint32_t(echo[1]) << 8 | uint32_t(echo[2]) << 16 | uint32_t(echo[3]) << 24;
  for (std::size_t i = 4; i < std::min(echo.size(), kMessageHeaderBytes); ++i)
    if (echo[i] != message_byte(bot_, sequence, i)) return nullptr;  // another bot's index
  if (pending_.empty()) return nullptr;
  const uint32_t offset = sequence - pending_.front().sequence;  // wraps to a huge offset below the oldest
  if (offset >= pending_.size()) return nullptr;
  Pending& p = pending_[offset];
  return p.state == State::kOutstanding ? &p : nullptr;
}

bool MessageChecker::matches(const Pending& p, std::span<const uint8_t> echo) const {
  if (echo.size() != p.size) return false;
  for (std::size_t i = 0; i < echo.size(); ++i)
    if (echo[i] != message_byte(bot_, p.sequence, i)) return false;
  return true;
}

void MessageChecker::settle(Pending& p, State state) {
  p.state = state;
  --outstanding_;
  // Forget the settled messages at the front: the deque holds from the oldest still awaited.
  while (!pending_.empty() && pending_.front().state != State::kOutstanding) pending_.pop_front();
}

void MessageChecker::on_echo(proto::Nanos now, proto::Channel channel, std::span<const uint8_t> bytes) {
  Pending* p = channel == proto::Channel::kReliable ? named_by(bytes) : nullptr;
  if (p == nullptr) {
    ++counts_.corrupt;
    return;
  }
  // Against the highest so far, not the previous echo: a message never echoed counts once (the echo
  // that skips it), two echoes swapped count twice (the early one and the late one), and the echoes
  // after either are in order again.
  if (p->sequence != expected_echo_) ++counts_.out_of_order;
  expected_echo_ = std::max(expected_echo_, p->sequence + 1);
  if (matches(*p, bytes)) {
    ++counts_.received;
    counts_.lost = counts_.sent - counts_.received;
    counts_.rtt_ms.push_back(double(now - p->sent_at) / 1e6);
    settle(*p, State::kReceived);
  } else {
    ++counts_.corrupt;
    settle(*p, State::kCorrupt);
  }
}

}  // namespace foothold::bots
