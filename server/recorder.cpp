#include "server/recorder.h"

#include "proto/message_channel.h"
#include "proto/message_endpoint.h"

namespace foothold::server {

// The recording refuses a message over its limit, which replay/ states without seeing proto/.
static_assert(proto::MessageLimits{}.max_message <= replay::kMaxRecordedMessage &&
                  proto::kMaxUnreliableMessage <= replay::kMaxRecordedMessage,
              "a message the server delivers must fit in a recording");

replay::RecordingHeader server_recording_header(const std::string& world_name, const World& world,
                                                const MoveSettings& settings, uint32_t start_tick,
                                                uint32_t keyframe_interval) {
  replay::RecordingHeader h;
  h.source = "server";
  h.world = world_name;
  h.world_hash = world.hash();
  h.settings = settings;
  h.settings_hash = settings.hash();
  h.start_tick = start_tick;
  h.keyframe_interval = keyframe_interval;
  return h;
}

void ServerRecorder::on_tick(const TickRecord& r) {
  if (!writer_.is_open() || !writer_.ok()) return;
  tick_.tick = r.tick;
  tick_.joins.clear();
  tick_.leaves.assign(r.leaves.begin(), r.leaves.end());
  tick_.inputs.clear();
  tick_.checksums.clear();
  for (const auto& j : r.joins) tick_.joins.push_back({j.id, j.state});
  for (const auto& c : r.characters) {
    tick_.inputs.push_back({c.id, c.input, c.repeated, c.met_character});
    tick_.checksums.push_back({c.id, replay::state_checksum(c.state)});
  }
  // Assigned in place, not cleared: an entry that stays keeps its buffer from tick to tick.
  tick_.commands.assign(r.commands.begin(), r.commands.end());
  tick_.messages.resize(r.messages.size());
  for (std::size_t i = 0; i < r.messages.size(); ++i) {
    replay::MessageEntry& m = tick_.messages[i];
    m.client = r.messages[i].client;
    m.reliable = r.messages[i].reliable;
    m.bytes.assign(r.messages[i].bytes.begin(), r.messages[i].bytes.end());
  }
  writer_.write_tick(tick_);
  last_tick_ = r.tick;
  if (keyframe_interval_ > 0 && r.tick % keyframe_interval_ == 0) {
    keyframe_.tick = r.tick;
    keyframe_.states.clear();
    for (const auto& c : r.characters) keyframe_.states.push_back({c.id, c.state});
    writer_.write_keyframe(keyframe_);
  }
}

}  // namespace foothold::server
