#pragma once
// tag: the built-in example game (foothold-server --game tag), written only against the game API
// (server/game.h) so that it also builds out of tree against the installed package
// (examples/tag_server/).
//
// One character is "it". When it touches another (the touch report: either one's step met the
// other), "it" passes to that one, who is frozen for a second (the others get away), and who cannot
// pass it straight back for 3 s. A round lasts 60 s; then the seconds each character was "it" are
// announced and a new round starts, the one who was "it" least (ties: the lowest id) starting it.
// If the settings have a movement profile named "it" ([profiles.it]), whoever is "it" moves with it.
//
// With --npcs N (GameControl::npcs_wanted()), N NPC players join at the start, at points of the
// navigation mesh drawn from the match's random source, and play by paths on it: "it" chases the
// nearest character it may tag, the others flee when "it" comes within 12 m (to the point farthest
// from it of a few drawn near them) and wander otherwise. Without a mesh (a cross build), none join.
//
// Replicated attributes (by these names and indices):
//   match:     it (0) the character id of "it" (0: nobody yet), round (1) from 1,
//              seconds_left (2) in the round, tags (3) passes this round
//   character: it_seconds (0) whole seconds as "it" this round (visibility `all`: every client that
//              sees the character receives it)
// Reliable messages to every client, text:
//   "tag FROM TO"                     "it" passed from FROM to TO (FROM 0: the game chose TO)
//   "scores ROUND ID:SECONDS ..."     a round ended; every character then present, ascending id

#include <memory>

#include "server/game.h"

namespace foothold::server {

/// A new tag game.
std::unique_ptr<Game> make_tag_game();

}  // namespace foothold::server
