#include "frame_script.h"

#include <foothold/client.h>

#include "replay/input_script.h"

namespace play {

uint64_t FrameScript::total_frames() const {
  uint64_t n = 0;
  for (const auto& s : steps) n += s.frames;
  return n;
}

const ScriptStep& FrameScript::step_at(uint64_t frame) const {
  for (const auto& s : steps) {
    if (frame < s.frames) return s;
    frame -= s.frames;
  }
  return steps.back();
}

FrameScript load_frame_script(const std::string& path) {
  const foothold::replay::InputScript parsed = foothold::replay::load_input_script(path);
  FrameScript out;
  out.error = parsed.error;
  for (const foothold::replay::ScriptLine& line : parsed.lines) {
    // The script's integer stick values, back to the [-1, 1] wishes set_input() takes, which encodes
    // them again: to the same integers, but on a full-length diagonal, where renormalising may move
    // one by a step.
    const foothold::InputCmd& c = line.command;
    out.steps.push_back({line.ticks, c.move_x / 127.0, c.move_z / 127.0,
                         ((c.buttons & foothold::kButtonJump) ? FOOTHOLD_CLIENT_BUTTON_JUMP : 0u) |
                             ((c.buttons & foothold::kButtonCrouch) ? FOOTHOLD_CLIENT_BUTTON_CROUCH : 0u)});
  }
  return out;
}

}  // namespace play
