#pragma once
// The server's tick: every client's input for the tick consumed (exactly one, the last repeated when
// it is missing), every character stepped through the shared tick (shared/tick.h) on the worker pool,
// and the tick told to the observer (the recorder). Also where a joining character starts and where
// a client's inputs wait for their tick.

#include <cstdint>
#include <span>
#include <vector>

#include "server/counters.h"
#include "server/roster.h"
#include "server/spawn.h"
#include "server/tick_observer.h"
#include "shared/parallel_for.h"
#include "shared/game_command.h"
#include "shared/settings.h"
#include "shared/tick.h"
#include "shared/world.h"

namespace foothold::server {

/// The simulation of the connected clients' characters. Not thread-safe: advance() spreads its own
/// work over `threads`.
class Simulation {
 public:
  /// `world` and `threads` are referenced (they must outlive it); `settings` is copied. Reserves room
  /// for `capacity` characters.
  Simulation(const World& world, const MoveSettings& settings, ParallelFor& threads, std::size_t capacity);

  /// The last tick simulated (0 before the first; the first is 1).
  uint32_t tick() const { return tick_; }
  const World& world() const { return world_; }
  const MoveSettings& settings() const { return settings_; }

  /// Where character `id`, joining now, starts: a spawn spot clear of every character in `roster`.
  CharacterState spawn(uint32_t id, const Roster& roster);
  /// Offers `inputs` (one message's, ascending tick) to client `c`'s buffer for the ticks from the
  /// next one on, counting each one's fate; `now` marks when a new newest input tick arrived (the
  /// round trip is measured on it).
  void offer_inputs(Client& c, std::span<const InputCmd> inputs, proto::Nanos now, Counters& counters);
  /// Simulates tick tick() + 1: the roster's joins and leaves since the last tick, one input per
  /// client, every step; then tells `observer` (may be null).
  /// `messages` are those the game was handed at the start of the tick, `commands` those applied
  /// before its steps, `sent` what the game sent since the last steps and `allocation` the fleet's
  /// allocation it was handed at the start of the tick, if any (for the observer).
  void advance(Roster& roster, Counters& counters, TickObserver* observer, std::span<const MessageRecord> messages = {},
               std::span<const GameCommand> commands = {}, std::span<const SentRecord> sent = {},
               const Allocation* allocation = nullptr);
  /// What roster[index]'s character touched in the last tick (valid until the next advance(), and
  /// only while the roster is as that tick left it).
  std::span<const Touch> touches(std::size_t index) const { return runner_.touches(index); }
  /// The movers as the last tick placed them.
  const MoverFrame& movers() const { return runner_.movers(); }
  /// The movers' clocks: the game's mover commands change them at the boundary before a tick
  /// (advance()); they keep the segments of the last kClockHistoryTicks ticks (lag compensation
  /// places the movers back in its window, at most max_rewind_ticks()).
  const MoverClocks& clocks() const { return clocks_; }
  /// Ticks of the movers' clocks kept.
  static constexpr uint32_t kClockHistoryTicks = 2048;

 private:
  /// Below this many clients per thread, fewer threads take the inputs and apply the results.
  static constexpr std::size_t kMinClientsPerThread = 256;
  const World& world_;
  MoveSettings settings_;
  DerivedSettings derived_;
  SpawnSpots spawns_;
  ParallelFor& threads_;
  uint32_t tick_ = 0;
  MoverClocks clocks_;
  TickRunner runner_;
  // Per-tick working memory (kept to avoid allocating each tick).
  std::vector<FixedVec3> occupied_;  // where every character is, for choosing a spawn spot
  std::vector<TickCharacter> entrants_;
  std::vector<CharacterTick> characters_;
  std::vector<JoinRecord> joins_;
  std::vector<uint32_t> leaves_;
};

}  // namespace foothold::server
