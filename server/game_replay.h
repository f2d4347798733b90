#pragma once
// Replaying a game's decisions from a server's recording (format 6): the game runs again, fed what it
// was fed (the joins with their players, the leaves, the messages handed over, every character's
// state as the recorded inputs step it again) in the order ServerCore feeds it, and everything it
// does is checked against what it did: each command it gives, each message it sends (and the verdict
// its send got, which the replay gives it back), each character's state after each tick. A game that
// decides by the same rules from the same inputs decides the same; one that reads a clock, a random
// source of its own or a pointer order does not, and the replay says where it first parted.
//
// What a game's lag-compensated queries see is rebuilt too: the rewind window from the replayed
// states, and the newest snapshot each client had been sent from the recording's snapshot interval
// (every client in the roster gets one every interval, as Replication sends them).
//
// The game's NPCs (GameControl::spawn) are its own: their joins come from its spawns again (each
// checked as a command), and the input it sets each one for a tick is checked against the recorded
// one.
//
// Limits: the recording must start at the server's first tick (the game's state before cannot be
// known); a client that joined and left between two ticks left no trace, so a game told of it is told
// nothing in the replay.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "server/game.h"
#include "server/game_host.h"
#include "shared/world.h"

namespace foothold::server {

/// What a replay of a game found.
struct GameReplayResult {
  bool ok = false;          ///< every tick replayed, nothing differed
  std::string error;        ///< the recording could not be replayed (not a difference): why
  std::string difference;   ///< the first thing the game did otherwise, by tick and name; empty when none
  uint32_t ticks = 0;       ///< ticks replayed
  uint64_t commands = 0;    ///< commands compared
  uint64_t sends = 0;       ///< sent messages compared
  uint64_t messages = 0;    ///< messages handed to the game
  uint64_t npc_inputs = 0;  ///< inputs of the game's NPCs compared (GameControl::set_input)
  bool truncated = false;   ///< the recording was cut short (what it held was replayed)
};

/// Replays `game` (fresh: on_start not yet called) over the recording at `path`, in `world` (it must
/// be the one recorded: its hash is checked). Its random source is seeded with the recording's seed
/// (format 11; 0 before). Its log lines go to `log`, naming the recorded game (none: silent, so a
/// replay does not print the match again).
GameReplayResult replay_game(const std::string& path, const World& world, std::unique_ptr<Game> game, GameLog log = {});
/// The same from a recording's bytes in memory (fuzzing); `name` stands for the file in messages.
GameReplayResult replay_game_bytes(std::vector<uint8_t> bytes, const std::string& name, const World& world,
                                   std::unique_ptr<Game> game, GameLog log = {});

}  // namespace foothold::server
