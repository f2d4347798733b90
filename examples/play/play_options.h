#pragma once
// foothold-play's command line.
//
//   foothold-play --token FILE [--world arena|PATH] [--settings FILE] [--server HOST:PORT]
//                 [--width W] [--height H] [--seconds S]
//   foothold-play --token FILE ... --record-frames DIR --script FILE [--frame-every N]

#include <optional>
#include <string>

namespace play {

/// What the command line asked for.
struct PlayOptions {
  std::string token_file;
  std::string world = "arena";
  std::string settings_file;  ///< empty: the built-in defaults
  std::string server;         ///< empty: the token's first address
  int width = 1280;
  int height = 720;
  std::string record_dir;   ///< script mode when set (together with script_file)
  std::string script_file;
  int frame_every = 30;     ///< script mode: save a frame every this many frames
  std::optional<double> seconds;  ///< interactive mode: quit after this long

  bool script_mode() const { return !record_dir.empty(); }
};

/// The outcome of parsing: options, a request for help, or the message naming what is wrong.
struct ParsedOptions {
  PlayOptions options;
  bool help = false;
  bool version = false;  ///< --version: print the version line and exit 0
  std::string error;  ///< empty when the command line is usable
};

/// Parses argv (both "--name value" and "--name=value").
ParsedOptions parse_play_options(int argc, char** argv);

/// The usage text printed by --help and after a usage error.
const char* play_usage();

}  // namespace play
