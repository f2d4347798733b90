#pragma once
// Scenario input scripts for `foothold-replay run --inputs SCRIPT`.
//
//   # comment
//   TICKS MOVE_X MOVE_Z BUTTONS
//
// MOVE_X and MOVE_Z are world-axis wishes in [-1, 1] (a longer vector is normalised); BUTTONS is "-",
// "jump", "crouch" or "jump,crouch". Each line becomes exactly the integer input a client would send,
// repeated TICKS times.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "shared/input.h"

namespace foothold::replay {

/// One line: a command held for a number of ticks.
struct ScriptLine {
  /// How many ticks the command lasts (at least 1).
  uint32_t ticks = 0;
  InputCmd command;  ///< tick field unused
};

/// A parsed script, or why it could not be parsed.
struct InputScript {
  /// The lines in order (empty on error).
  std::vector<ScriptLine> lines;
  std::string error;  ///< "SOURCE:LINE: what is wrong"; empty on success
  /// True when the script parsed.
  bool ok() const { return error.empty(); }
  /// Every line's ticks added up.
  uint64_t total_ticks() const;
};

/// Parses script text; `source` names it in messages. A script needs at least one line and may last
/// at most a day at 240 Hz (20,736,000 ticks).
InputScript parse_input_script(std::string_view text, std::string_view source);
/// Reads and parses a script file; messages name `path`.
InputScript load_input_script(const std::string& path);

}  // namespace foothold::replay
