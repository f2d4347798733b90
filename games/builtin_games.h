#pragma once
// The games foothold-server carries, chosen by name (--game, `game` in the config, FOOTHOLD_GAME):
// each is a Game (server/game.h) written as any studio's game would be.

#include <span>

#include "server/server_program.h"

namespace foothold::server {

/// "echo" (every message back to its sender, unchanged, on the channel it came on), "tag"
/// (games/tag_game.h), "hitscan" (games/hitscan_game.h) and "patrol" (games/patrol_game.h), in the
/// order --help and errors list them after "none" (no game: messages are counted as undelivered and
/// dropped).
std::span<const GameEntry> builtin_games();

}  // namespace foothold::server
