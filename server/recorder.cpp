#include "server/recorder.h"

#include "proto/message_channel.h"
#include "proto/message_endpoint.h"
#include "proto/token.h"

namespace foothold::server {

// The recording refuses a message over its limit, which replay/ states without seeing proto/.
static_assert(proto::MessageLimits{}.max_message <= replay::kMaxRecordedMessage &&
                  proto::kMaxUnreliableMessage <= replay::kMaxRecordedMessage,
              "a message the server delivers must fit in a recording");
static_assert(proto::kMaxUserData <= replay::kMaxRecordedUserData, "a token's user data must fit in a recording");
// A recording's tick is refused over a client's message bytes (replay::kMaxMessageBytesPerClientTick):
// what a session's unreliable queue holds must be within what replay/ allows for it.
static_assert(proto::MessageConfig{}.unreliable_queue <= replay::kMaxRecordedUnreliableQueue,
              "a session's unreliable messages of a tick must fit in what a recording allows");

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
  tick_.leaves.assign(r.leaves.begin(), r.leaves.end());
  tick_.inputs.clear();
  tick_.checksums.clear();
  tick_.joins.clear();
  for (const auto& j : r.joins) tick_.joins.push_back({j.id, j.state});
  // Who they are, when a game was told (a game-less server's recording stays as it was).
  tick_.players.resize(record_players_ ? r.joins.size() : 0);
  for (std::size_t i = 0; i < tick_.players.size(); ++i) {
    tick_.players[i].client_id = r.joins[i].client_id;
    tick_.players[i].user_data.assign(r.joins[i].user_data.begin(), r.joins[i].user_data.end());
  }
  for (const auto& c : r.characters) {
    tick_.inputs.push_back({c.id, c.input, c.repeated, c.met_character});
    tick_.checksums.push_back({c.id, replay::state_checksum(c.state)});
  }
  // Assigned in place, not cleared: an entry that stays keeps its buffer from tick to tick.
  tick_.commands.assign(r.commands.begin(), r.commands.end());
  tick_.allocation.reset();
  if (r.allocation) tick_.allocation = replay::AllocationEntry{r.allocation->labels, r.allocation->annotations};
  tick_.messages.resize(r.messages.size());
  for (std::size_t i = 0; i < r.messages.size(); ++i) {
    replay::MessageEntry& m = tick_.messages[i];
    m.client = r.messages[i].client;
    m.reliable = r.messages[i].reliable;
    m.bytes.assign(r.messages[i].bytes.begin(), r.messages[i].bytes.end());
    m.newest_input = r.messages[i].timing.newest_input;
    m.acked_snapshot = r.messages[i].timing.acked_snapshot;
  }
  tick_.sent.resize(r.sent.size());
  for (std::size_t i = 0; i < r.sent.size(); ++i) {
    replay::MessageEntry& m = tick_.sent[i];
    m.client = r.sent[i].to;
    m.reliable = r.sent[i].reliable;
    m.result = r.sent[i].result;
    m.bytes.assign(r.sent[i].bytes.begin(), r.sent[i].bytes.end());
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
