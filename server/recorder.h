#pragma once
// Records what the server consumed, tick by tick, into a recording (replay/recording.h).

#include <cstdint>

#include "replay/recording.h"
#include "server/tick_observer.h"

namespace foothold::server {

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
