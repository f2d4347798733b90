#pragma once
// hitscan: the built-in game of lag-compensated shots (foothold-server --game hitscan), written only
// against the game API (server/game.h).
//
// A client shoots by sending a reliable text message
//   "shot SEQ FIRE_TICK VIEW_TICK OX OY OZ DX DY DZ"
// SEQ its own number for the shot; FIRE_TICK the tick its prediction was at (its own character's
// tick); VIEW_TICK the moment it drew the others (ClientSession::view_tick, foothold_client_view_tick);
// the origin (metres) and direction. When the server has simulated FIRE_TICK, it checks the origin is
// within kMaxOriginError of where the shooter's character was then, asks GameControl::ray at
// VIEW_TICK (up to kRange metres), and answers the shooter, reliably:
//   "hit SEQ VICTIM"      the ray met character VICTIM first
//   "miss SEQ"            it met a surface, a mover or nothing
//   "refused SEQ REASON"  REASON: origin (too far from the shooter), late (FIRE_TICK already out of
//                         the rewind window), early (more than a second ahead), malformed, busy (64
//                         shots waiting)
// Each character's attributes: hits (0) shots that hit someone, shots (1) shots judged.

#include <memory>

#include "server/game.h"

namespace foothold::server {

/// How far a shot's origin may be from where the shooter's character was at its fire tick, metres.
inline constexpr double kMaxOriginError = 0.5;
/// How far a shot reaches, metres.
inline constexpr double kRange = 200;

/// A new hitscan game.
std::unique_ptr<Game> make_hitscan_game();

}  // namespace foothold::server
