#pragma once
// hitscan: the built-in game of lag-compensated shots (foothold-server --game hitscan), written only
// against the game API (server/game.h).
//
// A client shoots by sending a reliable text message
//   "shot SEQ FIRE_TICK VIEW_TICK OX OY OZ DX DY DZ"
// SEQ its own number for the shot; FIRE_TICK the tick its prediction was at (its own character's
// tick); VIEW_TICK the moment it drew the others (ClientSession::view_tick, foothold_client_view_tick);
// the origin (metres) and direction. When the server has simulated FIRE_TICK, it checks the origin is
// inside the shooter's character as it was then and in its sight (GameControl::origin_allowed), asks
// GameControl::ray at VIEW_TICK, no older than the shooter's round trip and interpolation delay
// explain (GameControl::earliest_view; older is raised to it), up to kRange metres, and answers the
// shooter, reliably:
//   "hit SEQ VICTIM"      the ray met character VICTIM first
//   "miss SEQ"            it met a surface, a mover or nothing
//   "refused SEQ REASON"  REASON: origin (outside the shooter, or a wall between), late (FIRE_TICK
//                         already out of the rewind window), early (further ahead than the shooter's
//                         newest input, GameControl::fire_tick_allowed, or than a second), malformed,
//                         busy (kMaxWaitingPerShooter of the shooter's own shots waiting)
// Each character's attributes: hits (0) shots that hit someone, shots (1) shots judged.

#include <memory>

#include "server/game.h"

namespace foothold::server {

/// Shots of one shooter waiting for their fire ticks at most: its inputs lead the server by a few
/// ticks, so a player firing at any human rate has one or two waiting; one that fills its queue
/// delays nobody else's.
inline constexpr uint32_t kMaxWaitingPerShooter = 16;
/// How far a shot reaches, metres.
inline constexpr double kRange = 200;

/// A new hitscan game.
std::unique_ptr<Game> make_hitscan_game();

}  // namespace foothold::server
