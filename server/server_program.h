#pragma once
/// @file
/// The server program: everything foothold-server does (configuration from flags, file and
/// environment; the world and settings; the key; the socket; the tick loop; recording; a clean stop
/// on SIGINT or SIGTERM) as one call, so that a game's own server is a main() of one line:
///
///   int main(int argc, char** argv) {
///     const foothold::server::GameEntry games[] = {{"tag", "one is it; touching passes it on", make_tag_game}};
///     return foothold::server::run_server(argc, argv, games, "tag-server", "tag");
///   }
///
/// --game NAME (also `game` in the config file and FOOTHOLD_GAME) picks one of `games`, or "none";
/// without it, `default_game`. --navmesh FILE gives the world's navigation mesh for GameControl::path().

#include <functional>
#include <memory>
#include <span>
#include <string>

#include "server/game.h"

namespace foothold::server {

/// A game the program can run, by name.
struct GameEntry {
  std::string name;     ///< what --game takes: 1-32 characters of [a-z0-9_-]; not "none"
  std::string summary;  ///< one line for --help
  std::function<std::unique_ptr<Game>()> make;  ///< makes the game, once per server run (and per --verify-game)
  /// The game asks for paths (GameControl::path()): without --navmesh, the program bakes the
  /// world's navigation mesh at load, before the first tick (else the first path() would, inside a tick).
  bool paths = false;
};

/// Runs the server with `games` to choose from, `default_game` ("none" or one of them) unless told
/// otherwise. `program` names it in messages ("foothold-server"). Returns the process's exit code:
/// 0 after a clean stop, 1 when it cannot serve (the port is taken) or the game's schema is invalid,
/// 2 for bad usage, configuration, settings, world or an unknown game (the message lists the known ones).
int run_server(int argc, char** argv, std::span<const GameEntry> games, const char* program = "foothold-server",
               const char* default_game = "none");

}  // namespace foothold::server
