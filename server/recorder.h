#pragma once
// Records what the server consumed, tick by tick, into a recording (replay/recording.h).

#include <cstdint>
#include <string>

#include "replay/recording.h"
#include "server/tick_observer.h"
#include "shared/world.h"

namespace foothold::server {

/// The header of a server's recording of `world` (named as the server was told: "arena" or a path).
replay::RecordingHeader server_recording_header(const std::string& world_name, const World& world,
                                                const MoveSettings& settings, uint32_t start_tick,
                                                uint32_t keyframe_interval);

class ServerRecorder final : public TickObserver {
 public:
  /// `writer` must be open. A keyframe (every character's full state) follows every
  /// `keyframe_interval` ticks.
  ServerRecorder(replay::RecordingWriter& writer, uint32_t keyframe_interval)
      : writer_(writer), keyframe_interval_(keyframe_interval) {}

  void on_tick(const TickRecord& record) override;

  uint32_t last_tick() const { return last_tick_; }

 private:
  replay::RecordingWriter& writer_;
  uint32_t keyframe_interval_;
  uint32_t last_tick_ = 0;
  replay::TickData tick_;
  replay::KeyframeData keyframe_;
};

}  // namespace foothold::server
