#pragma once
// What the server tells a recorder about each tick.

#include <cstdint>
#include <span>

#include "shared/character_state.h"
#include "shared/input.h"

namespace foothold::server {

/// A character that joined before a tick, with its state going into that tick.
struct JoinRecord {
  uint32_t id = 0;
  CharacterState state;
};

/// One character's part of a tick: the input the server consumed and the state after it.
struct CharacterTick {
  uint32_t id = 0;
  InputCmd input;
  bool repeated = false;  ///< the client's own input had not arrived: the last one was repeated
  CharacterState state;
};

/// Everything that happened in one tick, in a defined order (ids ascending).
struct TickRecord {
  uint32_t tick = 0;
  std::span<const JoinRecord> joins;          ///< joined before this tick
  std::span<const uint32_t> leaves;           ///< left before this tick
  std::span<const CharacterTick> characters;  ///< every character simulated in this tick
};

class TickObserver {
 public:
  virtual ~TickObserver() = default;
  virtual void on_tick(const TickRecord& record) = 0;
};

}  // namespace foothold::server
