#pragma once
// What the server tells a recorder about each tick.

#include <cstdint>
#include <span>

#include "server/game.h"
#include "shared/character_state.h"
#include "shared/game_command.h"
#include "shared/input.h"

namespace foothold::server {

/// A character that joined before a tick, with its state going into that tick.
struct JoinRecord {
  /// The server's character id (not the connect token's client id).
  uint32_t id = 0;
  /// Its state going into the tick: its spawn state.
  CharacterState state;
  /// What the game was told of it (Joining): the connect token's client id and user data (the span
  /// points into the client, which outlives the record: a client that leaves before the tick is
  /// taken out of the joins).
  uint64_t client_id = 0;
  std::span<const uint8_t> user_data;
};

/// One character's part of a tick: the input the server consumed and the state after it.
struct CharacterTick {
  /// The server's character id.
  uint32_t id = 0;
  /// The input consumed; its tick field is the tick simulated.
  InputCmd input;
  bool repeated = false;  ///< the client's own input had not arrived: the last one was repeated
  /// Its state after the tick.
  CharacterState state;
  bool met_character = false;  ///< its step kept a fence from another character (movement.md §16)
};

/// A message the game was handed at the start of a tick, before the steps (ServerCore's message
/// handler), in the order it was handed over.
struct MessageRecord {
  uint32_t client = 0;  ///< the sender's character id
  bool reliable = true; ///< its channel
  std::span<const uint8_t> bytes;
  MessageTiming timing; ///< what the server had measured of the sender (GameControl::message_timing)
};

/// A message the game sent (GameControl::send, and broadcast's to each client), and the verdict.
struct SentRecord {
  uint32_t to = 0;       ///< the recipient's character id
  bool reliable = true;  ///< its channel
  uint8_t result = 0;    ///< proto::SendError
  std::span<const uint8_t> bytes;
};

/// Everything that happened in one tick, in a defined order (ids ascending). The spans point into
/// the server's working memory: they are valid only during TickObserver::on_tick().
struct TickRecord {
  /// The server tick just simulated (the first one is 1).
  uint32_t tick = 0;
  std::span<const JoinRecord> joins;          ///< joined before this tick
  std::span<const uint32_t> leaves;           ///< left before this tick
  std::span<const CharacterTick> characters;  ///< every character simulated in this tick
  std::span<const MessageRecord> messages;    ///< handed to the game at the start of this tick, in order
  /// The game's commands applied before this tick's steps, in the order applied (after the joins and
  /// leaves; a removal's leave is in the same tick's leaves).
  std::span<const GameCommand> commands;
  /// What the game sent since the steps of the tick before (its after_tick, then the joins', leaves'
  /// and messages' hooks before this tick), in the order sent.
  std::span<const SentRecord> sent;
  /// The fleet's allocation, handed to the game at the start of this tick (Game::on_allocated);
  /// null in every other tick.
  const Allocation* allocation = nullptr;
};

/// Told about every tick the server simulates (the recorder is one). ServerCore calls it on its own
/// thread, after the steps and before the snapshots, and does not own it.
class TickObserver {
 public:
  virtual ~TickObserver() = default;
  /// Called once per tick, in tick order; `record` and its spans are valid only during the call.
  virtual void on_tick(const TickRecord& record) = 0;
};

}  // namespace foothold::server
