#pragma once
// Re-simulating a recording: every character's inputs replayed through the step, checked against
// the recorded checksums. Characters never touch each other, so each one's timeline is simulated
// on its own, and timelines are spread over threads.

#include <cstdint>
#include <string>
#include <vector>

#include "replay/recording.h"
#include "shared/trace.h"
#include "shared/world.h"

namespace foothold::replay {

/// One character's life in a recording.
struct Timeline {
  uint32_t id = 0;
  uint32_t first_tick = 0;          ///< the first tick it was simulated in
  CharacterState start;             ///< its state going into first_tick
  std::vector<InputCmd> inputs;     ///< inputs[i] is for tick first_tick + i
  std::vector<uint8_t> repeated;    ///< repeated[i]: the server repeated an earlier input for that tick
  std::vector<uint32_t> checksums;  ///< after each tick
  uint32_t last_tick() const { return first_tick + uint32_t(inputs.size()) - 1; }
};

/// A whole recording in memory.
struct LoadedRecording {
  RecordingHeader header;
  std::vector<Timeline> characters;    ///< ascending id
  std::vector<KeyframeData> keyframes;
  uint32_t first_tick = 0;
  uint32_t last_tick = 0;
  uint64_t ticks = 0;                  ///< tick records read
  uint64_t file_size = 0;
  bool clean = false;                  ///< closed with a footer
  std::string problem;                 ///< why reading stopped early (truncated, corrupt), if it did
  std::size_t max_concurrent = 0;      ///< most characters in one tick
};

/// Reads a recording. Returns false only when nothing usable could be read (error says why); a file
/// cut short or corrupt part-way loads what came before and says so in `problem`.
bool load_recording(const std::string& path, LoadedRecording& out, std::string& error);
/// The same from bytes (tests).
bool load_recording_bytes(std::vector<uint8_t> bytes, const std::string& name, LoadedRecording& out, std::string& error);

struct ResimOptions {
  int threads = 2;
  bool keep_states = false;  ///< keep every state (for traces); otherwise only check checksums
  uint32_t from_tick = 0;    ///< start from the last keyframe before this tick (0: from the beginning)
};

struct Mismatch {
  uint32_t tick = 0;
  uint32_t id = 0;
  uint32_t expected = 0;  ///< recorded checksum
  uint32_t actual = 0;    ///< re-simulated checksum
};

struct ResimResult {
  bool ok = true;                 ///< every checksum (and keyframe) matched
  Mismatch first;                 ///< the earliest mismatch (lowest tick, then lowest id)
  uint64_t mismatches = 0;
  uint64_t steps = 0;
  uint32_t start_tick = 0;        ///< the tick simulation started at
  double seconds = 0;             ///< wall time of the re-simulation
  /// With keep_states: states[c][i] is character c's state after tick start_of[c] + i.
  std::vector<std::vector<CharacterState>> states;
  std::vector<uint32_t> start_of;
};

ResimResult resimulate(const LoadedRecording& recording, const World& world, const ResimOptions& options);

/// Writes a re-simulation's states as a trace, tick by tick, characters in ascending id.
void write_trace(const LoadedRecording& recording, const ResimResult& result, std::ostream& out);

}  // namespace foothold::replay
