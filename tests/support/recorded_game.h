#pragma once
// A SimHarness's server recorded as `foothold-server --record FILE --game NAME` records it: the
// header with what a replay of the game needs (its name, seed, snapshot interval, rewind window and
// the NPCs asked for), the writer, and the recorder watching the server. For the tests that replay
// a match without its game (replay::resimulate) and with it (server::replay_game).

#include <cstdint>
#include <memory>
#include <string>

#include "replay/recording.h"
#include "server/recorder.h"
#include "support/sim_harness.h"

namespace foothold::test {

/// What the recording says of the match beside the world and the settings.
struct RecordedGameOptions {
  std::string world_name;          ///< the header's world (as --world named it)
  std::string game;                ///< the game's name (--game)
  uint32_t keyframe_interval = 0;  ///< ticks between keyframes (0: none)
  uint32_t snapshot_interval = 0;  ///< the header's (0: left out, as the oldest tests had it)
  uint32_t npcs = 0;               ///< the NPCs asked for (--npcs)
};

class RecordedGame {
 public:
  /// Opens `file` in the test's temporary folder and records `h`'s server from its next tick; the
  /// rewind window and the game's seed are the server's.
  RecordedGame(SimHarness& h, const World& world, const MoveSettings& settings, const std::string& file,
               const RecordedGameOptions& options);
  /// Stops recording (the server no longer told) and closes the file; true when all was written.
  bool close();
  const std::string& path() const { return path_; }
  const std::string& error() const { return writer_.error(); }
  /// The file could be opened.
  bool opened() const { return opened_; }

 private:
  SimHarness& harness_;
  std::string path_;
  replay::RecordingWriter writer_;
  std::unique_ptr<server::ServerRecorder> recorder_;
  bool opened_ = false;
};

/// With FOOTHOLD_PRINT_FIGURES set, prints client `index`'s corrections by class (the issues'
/// figure: corrections, server, interactions, unexplained, repeated, matched) and the movers'
/// segments it took and the ticks it stepped again for them.
void print_corrections(int index, const client::ClientSession& client);

}  // namespace foothold::test
