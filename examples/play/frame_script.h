#pragma once
// Script mode's input: the project's scenario input-script grammar (replay/input_script.h), read
// here with FRAMES in place of TICKS, at 60 frames per second.
//
//   # comment
//   FRAMES MOVE_X MOVE_Z BUTTONS      e.g. "120 0 -1 -", "1 0 0 jump", "30 0.5 0.5 jump,crouch"
//
// MOVE_X and MOVE_Z are in [-1, 1]; BUTTONS is "-", "jump", "crouch" or "jump,crouch". Read by the
// replay library's parser (one grammar, one set of error messages), turned into what the C API takes.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace play {

/// One line: an input held for a number of frames.
struct ScriptStep {
  uint32_t frames = 0;  ///< at least 1
  double move_x = 0, move_z = 0;
  uint32_t buttons = 0;  ///< FOOTHOLD_CLIENT_BUTTON_* bits
};

/// A parsed script, or why it could not be parsed.
struct FrameScript {
  std::vector<ScriptStep> steps;
  std::string error;  ///< "FILE:LINE: what is wrong"; empty on success

  bool ok() const { return error.empty(); }
  /// Every step's frames added up.
  uint64_t total_frames() const;
  /// The step in force at `frame` (0-based; precondition: frame < total_frames()).
  const ScriptStep& step_at(uint64_t frame) const;
};

/// Reads and parses a script file; messages name `path`.
FrameScript load_frame_script(const std::string& path);

}  // namespace play
