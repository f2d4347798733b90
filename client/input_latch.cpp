#include "client/input_latch.h"

namespace foothold::client {

void InputLatch::set(double move_x, double move_z, uint8_t buttons) { set(encode_move(move_x, move_z, buttons, 0)); }

void InputLatch::set(const InputCmd& command) {
  move_x_ = command.move_x;
  move_z_ = command.move_z;
  const uint8_t buttons = command.buttons;
  for (int b = 0; b < kButtons; ++b) {
    Button& button = buttons_[size_t(b)];
    const bool down = (buttons >> b) & 1u;
    if (down == button.held) continue;
    button.held = down;
    ++button.changes;
    if (button.changes > 3) button.changes -= 2;  // collapse in pairs: the parity stays
  }
}

InputCmd InputLatch::next(uint32_t tick, const CharacterState&) {
  uint8_t out = 0;
  for (int b = 0; b < kButtons; ++b) {
    Button& button = buttons_[size_t(b)];
    if (button.changes > 0) {
      // The next change: this tick sees the button flipped from what the last tick saw.
      button.ticked = !button.ticked;
      --button.changes;
    }
    if (button.ticked) out = uint8_t(out | (1u << b));
  }
  InputCmd in;
  in.tick = tick;
  in.move_x = move_x_;
  in.move_z = move_z_;
  in.buttons = out;
  return in;
}

void InputLatch::reset() {
  for (Button& b : buttons_) b = {b.held, b.held, 0};
}

}  // namespace foothold::client
