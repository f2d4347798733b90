#pragma once
// patrol: NPCs that walk the level (foothold-server --game patrol --npcs N), written only against the
// game API (server/game.h), as a studio's guards would be: N characters the game drives (8 when
// --npcs is 0) join at the start at points of the world's navigation mesh drawn from the match's
// random source, and each walks by paths (GameControl::follow) to a point drawn the same way that a
// complete path reaches, rests a moment, and walks on to the next, for as long as the server runs.
// Players who join walk among them: the NPCs steer round them and are pushed by them.
//
// Replicated match attributes (by these names and indices): npcs (0) the NPCs walking, arrivals (1)
// goals reached, give_ups (2) goals given up (each says why in the game's log at debug level).
// Without a navigation mesh (a cross build) no NPC joins, and the game says so in its log.

#include <memory>

#include "server/game.h"

namespace foothold::server {

/// A new patrol game.
std::unique_ptr<Game> make_patrol_game();
/// NPCs patrol walks when it is asked for none (--npcs 0).
inline constexpr uint32_t kDefaultPatrolNpcs = 8;

}  // namespace foothold::server
