#pragma once
// Scenario input scripts for `foothold-replay run --inputs SCRIPT`.
//
//   # comment
//   TICKS MOVE_X MOVE_Z BUTTONS
//
// MOVE_X and MOVE_Z are world-axis wishes in [-1, 1] (a longer vector is normalised); BUTTONS is "-"
// or "jump". Each line becomes exactly the integer input a client would send, repeated TICKS times.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "shared/input.h"

namespace foothold::replay {

struct ScriptLine {
  uint32_t ticks = 0;
  InputCmd command;  ///< tick field unused
};

struct InputScript {
  std::vector<ScriptLine> lines;
  std::string error;  ///< "SOURCE:LINE: what is wrong"; empty on success
  bool ok() const { return error.empty(); }
  uint64_t total_ticks() const;
};

/// Parses script text; `source` names it in messages.
InputScript parse_input_script(std::string_view text, std::string_view source);
/// Reads and parses a script file.
InputScript load_input_script(const std::string& path);

}  // namespace foothold::replay
