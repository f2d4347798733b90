#include "replay/input_script.h"

#include "shared/formats/text_fields.h"

#include <charconv>
#include <cmath>
#include <cstdlib>

namespace foothold::replay {

namespace {
// The longest script a run accepts: a day at 240 Hz, far beyond any scenario.
constexpr uint64_t kMaxTicks = 24ull * 3600 * 240;

bool parse_axis(std::string_view t, double& out) {
  const auto v = parse_finite(t);
  if (!v || *v < -1 || *v > 1) return false;
  out = *v;
  return true;
}
}  // namespace

uint64_t InputScript::total_ticks() const {
  uint64_t n = 0;
  for (const auto& l : lines) n += l.ticks;
  return n;
}

InputScript parse_input_script(std::string_view text, std::string_view source) {
  InputScript out;
  size_t line_no = 0;
  uint64_t total = 0;
  for (size_t pos = 0; pos <= text.size();) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    ++line_no;
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    if (const auto hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
    const auto t = split_fields(line);
    if (t.empty()) continue;
    auto fail = [&](const std::string& what) {
      out.error = std::string(source) + ":" + std::to_string(line_no) + ": " + what;
      out.lines.clear();
      return out;
    };
    if (t.size() != 4) return fail("expected 'TICKS MOVE_X MOVE_Z BUTTONS', found " + std::to_string(t.size()) + " field(s)");
    uint32_t ticks = 0;
    auto [p, ec] = std::from_chars(t[0].data(), t[0].data() + t[0].size(), ticks);
    if (ec != std::errc() || p != t[0].data() + t[0].size() || ticks == 0)
      return fail("TICKS '" + std::string(t[0]) + "' must be a whole number of at least 1");
    double mx, mz;
    if (!parse_axis(t[1], mx)) return fail("MOVE_X '" + std::string(t[1]) + "' must be a number in [-1, 1]");
    if (!parse_axis(t[2], mz)) return fail("MOVE_Z '" + std::string(t[2]) + "' must be a number in [-1, 1]");
    uint8_t buttons = 0;
    if (t[3] == "jump") {
      buttons = kButtonJump;
    } else if (t[3] == "crouch") {
      buttons = kButtonCrouch;
    } else if (t[3] == "jump,crouch" || t[3] == "crouch,jump") {
      buttons = kButtonJump | kButtonCrouch;
    } else if (t[3] != "-") {
      return fail("BUTTONS '" + std::string(t[3]) + "' must be '-', 'jump', 'crouch' or 'jump,crouch'");
    }
    total += ticks;
    if (total > kMaxTicks) return fail("the script is longer than " + std::to_string(kMaxTicks) + " ticks");
    out.lines.push_back({ticks, encode_move(mx, mz, buttons, 0)});
  }
  if (out.lines.empty()) out.error = std::string(source) + ": the script has no input line";
  return out;
}

InputScript load_input_script(const std::string& path) {
  const auto text = read_whole_file(path);
  if (!text.bytes) {
    InputScript out;
    out.error = path + ": cannot open input script: " + text.error;
    return out;
  }
  return parse_input_script(*text.bytes, path);
}

}  // namespace foothold::replay
