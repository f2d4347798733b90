#include "play_options.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <map>
#include <string_view>

namespace play {

namespace {

bool parse_int(std::string_view text, int lo, int hi, int& out) {
  int value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < lo || value > hi) return false;
  out = value;
  return true;
}

bool parse_positive_seconds(const std::string& text, double& out) {
  if (text.empty()) return false;
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || !std::isfinite(value) || value <= 0) return false;
  out = value;
  return true;
}

// Every option takes one value; each setter stores it or says what is wrong with it.
using Setter = std::function<std::string(PlayOptions&, const std::string&)>;

std::string store(std::string& field, const std::string& value, const char* name) {
  if (value.empty()) return std::string(name) + " needs a non-empty value";
  field = value;
  return "";
}

const std::map<std::string, Setter, std::less<>>& setters() {
  static const std::map<std::string, Setter, std::less<>> table = {
      {"--token", [](PlayOptions& o, const std::string& v) { return store(o.token_file, v, "--token"); }},
      {"--world", [](PlayOptions& o, const std::string& v) { return store(o.world, v, "--world"); }},
      {"--settings", [](PlayOptions& o, const std::string& v) { return store(o.settings_file, v, "--settings"); }},
      {"--server", [](PlayOptions& o, const std::string& v) { return store(o.server, v, "--server"); }},
      {"--record-frames", [](PlayOptions& o, const std::string& v) { return store(o.record_dir, v, "--record-frames"); }},
      {"--script", [](PlayOptions& o, const std::string& v) { return store(o.script_file, v, "--script"); }},
      {"--width",
       [](PlayOptions& o, const std::string& v) {
         return parse_int(v, 64, 16384, o.width) ? "" : "--width '" + v + "' is not a whole number of pixels in 64..16384";
       }},
      {"--height",
       [](PlayOptions& o, const std::string& v) {
         return parse_int(v, 64, 16384, o.height) ? "" : "--height '" + v + "' is not a whole number of pixels in 64..16384";
       }},
      {"--frame-every",
       [](PlayOptions& o, const std::string& v) {
         return parse_int(v, 1, 1000000, o.frame_every) ? "" : "--frame-every '" + v + "' is not a whole number of frames >= 1";
       }},
      {"--seconds",
       [](PlayOptions& o, const std::string& v) {
         double s = 0;
         if (!parse_positive_seconds(v, s)) return "--seconds '" + v + "' is not a positive number of seconds";
         o.seconds = s;
         return std::string();
       }},
  };
  return table;
}

// Options that only make sense together, or only in one mode.
std::string check_combination(const PlayOptions& o, bool frame_every_given) {
  if (o.record_dir.empty() != o.script_file.empty())
    return o.record_dir.empty() ? "--script needs --record-frames DIR (script mode takes both)"
                                : "--record-frames needs --script FILE (script mode takes both)";
  if (o.token_file.empty()) return "--token FILE is required (a connect token from foothold-token issue)";
  if (frame_every_given && !o.script_mode()) return "--frame-every is for script mode (--record-frames DIR --script FILE)";
  if (o.seconds && o.script_mode()) return "--seconds is for interactive mode; a script ends by itself";
  return "";
}

}  // namespace

const char* play_usage() {
  return "usage: foothold-play --token FILE [--world arena|PATH] [--settings FILE] [--server HOST:PORT]\n"
         "                     [--width W] [--height H] [--seconds S]\n"
         "       foothold-play --token FILE ... --record-frames DIR --script FILE [--frame-every N]\n"
         "       foothold-play --version\n"
         "\n"
         "  --token FILE         connect token (foothold-token issue --out FILE)\n"
         "  --world arena|PATH   the world the server runs: arena (default), .obj, .gltf or .glb\n"
         "  --settings FILE      movement settings TOML (must match the server's)\n"
         "  --server HOST:PORT   send to this address instead of the token's first one\n"
         "  --width W, --height H window size in pixels (default 1280 x 720)\n"
         "  --seconds S          quit after S seconds (interactive mode)\n"
         "  --record-frames DIR  script mode: no keyboard; save frames to DIR/frame_NNNNN.ppm\n"
         "  --script FILE        script mode's input: lines 'FRAMES MOVE_X MOVE_Z BUTTONS' at 60 frames/s\n"
         "  --frame-every N      script mode: save every N frames and the last (default 30)\n"
         "\n"
         "keys: W A S D move (relative to the camera), Space jump, Ctrl crouch, Q E or Left Right turn the\n"
         "camera, Escape quit. Exit codes: 0 done; 1 the session failed; 2 bad usage, or an unusable script,\n"
         "world, settings or token file.\n";
}

ParsedOptions parse_play_options(int argc, char** argv) {
  ParsedOptions out;
  bool frame_every_given = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      out.help = true;
      return out;
    }
    if (arg == "--version") {
      out.version = true;
      return out;
    }
    std::string value;
    bool has_value = false;
    if (const auto eq = arg.find('='); arg.rfind("--", 0) == 0 && eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg.resize(eq);
      has_value = true;
    }
    const auto setter = setters().find(arg);
    if (setter == setters().end()) {
      out.error = arg.rfind("-", 0) == 0 ? "unknown option '" + arg + "'" : "unexpected argument '" + arg + "'";
      return out;
    }
    if (!has_value) {
      if (i + 1 >= argc) {
        out.error = arg + " needs a value";
        return out;
      }
      value = argv[++i];
    }
    if (std::string error = setter->second(out.options, value); !error.empty()) {
      out.error = error;
      return out;
    }
    frame_every_given |= arg == "--frame-every";
  }
  out.error = check_combination(out.options, frame_every_given);
  return out;
}

}  // namespace play
