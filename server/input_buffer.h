#pragma once
// A client's inputs waiting for their ticks. The server consumes exactly one per client per tick,
// so sending more (or faster) never moves a character further. A missing input repeats the last one
// consumed, and is marked so that the client can tell why its prediction was corrected.

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "shared/input.h"

namespace foothold::server {

/// One client's inputs, a ring of kWindow slots by tick. Ticks are server ticks (InputCmd::tick);
/// comparisons allow for uint32 wrap-around.
class InputBuffer {
 public:
  /// Inputs are accepted for ticks in [next, next + kWindow): later ones are too far ahead.
  static constexpr uint32_t kWindow = 64;

  /// What became of an offered input.
  enum class Offer : uint8_t {
    /// Stored for its tick.
    kAccepted,
    kDuplicate,    ///< already here (or already consumed): a redundant copy
    kLate,         ///< its tick was simulated before it arrived, with a repeated input
    kTooFarAhead,  ///< beyond the window
  };

  /// Offers the input for `input.tick`; `next_tick` is the tick the server will consume next.
  Offer offer(const InputCmd& input, uint32_t next_tick);

  /// The input the server uses for one tick.
  struct Consumed {
    InputCmd input;        ///< with its tick set to the consumed tick
    bool repeated = false; ///< the client's own input for this tick had not arrived
  };
  /// Consumes the input for `tick` (each tick once, in order). When the client's input for it is
  /// missing, the last consumed input is repeated (a neutral one before any).
  Consumed consume(uint32_t tick);

  /// The newest tick an input has arrived for, in time or late (0 before any; never one too far
  /// ahead): snapshots report how far it is ahead of the tick simulated, so that a client whose
  /// inputs all come late learns by how much.
  uint32_t newest_received() const { return newest_; }
  /// The newest tick T such that an input arrived for every tick in (`simulated`, T]: what the client
  /// need not send again (`simulated` itself when the next one is missing). `simulated` is the last
  /// tick consumed.
  uint32_t received_through(uint32_t simulated) const;
  /// The inputs that arrived for the ticks right after `simulated` (the last tick consumed), in
  /// order, up to out.size() and up to the first tick without one: what the next ticks will step
  /// with, known already. Returns how many it wrote.
  std::size_t waiting_after(uint32_t simulated, std::span<InputCmd> out) const;

 private:
  struct Slot {
    uint32_t tick = 0;
    bool has_input = false;  // the client's input for `tick` arrived
    bool consumed = false;   // `tick` has been simulated
    InputCmd input;
  };
  std::array<Slot, kWindow> slots_{};
  InputCmd last_{};      // the last input consumed, repeated when one is missing
  uint32_t newest_ = 0;
};

}  // namespace foothold::server
