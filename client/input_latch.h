#pragma once
// Every press counts (#41): a game sets its input once a frame, the client runs fixed ticks, and
// a frame in which no tick runs must not lose what the player did in it. InputLatch keeps each
// button's changes until ticks have used them:
// - a press and release inside one frame (no tick between) still reaches a tick as one tick down;
// - a press held across many ticks is one press (the step wants a fresh press to jump again);
// - a release and press between two ticks while held reaches the ticks as one tick up, then down
//   (a second, fresh press);
// - the stick takes the latest value (where it points now is what the player wants).
// Each change is honoured by one tick, in order; at most three wait (more changes between two
// ticks than that collapse in pairs: a button mashed faster than the tick rate cannot be told
// apart anyway), so the ticks never lag the player by more than three.

#include <array>
#include <cstdint>
#include <memory>

#include "client/session.h"

namespace foothold::client {

class InputLatch final : public InputSource {
 public:
  /// The player's input now: the stick (each axis in [-1, 1]) and the buttons held (kButton* bits).
  void set(double move_x, double move_z, uint8_t buttons);
  /// The same from a command already encoded (its stick as it is; its tick is ignored).
  void set(const InputCmd& command);
  /// The input for the next tick: the latest stick, and each button's next change not yet used.
  InputCmd next(uint32_t tick, const CharacterState& current) override;
  /// Forgets pending changes (a new session): what is held now counts as held, not as a fresh press.
  void reset();

 private:
  static constexpr int kButtons = 8;
  struct Button {
    bool held = false;   // as the player holds it now
    bool ticked = false; // as the last tick used it
    uint8_t changes = 0; // changes since that tick (its parity: held != ticked)
  };
  int8_t move_x_ = 0, move_z_ = 0;
  std::array<Button, kButtons> buttons_{};
};

/// An input source that decides once a tick (a bot's brain, an input script) through the same
/// latch as a game's frames: what reaches the ticks is what a game's set_input calls would bring.
class LatchedSource final : public InputSource {
 public:
  explicit LatchedSource(std::unique_ptr<InputSource> inner) : inner_(std::move(inner)) {}
  InputCmd next(uint32_t tick, const CharacterState& current) override {
    latch_.set(inner_->next(tick, current));
    return latch_.next(tick, current);
  }

 private:
  std::unique_ptr<InputSource> inner_;
  InputLatch latch_;
};

}  // namespace foothold::client
