#include "proto/message_channel.h"

#include <algorithm>
#include <bit>
#include <cstring>

namespace foothold::proto {

namespace {

// How far `a` is ahead of `b` in sequence space (negative: behind).
int32_t ahead(uint16_t a, uint16_t b) { return int16_t(uint16_t(a - b)); }

// The limits as a channel keeps them: a window that is a power of two in [1, 16384] (so that the
// slots of a window's consecutive sequences never collide as the 16-bit sequence wraps), fragments
// of at least one byte and at most what the wire's 16-bit size holds.
MessageLimits checked(MessageLimits l) {
  l.window = uint16_t(std::bit_floor(std::clamp<unsigned>(l.window, 1, 16384)));
  l.fragment = std::clamp<std::size_t>(l.fragment, 1, 0xffff);
  l.max_message = std::max<std::size_t>(l.max_message, 1);
  l.copies = std::clamp<uint8_t>(l.copies, 1, kMaxCopies);
  l.copy_gap = std::max<Nanos>(l.copy_gap, 0);
  return l;
}

}  // namespace

std::string_view to_string(SendError e) {
  switch (e) {
    case SendError::kNone: return "none";
    case SendError::kEmpty: return "empty";
    case SendError::kTooLarge: return "too_large";
    case SendError::kQueueFull: return "queue_full";
    case SendError::kNotConnected: return "not_connected";
  }
  return "invalid";
}

std::string_view to_string(Violation v) {
  switch (v) {
    case Violation::kNone: return "none";
    case Violation::kMalformed: return "malformed";
    case Violation::kOutsideWindow: return "outside_window";
    case Violation::kOversizedFragment: return "oversized_fragment";
    case Violation::kOverlapping: return "overlapping";
    case Violation::kTooLarge: return "too_large";
    case Violation::kBadAck: return "bad_ack";
    case Violation::kOverflow: return "overflow";
    case Violation::kNoProgress: return "no_progress";
    case Violation::kIncomplete: return "incomplete";
    case Violation::kUnreliableMalformed: return "unreliable_malformed";
    case Violation::kOverRate: return "over_rate";
  }
  return "invalid";
}

bool write_fragment(std::span<uint8_t> out, std::size_t& used, const Fragment& f) {
  const std::size_t need = kFragmentHeaderBytes + f.bytes.size();
  if (used > out.size() || out.size() - used < need || f.bytes.size() > 0xffff) return false;
  uint8_t* p = out.data() + used;
  p[0] = uint8_t(f.sequence);
  p[1] = uint8_t(f.sequence >> 8);
  p[2] = uint8_t((f.first ? 1 : 0) | (f.last ? 2 : 0));
  p[3] = uint8_t(f.bytes.size());
  p[4] = uint8_t(f.bytes.size() >> 8);
  if (!f.bytes.empty()) std::memcpy(p + kFragmentHeaderBytes, f.bytes.data(), f.bytes.size());
  used += need;
  return true;
}

void write_ack(const MessageAck& ack, std::span<uint8_t, kMessageAckBytes> out) {
  out[0] = uint8_t(ack.next);
  out[1] = uint8_t(ack.next >> 8);
  for (int i = 0; i < 8; ++i) out[std::size_t(2 + i)] = uint8_t(ack.beyond >> (8 * i));
}

bool read_ack(std::span<const uint8_t> bytes, MessageAck& ack) {
  if (bytes.size() < kMessageAckBytes) return false;
  ack.next = uint16_t(bytes[0] | (bytes[1] << 8));
  ack.beyond = 0;
  for (int i = 0; i < 8; ++i) ack.beyond |= uint64_t(bytes[std::size_t(2 + i)]) << (8 * i);
  return true;
}

// ---- round trip ----

void RttEstimator::sample(Nanos rtt) {
  rtt = std::max<Nanos>(rtt, 0);
  if (samples_++ == 0) {
    srtt_ = rtt;
    rttvar_ = rtt / 2;
    return;
  }
  // RFC 6298's gains, 1/8 and 1/4, in integers.
  const Nanos error = rtt > srtt_ ? rtt - srtt_ : srtt_ - rtt;
  rttvar_ += (error - rttvar_) / 4;
  srtt_ += (rtt - srtt_) / 8;
}

Nanos RttEstimator::rto() const {
  if (samples_ == 0) return kInitialRto;
  return std::clamp(srtt_ + 4 * rttvar_, kMinRto, kMaxRto);
}

// ---- sender ----

ReliableSender::ReliableSender(const MessageLimits& limits) : limits_(checked(limits)), flight_(limits_.window) {
  if (limits_.reserve_buffers)
    for (InFlight& f : flight_) f.bytes.reserve(limits_.fragment);
}

SendError ReliableSender::send(std::span<const uint8_t> message) {
  if (message.empty()) return SendError::kEmpty;
  if (message.size() > limits_.max_message) return SendError::kTooLarge;
  if (queued_bytes_ + message.size() > limits_.queue_bytes) return SendError::kQueueFull;
  const std::size_t fragments = (message.size() + limits_.fragment - 1) / limits_.fragment;
  if (unsent_.size() + fragments > max_slots(limits_.queue_bytes)) return SendError::kQueueFull;
  for (std::size_t at = 0; at < message.size(); at += limits_.fragment) {
    const std::size_t n = std::min(limits_.fragment, message.size() - at);
    Pending& p = unsent_.push();  // a reused slot: its buffer's capacity is kept
    p.first = at == 0;
    p.last = at + n == message.size();
    p.bytes.assign(message.begin() + long(at), message.begin() + long(at + n));
  }
  queued_bytes_ += message.size();
  return SendError::kNone;
}

bool ReliableSender::put(std::span<uint8_t> out, std::size_t& used, uint16_t sequence, const InFlight& f) const {
  return write_fragment(out, used, {sequence, f.first, f.last, f.bytes});
}

bool ReliableSender::overdue(uint16_t s, const InFlight& f, Nanos now, Nanos rto) const {
  if (f.acked) return false;
  if (f.copies_left > 0) return now - f.sent_at >= limits_.copy_gap;
  if (now - f.sent_at >= backoff(rto, f.resends)) return true;
  return loss_delay_ > 0 && any_acked_ && ahead(largest_acked_, s) > 0 && now - f.sent_at >= loss_delay_;
}

bool ReliableSender::due(Nanos now, Nanos rto) const {
  if (!unsent_.empty() && in_flight() < limits_.window) return true;
  for (uint16_t s = oldest_; s != next_sequence_; ++s)
    if (overdue(s, flight_[s % limits_.window], now, rto)) return true;
  return false;
}

std::size_t ReliableSender::write(Nanos now, Nanos rto, std::span<uint8_t> out) {
  std::size_t used = 0;
  // Overdue ones first, oldest first: the receiver delivers in order, so the oldest gap holds up all.
  for (uint16_t s = oldest_; s != next_sequence_; ++s) {
    InFlight& f = flight_[s % limits_.window];
    if (!overdue(s, f, now, rto)) continue;
    if (!put(out, used, s, f)) return used;
    f.sent_at = now;
    if (f.copies_left > 0) {
      --f.copies_left;
      f.copied = true;
      ++copies_sent_;
      continue;
    }
    if (f.resends < 255) ++f.resends;
    ++retransmissions_;
  }
  while (!unsent_.empty() && in_flight() < limits_.window) {
    Pending& p = unsent_.front();
    if (used > out.size() || out.size() - used < kFragmentHeaderBytes + p.bytes.size()) break;
    if (in_flight() == 0) progress_at_ = now;  // the wait for an acknowledgement starts
    InFlight& f = flight_[next_sequence_ % limits_.window];
    f.used = true;
    f.acked = false;
    f.first = p.first;
    f.last = p.last;
    f.sent_at = now;
    f.resends = 0;
    f.copies_left = uint8_t(limits_.copies - 1);
    f.copied = false;
    f.bytes.swap(p.bytes);  // buffers change hands, never freed
    put(out, used, next_sequence_, f);
    ++next_sequence_;
    unsent_.pop_front();
  }
  return used;
}

std::size_t ReliableSender::memory_bytes() {
  std::size_t n = flight_.capacity() * sizeof(InFlight) + unsent_.memory_bytes();
  for (const InFlight& f : flight_) n += f.bytes.capacity();
  return n;
}

Violation ReliableSender::check_progress(Nanos now, Nanos timeout) const {
  return in_flight() > 0 && now - progress_at_ >= timeout ? Violation::kNoProgress : Violation::kNone;
}

Violation ReliableSender::on_ack(const MessageAck& ack, Nanos now, RttEstimator* rtt) {
  // Everything it names must have been sent: `next` at most next_sequence_, and no bit past it.
  const int32_t through = ahead(ack.next, oldest_);
  if (ahead(ack.next, next_sequence_) > 0 || through < -int32_t(limits_.window)) return Violation::kBadAck;
  for (int i = 0; i < 64; ++i)
    if ((ack.beyond >> i) & 1)
      if (ahead(uint16_t(ack.next + 1 + i), next_sequence_) >= 0) return Violation::kBadAck;
  auto acknowledge = [&](uint16_t s) {
    if (ahead(s, oldest_) < 0 || ahead(s, next_sequence_) >= 0) return;  // old news, or (checked) unsent
    InFlight& f = flight_[s % limits_.window];
    if (!f.used || f.acked) return;
    f.acked = true;
    queued_bytes_ -= f.bytes.size();
    if (rtt && now >= 0 && f.resends == 0 && !f.copied) rtt->sample(now - f.sent_at);
    if (!any_acked_ || ahead(s, largest_acked_) > 0) largest_acked_ = s;
    any_acked_ = true;
  };
  for (uint16_t s = oldest_; ahead(s, ack.next) < 0; ++s) acknowledge(s);
  for (int i = 0; i < 64; ++i)
    if ((ack.beyond >> i) & 1) acknowledge(uint16_t(ack.next + 1 + i));
  if (rtt && rtt->samples() > 0) loss_delay_ = rtt->smoothed() + rtt->smoothed() / 8;
  while (oldest_ != next_sequence_ && flight_[oldest_ % limits_.window].acked) {
    InFlight& f = flight_[oldest_ % limits_.window];
    f.used = false;
    f.bytes.clear();
    ++oldest_;
    if (now >= 0) progress_at_ = now;
  }
  return Violation::kNone;
}

// ---- receiver ----

ReliableReceiver::ReliableReceiver(const MessageLimits& limits) : limits_(checked(limits)), slots_(limits_.window) {
  if (limits_.reserve_buffers)
    for (Slot& s : slots_) s.bytes.reserve(limits_.fragment);
}

Violation ReliableReceiver::check_progress(Nanos now, Nanos timeout) const {
  return (present_ > 0 || joining_) && now - waiting_since_ >= timeout ? Violation::kIncomplete : Violation::kNone;
}

Violation ReliableReceiver::on_fragment(const Fragment& f, Nanos now) {
  if (f.bytes.empty() || f.bytes.size() > limits_.fragment) return Violation::kOversizedFragment;
  const int32_t offset = ahead(f.sequence, next_);
  if (offset < 0) return Violation::kNone;  // delivered already: a duplicate or a late copy
  if (offset >= int32_t(limits_.window)) return Violation::kOutsideWindow;
  Slot& slot = slots_[f.sequence % limits_.window];
  if (slot.present) return Violation::kNone;  // a duplicate
  // No room until the application takes what it holds: dropped unacknowledged, sent again later
  // (or, where the application takes everything at once, a peer that ignored the window).
  if (held_bytes_ + f.bytes.size() > limits_.queue_bytes || (f.last && messages_ >= max_slots(limits_.queue_bytes)))
    return limits_.overflow_is_violation ? Violation::kOverflow : Violation::kNone;
  if (f.last) ++messages_;
  if (present_ == 0 && !joining_) waiting_since_ = now;  // something is held from now on
  slot.present = true;
  slot.first = f.first;
  slot.last = f.last;
  slot.bytes.assign(f.bytes.begin(), f.bytes.end());  // into the slot's own buffer
  ++present_;
  held_bytes_ += f.bytes.size();
  const uint16_t before = next_;
  const Violation v = deliver_in_order();
  if (next_ != before) waiting_since_ = now;  // progress: the wait starts again
  return v;
}

Violation ReliableReceiver::deliver_in_order() {
  while (slots_[next_ % limits_.window].present) {
    Slot& s = slots_[next_ % limits_.window];
    if (s.first == joining_) return Violation::kOverlapping;  // a start inside a message, or a middle outside one
    if (joined_.size() + s.bytes.size() > limits_.max_message) return Violation::kTooLarge;
    joined_.insert(joined_.end(), s.bytes.begin(), s.bytes.end());
    joining_ = !s.last;
    s.present = false;
    s.bytes.clear();
    --present_;
    ++next_;
    if (!joining_) {
      std::vector<uint8_t>& whole = complete_.push();
      whole.swap(joined_);  // joined_ takes the slot's old buffer for the next message
      joined_.clear();
    }
  }
  return Violation::kNone;
}

MessageAck ReliableReceiver::ack() const {
  MessageAck a{next_, 0};
  for (int i = 0; i < 64 && i + 1 < int(limits_.window); ++i)
    if (slots_[uint16_t(next_ + 1 + i) % limits_.window].present) a.beyond |= uint64_t(1) << i;
  return a;
}

bool ReliableReceiver::receive(std::vector<uint8_t>& out) {
  if (complete_.empty()) return false;
  out.swap(complete_.front());  // the caller's old buffer goes back into the ring (kept if small)
  complete_.pop_front();
  held_bytes_ -= out.size();
  --messages_;
  return true;
}

std::size_t ReliableReceiver::memory_bytes() {
  std::size_t n = slots_.capacity() * sizeof(Slot) + joined_.capacity() + complete_.memory_bytes();
  for (const Slot& s : slots_) n += s.bytes.capacity();
  return n;
}

}  // namespace foothold::proto
