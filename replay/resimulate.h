#pragma once
// Re-simulating a recording: every character's inputs replayed through the step, checked against
// the recorded checksums, tick by tick as the server ran them (shared/tick.h: every character steps
// against the others as they were at the start of the tick), the steps of a tick spread over threads.

#include <cstdint>
#include <string>
#include <vector>

#include "replay/recording.h"
#include "shared/formats/trace.h"
#include "shared/world.h"

namespace foothold::replay {

/// One character's life in a recording.
struct Timeline {
  /// The character's id (the server's).
  uint32_t id = 0;
  uint32_t first_tick = 0;          ///< the first tick it was simulated in
  CharacterState start;             ///< its state going into first_tick
  std::vector<InputCmd> inputs;     ///< inputs[i] is for tick first_tick + i
  std::vector<uint8_t> repeated;    ///< repeated[i]: the server repeated an earlier input for that tick
  std::vector<uint8_t> met;         ///< met[i]: its step of that tick met another character
  /// commanded[i]: a game command changed its state before that tick's step (format 5); the
  /// command's kind, as GameCommandKind, of the last one (0: none).
  std::vector<uint8_t> commanded;
  std::vector<uint32_t> checksums;  ///< after each tick
  /// The last tick it was simulated in (inputs is never empty in a loaded recording).
  uint32_t last_tick() const { return first_tick + uint32_t(inputs.size()) - 1; }
};

/// The messages handed to the game at the start of one tick, before its steps, in the order handed over.
struct TickMessages {
  /// The tick.
  uint32_t tick = 0;
  std::vector<MessageEntry> messages;  ///< never empty
};

/// The game's commands of one tick (format 5), in the order applied.
struct TickCommands {
  uint32_t tick = 0;
  std::vector<GameCommand> commands;  ///< never empty
};

/// A whole recording in memory.
struct LoadedRecording {
  /// The recording's header.
  RecordingHeader header;
  std::vector<Timeline> characters;    ///< ascending id
  /// Every keyframe read, in file order.
  std::vector<KeyframeData> keyframes;
  /// The first tick record read.
  uint32_t first_tick = 0;
  /// The last tick record read (tick records are consecutive: a gap stops reading).
  uint32_t last_tick = 0;
  uint64_t ticks = 0;                  ///< tick records read
  /// The file's size in bytes.
  uint64_t file_size = 0;
  bool clean = false;                  ///< closed with a footer
  std::string problem;                 ///< why reading stopped early (truncated, corrupt), if it did
  std::size_t max_concurrent = 0;      ///< most characters in one tick
  /// The messages the game was handed, for each tick read that had any, in tick order (a format 3
  /// recording has none): what a replay hands the game code at the same ticks.
  std::vector<TickMessages> messages;
  uint64_t message_count = 0;          ///< messages in `messages`, all ticks together
  uint64_t message_bytes = 0;          ///< their bytes
  /// The messages the game sent (format 6; GameControl::send, broadcast's one per client), all
  /// ticks together, and their bytes: only counted, a replay does not send them.
  uint64_t sent_count = 0;
  uint64_t sent_bytes = 0;             ///< their bytes
  /// The game's commands, for each tick read that had any, in tick order (none before format 5):
  /// re-simulation applies them before those ticks' steps, as the server did, without the game.
  std::vector<TickCommands> commands;
  uint64_t command_count = 0;          ///< commands in `commands`, all ticks together
};

/// Reads a recording. Returns false when nothing usable could be read, or when the file holds more
/// than its server could have (RecordingReader::Next::kRefused: error says why, naming the field and
/// the limit); a file cut short or corrupt part-way loads what came before and says so in `problem`. Reading also stops
/// at a gap between ticks, at a tick that lacks a live character's input or checksum, and before a
/// tick with a message from a character not simulated in it.
bool load_recording(const std::string& path, LoadedRecording& out, std::string& error);
/// The same from bytes (tests).
bool load_recording_bytes(std::vector<uint8_t> bytes, const std::string& name, LoadedRecording& out, std::string& error);

/// How to re-simulate.
struct ResimOptions {
  /// Threads to spread the characters' steps over (the calling one included; at least 1).
  int threads = 2;
  bool keep_states = false;  ///< keep every state (for traces); otherwise only check checksums
  uint32_t from_tick = 0;    ///< start from the last keyframe before this tick (0: from the beginning)
};

/// A re-simulated state whose checksum differs from the recorded one.
struct Mismatch {
  /// The tick after which the states differ.
  uint32_t tick = 0;
  /// The character.
  uint32_t id = 0;
  uint32_t expected = 0;  ///< recorded checksum
  uint32_t actual = 0;    ///< re-simulated checksum
};

/// What a re-simulation found.
struct ResimResult {
  bool ok = true;                 ///< every checksum matched (keyframes are not compared)
  /// Meaningless when ok (its tick and id are then ~0u).
  Mismatch first;                 ///< the earliest mismatch (lowest tick, then lowest id)
  /// Checksums that differ, in all.
  uint64_t mismatches = 0;
  /// Character steps simulated.
  uint64_t steps = 0;
  uint32_t start_tick = 0;        ///< the tick simulation started at
  double seconds = 0;             ///< wall time of the re-simulation
  /// With keep_states: states[c][i] is character c's state after tick start_of[c] + i.
  std::vector<std::vector<CharacterState>> states;
  /// start_of[c]: the first tick re-simulated for character c (its join, or the tick after the
  /// keyframe). A character that left before the keyframe, or that it lacks, has no states.
  std::vector<uint32_t> start_of;
};

/// Replays every character's inputs through step() with the recording's settings, in `world` (the
/// caller checks its hash against header.world_hash), and compares each state's checksum with the
/// recorded one. Keyframes serve only as starting points (options.from_tick). Runs on a pool of
/// options.threads threads (the calling one included), started once and joined before returning.
ResimResult resimulate(const LoadedRecording& recording, const World& world, const ResimOptions& options);

/// Writes a re-simulation's states as a trace, tick by tick, characters in ascending id. Needs a
/// `result` made with keep_states (otherwise only the trace's header is written).
void write_trace(const LoadedRecording& recording, const ResimResult& result, std::ostream& out);

}  // namespace foothold::replay
