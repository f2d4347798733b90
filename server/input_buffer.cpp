#include "server/input_buffer.h"

namespace foothold::server {

InputBuffer::Offer InputBuffer::offer(const InputCmd& input, uint32_t next_tick) {
  // Ticks compare as a window after next_tick; unsigned wrap-around makes a tick in the past huge.
  const uint32_t ahead = input.tick - next_tick;
  Slot& s = slots_[input.tick % kWindow];
  if (int32_t(ahead) < int32_t(kWindow) && (newest_ == 0 || int32_t(input.tick - newest_) > 0)) newest_ = input.tick;
  if (int32_t(ahead) < 0) {
    // Already simulated: a copy of an input we used, or one that came too late and was repeated.
    if (s.tick == input.tick && s.consumed && s.has_input) return Offer::kDuplicate;
    return Offer::kLate;
  }
  if (ahead >= kWindow) return Offer::kTooFarAhead;
  if (s.tick == input.tick && s.has_input) return Offer::kDuplicate;
  s = {input.tick, true, false, input};
  return Offer::kAccepted;
}

InputBuffer::Consumed InputBuffer::consume(uint32_t tick) {
  Slot& s = slots_[tick % kWindow];
  Consumed c;
  if (s.tick == tick && s.has_input && !s.consumed) {
    last_ = s.input;
    c.repeated = false;
  } else {
    s = {tick, false, false, InputCmd{}};
    c.repeated = true;
  }
  s.consumed = true;
  c.input = last_;
  c.input.tick = tick;
  return c;
}

std::size_t InputBuffer::waiting_after(uint32_t simulated, std::span<InputCmd> out) const {
  std::size_t n = 0;
  for (; n < out.size() && n + 1 < kWindow; ++n) {
    const Slot& s = slots_[(simulated + 1 + n) % kWindow];
    if (s.tick != simulated + 1 + n || !s.has_input || s.consumed) break;
    out[n] = s.input;
  }
  return n;
}

uint32_t InputBuffer::received_through(uint32_t simulated) const {
  uint32_t t = simulated;
  for (uint32_t k = 1; k < kWindow; ++k) {
    const Slot& s = slots_[(simulated + k) % kWindow];
    if (s.tick != simulated + k || !s.has_input) break;
    t = simulated + k;
  }
  return t;
}

}  // namespace foothold::server
