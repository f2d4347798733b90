#include "proto/message_endpoint.h"

#include <algorithm>
#include <bit>
#include <cstring>

namespace foothold::proto {

namespace {

constexpr uint8_t kHasAck = 1, kHasReliable = 2, kHasUnreliable = 4;
constexpr std::size_t kUnreliableHeaderBytes = 4;  // u16 sequence, u16 size

uint16_t get_u16(const uint8_t* p) { return uint16_t(p[0] | (p[1] << 8)); }
void put_u16(uint8_t* p, std::size_t v) {
  p[0] = uint8_t(v);
  p[1] = uint8_t(v >> 8);
}

// How far `a` is ahead of `b` in sequence space (negative: behind).
int32_t ahead(uint16_t a, uint16_t b) { return int16_t(uint16_t(a - b)); }

// Takes a u16-length-prefixed block from `at` on; false when cut short.
bool take_block(std::span<const uint8_t> section, std::size_t& at, std::span<const uint8_t>& block) {
  if (section.size() - at < 2) return false;
  const std::size_t n = get_u16(section.data() + at);
  at += 2;
  if (section.size() - at < n) return false;
  block = section.subspan(at, n);
  at += n;
  return true;
}

// The receiver holds at least two windows' worth, whatever the send queue: an honest peer, whose
// fragments in flight are one window, never fills it while the application takes what arrives.
MessageLimits receive_limits(MessageLimits l) {
  l.queue_bytes = std::max(l.queue_bytes, 2 * std::size_t(l.window) * l.fragment);
  return l;
}

}  // namespace

bool is_carrier(std::span<const uint8_t> payload) { return !payload.empty() && payload[0] == kCarrierKind; }

bool split_carrier(std::span<const uint8_t> payload, CarrierParts& parts) {
  if (payload.size() < kCarrierOverhead || payload[0] != kCarrierKind) return false;
  const std::size_t n = get_u16(payload.data() + 1);
  if (payload.size() - kCarrierOverhead < n) return false;
  parts.compact = payload.subspan(kCarrierOverhead, n);
  parts.messages = payload.subspan(kCarrierOverhead + n);
  return true;
}

std::size_t begin_carrier(std::span<const uint8_t> compact, std::span<uint8_t> out) {
  if (compact.size() > 0xffff || out.size() < kCarrierOverhead + compact.size()) return 0;
  out[0] = kCarrierKind;
  put_u16(out.data() + 1, compact.size());
  if (!compact.empty()) std::memcpy(out.data() + kCarrierOverhead, compact.data(), compact.size());
  return kCarrierOverhead + compact.size();
}

std::size_t write_carrier(MessageEndpoint& m, Nanos now, std::span<const uint8_t> compact, std::span<uint8_t> out) {
  const std::size_t head = begin_carrier(compact, out);
  if (head == 0) return 0;
  const std::size_t section = m.write_section(now, out.subspan(head));
  return section > 0 ? head + section : 0;
}

MessageEndpoint::MessageEndpoint(const MessageConfig& config, Nanos now)
    : config_(config), sender_(config.limits), receiver_(receive_limits(config.limits)), budget_at_(now) {
  budget_ = std::max<double>(config_.rate / 10.0, 1200.0);
  receive_budget_ = std::max<double>(config_.receive_rate / 10.0, 1200.0) + config_.receive_rate / 2.0;
  received_at_ = now;
}

SendError MessageEndpoint::send(Channel channel, std::span<const uint8_t> message) {
  if (channel == Channel::kReliable) {
    const SendError e = sender_.send(message);
    if (e == SendError::kNone) ++stats_.sent;
    return e;
  }
  if (message.empty()) return SendError::kEmpty;
  if (message.size() > kMaxUnreliableMessage) return SendError::kTooLarge;
  if (unreliable_out_bytes_ + message.size() > config_.unreliable_queue ||
      unreliable_out_.size() >= max_slots(config_.unreliable_queue))
    return SendError::kQueueFull;
  Unreliable& u = unreliable_out_.push();
  u.sequence = unreliable_next_++;
  u.bytes.assign(message.begin(), message.end());
  unreliable_out_bytes_ += message.size();
  ++stats_.sent;
  ++stats_.unreliable_sent;
  return SendError::kNone;
}

std::size_t MessageEndpoint::memory_bytes() {
  return sender_.memory_bytes() + receiver_.memory_bytes() + unreliable_out_.memory_bytes() + unreliable_in_.memory_bytes();
}

std::size_t MessageEndpoint::memory_bound(const MessageConfig& config) {
  const MessageLimits send = config.limits, receive = receive_limits(config.limits);
  const std::size_t window = std::bit_floor(std::clamp<std::size_t>(send.window, 1, 16384));
  const std::size_t fragment = std::clamp<std::size_t>(send.fragment, 1, 0xffff);
  const std::size_t kept = RingBounds{}.keep_total;
  // A slot of any of the rings, or of a window, is at most this (a vector and a few flags), and a
  // ring's slots are at most twice what it holds (it doubles).
  constexpr std::size_t kSlot = 64;
  auto ring = [&](std::size_t bytes) { return 2 * bytes + 2 * max_slots(bytes) * kSlot + 2 * kept; };
  // Live buffers may hold up to twice their bytes (a message grows by doubling as it is joined).
  return ring(send.queue_bytes) + ring(receive.queue_bytes) + 2 * ring(config.unreliable_queue) +
         2 * window * (fragment + kSlot) + 2 * std::max<std::size_t>(send.max_message, 1);
}

bool MessageEndpoint::receive(ReceivedMessage& out) {
  if (receiver_.receive(out.bytes)) {
    out.channel = Channel::kReliable;
    ++stats_.received;
    return true;
  }
  if (unreliable_in_.empty()) return false;
  // Swapped rather than moved, so that the caller's buffer keeps being reused.
  out.bytes.swap(unreliable_in_.front());
  out.channel = Channel::kUnreliable;
  unreliable_in_bytes_ -= out.bytes.size();
  unreliable_in_.pop_front();
  ++stats_.received;
  ++stats_.unreliable_received;
  return true;
}

Violation MessageEndpoint::on_section(Nanos now, std::span<const uint8_t> section) {
  if (section.empty()) return Violation::kNone;  // a carrier with no messages: nothing to take
  stats_.bytes_in += section.size();
  const uint8_t flags = section[0];
  if (flags == 0 || (flags & ~(kHasAck | kHasReliable | kHasUnreliable)) != 0) return Violation::kMalformed;
  std::size_t at = 1;
  // Read whole first, taken after: a section that turns out malformed changes nothing.
  MessageAck ack;
  std::span<const uint8_t> reliable, unreliable;
  if (flags & kHasAck) {
    if (!read_ack(section.subspan(at), ack)) return Violation::kMalformed;
    at += kMessageAckBytes;
  }
  if ((flags & kHasReliable) && !take_block(section, at, reliable)) return Violation::kMalformed;
  if ((flags & kHasUnreliable) && !take_block(section, at, unreliable)) return Violation::kMalformed;
  if (at != section.size()) return Violation::kMalformed;
  if (!within_receive_budget(now, reliable.size() + unreliable.size())) return Violation::kOverRate;
  if (flags & kHasAck)
    if (const Violation v = sender_.on_ack(ack, now, &rtt_); v != Violation::kNone) return v;
  if (flags & kHasReliable) {
    const Violation v = read_fragments(reliable, [&](const Fragment& f) { return receiver_.on_fragment(f, now); });
    if (v != Violation::kNone) return v;
    ack_owed_ = true;  // even for a duplicate: our acknowledgement of it may have been lost
    ack_repeats_ = kAckRepeats;
  }
  if (flags & kHasUnreliable) return read_unreliable(unreliable);
  return Violation::kNone;
}

Violation MessageEndpoint::read_unreliable(std::span<const uint8_t> block) {
  std::size_t at = 0;
  while (at < block.size()) {
    if (block.size() - at < kUnreliableHeaderBytes) return Violation::kUnreliableMalformed;
    const uint16_t sequence = get_u16(block.data() + at);
    const std::size_t size = get_u16(block.data() + at + 2);
    at += kUnreliableHeaderBytes;
    if (size == 0 || size > kMaxUnreliableMessage || block.size() - at < size) return Violation::kUnreliableMalformed;
    const std::span<const uint8_t> bytes = block.subspan(at, size);
    at += size;
    // Only ever forward: an older or repeated one is stale (never twice, never out of order).
    if (unreliable_seen_ && ahead(sequence, unreliable_newest_) <= 0) {
      ++stats_.unreliable_stale;
      continue;
    }
    unreliable_seen_ = true;
    unreliable_newest_ = sequence;
    if (unreliable_in_bytes_ + size > config_.unreliable_queue || unreliable_in_.size() >= max_slots(config_.unreliable_queue)) {
      ++stats_.unreliable_dropped;
      continue;
    }
    unreliable_in_.push().assign(bytes.begin(), bytes.end());
    unreliable_in_bytes_ += size;
  }
  return Violation::kNone;
}

bool MessageEndpoint::within_receive_budget(Nanos now, std::size_t bytes) {
  if (config_.receive_rate == 0) return true;
  // The sender's own bucket is a tenth of a second deep (at least a datagram); the network may
  // bunch half a second of an honest sender's datagrams up on the way.
  const double rate = config_.receive_rate;
  const double depth = std::max(rate / 10.0, 1200.0) + rate / 2;
  if (now > received_at_) {
    receive_budget_ = std::min(depth, receive_budget_ + double(now - received_at_) * rate / double(kSecond));
    received_at_ = now;
  }
  receive_budget_ -= double(bytes);
  return receive_budget_ >= 0;
}

void MessageEndpoint::refill(Nanos now) const {
  if (now <= budget_at_) return;
  const double depth = std::max<double>(config_.rate / 10.0, 1200.0);
  budget_ = std::min(depth, budget_ + double(now - budget_at_) * config_.rate / double(kSecond));
  budget_at_ = now;
}

bool MessageEndpoint::wants_to_send(Nanos now) const {
  if (ack_owed_) return true;
  refill(now);
  if (budget_ < 1) return false;
  return !unreliable_out_.empty() || sender_.due(now, rtt_.rto());
}

std::size_t MessageEndpoint::write_unreliable(std::span<uint8_t> out) {
  std::size_t used = 0;
  while (!unreliable_out_.empty()) {
    const Unreliable& u = unreliable_out_.front();
    const std::size_t need = kUnreliableHeaderBytes + u.bytes.size();
    if (out.size() - used < need || double(need) > budget_) break;
    put_u16(out.data() + used, u.sequence);
    put_u16(out.data() + used + 2, u.bytes.size());
    std::memcpy(out.data() + used + kUnreliableHeaderBytes, u.bytes.data(), u.bytes.size());
    used += need;
    budget_ -= double(need);
    unreliable_out_bytes_ -= u.bytes.size();
    unreliable_out_.pop_front();
  }
  return used;
}

std::size_t MessageEndpoint::write_section(Nanos now, std::span<uint8_t> out) {
  if (out.size() < kAckSectionBytes) return 0;
  refill(now);
  uint8_t flags = 0;
  std::size_t at = 1;
  if (ack_owed_ || ack_repeats_ > 0) {
    write_ack(receiver_.ack(), std::span<uint8_t, kMessageAckBytes>(out.data() + at, kMessageAckBytes));
    at += kMessageAckBytes;
    flags |= kHasAck;
    if (!ack_owed_) --ack_repeats_;
    ack_owed_ = false;
  }
  // Reliable fragments within the budget and the room (after their block's length).
  if (out.size() - at > 2 + kFragmentHeaderBytes && budget_ >= 1) {
    const std::size_t room = std::min<std::size_t>(out.size() - at - 2, std::size_t(budget_));
    const uint64_t before = sender_.retransmissions();
    const std::size_t n = sender_.write(now, rtt_.rto(), out.subspan(at + 2, room));
    stats_.retransmissions += sender_.retransmissions() - before;
    if (n > 0) {
      put_u16(out.data() + at, n);
      at += 2 + n;
      budget_ -= double(n);
      flags |= kHasReliable;
    }
  }
  if (!unreliable_out_.empty() && out.size() - at > 2 + kUnreliableHeaderBytes) {
    const std::size_t n = write_unreliable(out.subspan(at + 2));
    if (n > 0) {
      put_u16(out.data() + at, n);
      at += 2 + n;
      flags |= kHasUnreliable;
    }
  }
  if (flags == 0) return 0;
  out[0] = flags;
  stats_.bytes_out += at;
  return at;
}

Violation MessageEndpoint::check(Nanos now) const {
  if (const Violation v = sender_.check_progress(now, config_.timeout); v != Violation::kNone) return v;
  return receiver_.check_progress(now, config_.timeout);
}

MessageStats MessageEndpoint::stats() const { return stats_; }

}  // namespace foothold::proto
