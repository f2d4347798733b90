#include "support/recorded_game.h"

#include <cstdio>
#include <cstdlib>

#include <gtest/gtest.h>

namespace foothold::test {

RecordedGame::RecordedGame(SimHarness& h, const World& world, const MoveSettings& settings, const std::string& file,
                           const RecordedGameOptions& options)
    : harness_(h), path_(::testing::TempDir() + "/" + file) {
  replay::RecordingHeader header =
      server::server_recording_header(options.world_name, world, settings, h.server().current_tick() + 1, options.keyframe_interval);
  header.game = options.game;
  header.game_seed = h.server().game_seed();
  header.snapshot_interval = options.snapshot_interval;
  header.rewind_window = h.server().rewind_window_ticks();
  header.npcs = options.npcs;
  opened_ = writer_.open(path_, header);
  recorder_ = std::make_unique<server::ServerRecorder>(writer_, options.keyframe_interval, true);
  if (opened_) h.server().set_observer(recorder_.get());
}

bool RecordedGame::close() {
  harness_.server().set_observer(nullptr);
  writer_.close(recorder_->last_tick());
  return writer_.ok();
}

void print_corrections(int index, const client::ClientSession& client) {
  if (!std::getenv("FOOTHOLD_PRINT_FIGURES")) return;
  const auto& c = client.predictor().counters();
  std::printf("client %d: corrections=%llu server=%llu interactions=%llu unexplained=%llu repeated=%llu matched=%llu "
              "mover_segments=%llu mover_replayed_ticks=%llu\n",
              index, (unsigned long long)c.corrections, (unsigned long long)c.server, (unsigned long long)c.interactions,
              (unsigned long long)c.unexplained, (unsigned long long)(c.corrections - c.server - c.interactions - c.unexplained),
              (unsigned long long)c.matched, (unsigned long long)client.stats().mover_segments,
              (unsigned long long)client.stats().mover_replayed_ticks);
}

}  // namespace foothold::test
