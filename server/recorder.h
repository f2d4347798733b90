#pragma once
// Records what the server consumed, tick by tick, into a recording (replay/recording.h).

#include <cstdint>
#include <string>

#include "replay/recording.h"
#include "server/tick_observer.h"
#include "shared/world.h"

namespace foothold::server {

/// The header of a server's recording of `world` (named as the server was told: "arena" or a path).
/// `start_tick` is the first tick to be recorded; keyframes follow ticks that are multiples of
/// `keyframe_interval` (0: none). Its source is "server"; character_id stays 0.
replay::RecordingHeader server_recording_header(const std::string& world_name, const World& world,
                                                const MoveSettings& settings, uint32_t start_tick,
                                                uint32_t keyframe_interval);

/// Writes each tick the server reports (joins, leaves, inputs consumed, checksums, and the messages
/// handed to the game at its start) into a recording.
/// Keeps a reference to `writer`: it must outlive the recorder. Closing the writer (with last_tick())
/// is the owner's job.
class ServerRecorder final : public TickObserver {
 public:
  /// `writer` must be open (ticks are ignored otherwise). A keyframe (every character's full state)
  /// follows each tick that is a multiple of `keyframe_interval` (0: none).
  /// With `players`, each join is recorded with what the game was told of it (a server running a
  /// game: the game's replay needs it).
  ServerRecorder(replay::RecordingWriter& writer, uint32_t keyframe_interval, bool players = false)
      : writer_(writer), keyframe_interval_(keyframe_interval), record_players_(players) {}

  /// Writes one tick record (and a keyframe when one is due); does nothing once the writer has failed.
  void on_tick(const TickRecord& record) override;

  /// The last tick written (0 before any): what RecordingWriter::close() wants.
  uint32_t last_tick() const { return last_tick_; }

 private:
  replay::RecordingWriter& writer_;
  uint32_t keyframe_interval_;
  bool record_players_;
  uint32_t last_tick_ = 0;
  replay::TickData tick_;
  replay::KeyframeData keyframe_;
};

}  // namespace foothold::server
