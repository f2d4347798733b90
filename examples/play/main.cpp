// foothold-play: a Foothold client a person can play. SDL2 window, fixed-function OpenGL, the
// client library's C API (foothold/client.h) and nothing else of the project.
//
//   foothold-play --token FILE [--world arena|PATH] [--settings FILE] [--server HOST:PORT]
//                 [--width W] [--height H] [--seconds S]
//   foothold-play --token FILE ... --record-frames DIR --script FILE [--frame-every N]
//
// Interactive: W A S D walk (relative to the camera), Space jumps, Ctrl crouches, Q/E or Left/Right
// turn the camera, Escape or closing the window quits. Script mode plays FILE's input (60 frames per
// second, no keyboard), saves DIR/frame_NNNNN.ppm every N frames and after the last, and prints
// "frames=N saved=K connected=1 distance_m=D" at the end.
//
// Exit codes: 0 done (quit, --seconds reached, script finished); 1 the session failed (rejected, no
// answer, timed out, disconnected, not connected within 10 s in script mode) or a window or file
// could not be made; 2 bad usage, or an unusable script, world, settings or token file.

#define SDL_MAIN_HANDLED  // our own main(): SDL needs no entry point of its own here

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <numbers>
#include <string>
#include <system_error>

#include <SDL.h>
#include <foothold/client.h>

#include "frame_capture.h"
#include "frame_script.h"
#include "play_options.h"
#include "scene.h"
#include "sdl_window.h"
#include "session.h"
#include "version/version.h"

namespace {

using namespace play;

constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;

constexpr double kScriptFrameSeconds = 1.0 / 60;  // script mode: FRAMES are at 60 per second
constexpr double kScriptConnectSeconds = 10;     // script mode: give up when not connected by then
constexpr double kCameraTurnSpeed = 2.0;          // radians per second, Q/E and Left/Right

int fail(int code, const std::string& message) {
  std::fprintf(stderr, "foothold-play: %s\n", message.c_str());
  return code;
}

// A bad world, settings or token file is the command line's fault (exit 2); anything else is not.
int exit_code_for(foothold_client_result result) {
  const bool usage = result == FOOTHOLD_CLIENT_ERROR_WORLD || result == FOOTHOLD_CLIENT_ERROR_SETTINGS ||
                     result == FOOTHOLD_CLIENT_ERROR_TOKEN || result == FOOTHOLD_CLIENT_ERROR_ARGUMENT;
  return usage ? kExitUsage : kExitFailure;
}

ClientPtr create_client(const PlayOptions& o, int& exit_code) {
  foothold_client_config config;
  foothold_client_config_init(&config);
  config.world = o.world.c_str();
  config.settings_file = o.settings_file.empty() ? nullptr : o.settings_file.c_str();
  config.server = o.server.empty() ? nullptr : o.server.c_str();
  foothold_client* client = nullptr;
  char error[512] = "";
  const foothold_client_result result = foothold_client_create(&config, &client, error, sizeof error);
  if (result != FOOTHOLD_CLIENT_OK) {
    exit_code = fail(exit_code_for(result), std::string("foothold_client_create: ") + error);
    return nullptr;
  }
  return ClientPtr(client);
}

// The keyboard, as the client's input: W/S along the camera's view, A/D across it, on the ground.
// Also turns the camera (Q/E, Left/Right) by `dt` seconds' worth.
FrameInput read_keyboard(double& camera_yaw, double dt) {
  const Uint8* key = SDL_GetKeyboardState(nullptr);
  const double turn = double(key[SDL_SCANCODE_Q] || key[SDL_SCANCODE_LEFT]) - double(key[SDL_SCANCODE_E] || key[SDL_SCANCODE_RIGHT]);
  camera_yaw = std::remainder(camera_yaw + turn * kCameraTurnSpeed * dt, 2 * std::numbers::pi);
  // Scancodes: the keys' places, so that W A S D sit under the same fingers on every layout.
  const double ahead = double(key[SDL_SCANCODE_W]) - double(key[SDL_SCANCODE_S]);
  const double right = double(key[SDL_SCANCODE_D]) - double(key[SDL_SCANCODE_A]);
  const Vec3d f = camera_forward(camera_yaw);
  const Vec3d r{-f.z, 0, f.x};  // forward turned a quarter clockwise, seen from above
  FrameInput input;
  input.move_x = f.x * ahead + r.x * right;
  input.move_z = f.z * ahead + r.z * right;
  // Diagonals: unit length, so that each axis stays within the API's [-1, 1].
  if (const double length = std::hypot(input.move_x, input.move_z); length > 1) {
    input.move_x /= length;
    input.move_z /= length;
  }
  if (key[SDL_SCANCODE_SPACE]) input.buttons |= FOOTHOLD_CLIENT_BUTTON_JUMP;
  if (key[SDL_SCANCODE_LCTRL] || key[SDL_SCANCODE_RCTRL]) input.buttons |= FOOTHOLD_CLIENT_BUTTON_CROUCH;
  return input;
}

int session_failed(foothold_client* client, foothold_client_status status) {
  const std::string message = foothold_client_last_error(client);
  return fail(kExitFailure, std::string("session ended (") + status_name(status) + "): " +
                                (message.empty() ? "no message from the client" : message));
}

// Draws the frame into the window's back buffer.
void render(Session& session, const SdlWindow& window, double camera_yaw, int& width, int& height) {
  window.drawable_size(width, height);
  session.draw(width, height, camera_yaw);
}

int run_interactive(foothold_client* client, Session& session, const SdlWindow& window, const PlayOptions& o) {
  const FrameClock clock;
  FramePacer pacer(1.0 / 60);  // only when the display does not pace the swaps
  double camera_yaw = 0, last = clock.now();
  for (;;) {
    if (quit_requested()) return 0;
    const double now = clock.now();
    const FrameInput input = read_keyboard(camera_yaw, now - last);
    last = now;
    const foothold_client_status status = session.advance(input, now);
    int width = 0, height = 0;
    render(session, window, camera_yaw, width, height);
    window.swap();
    if (session_over(status)) return session_failed(client, status);
    if (o.seconds && now >= *o.seconds) return 0;
    if (!window.vsync()) pacer.wait(clock);
  }
}

// Script mode's frame saving and its count.
struct FrameRecorder {
  const std::string& dir;
  int saved = 0;

  bool save(uint64_t frame, int width, int height) {
    std::string error;
    if (!save_back_buffer_ppm(frame_path(dir, frame), width, height, error)) {
      fail(kExitFailure, "cannot save frame " + std::to_string(frame) + ": " + error);
      return false;
    }
    ++saved;
    return true;
  }
};

// Script mode, before the script: neutral input until connected. Returns 0 once connected, else the
// exit code (the frame shown when it failed is saved as frame 0).
int wait_for_connection(foothold_client* client, Session& session, const SdlWindow& window, const FrameClock& clock,
                        FramePacer& pacer, FrameRecorder& recorder) {
  for (;;) {
    if (quit_requested()) return fail(0, "window closed before connecting");
    const double now = clock.now();
    const foothold_client_status status = session.advance({}, now);
    int width = 0, height = 0;
    render(session, window, 0, width, height);
    if (status == FOOTHOLD_CLIENT_CONNECTED) return 0;
    const bool over = session_over(status), too_late = now > kScriptConnectSeconds;
    if (over || too_late) {
      recorder.save(0, width, height);
      if (over) return session_failed(client, status);
      return fail(kExitFailure, std::string("not connected within 10 s (status: ") + status_name(status) + ")");
    }
    window.swap();
    pacer.wait(clock);
  }
}

double horizontal_distance(const Vec3d& a, const Vec3d& b) { return std::hypot(b.x - a.x, b.z - a.z); }

int run_script(foothold_client* client, Session& session, const SdlWindow& window, const PlayOptions& o,
               const FrameScript& script) {
  const FrameClock clock;
  FramePacer pacer(kScriptFrameSeconds);
  FrameRecorder recorder{o.record_dir};
  if (const int code = wait_for_connection(client, session, window, clock, pacer, recorder); code != 0) return code;

  const uint64_t total = script.total_frames();
  Vec3d start{};
  for (uint64_t frame = 1; frame <= total; ++frame) {
    if (quit_requested()) return fail(0, "window closed at frame " + std::to_string(frame) + " of " + std::to_string(total));
    const ScriptStep& step = script.step_at(frame - 1);
    const foothold_client_status status = session.advance({step.move_x, step.move_z, step.buttons}, clock.now());
    if (frame == 1) start = session.local_position();
    int width = 0, height = 0;
    render(session, window, 0, width, height);
    if (session_over(status)) {
      recorder.save(frame, width, height);
      return session_failed(client, status);
    }
    if ((frame % uint64_t(o.frame_every) == 0 || frame == total) && !recorder.save(frame, width, height)) return kExitFailure;
    window.swap();
    pacer.wait(clock);
  }
  std::printf("frames=%llu saved=%d connected=1 distance_m=%.2f\n", static_cast<unsigned long long>(total), recorder.saved,
              horizontal_distance(start, session.local_position()));
  std::fflush(stdout);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const ParsedOptions parsed = parse_play_options(argc, argv);
  if (parsed.help) {
    std::fputs(play_usage(), stdout);
    return 0;
  }
  if (parsed.version) {
    std::printf("%s\n", foothold::version_line("foothold-play").c_str());
    return 0;
  }
  if (!parsed.error.empty()) return fail(kExitUsage, parsed.error + " (foothold-play --help for usage)");
  const PlayOptions& o = parsed.options;

  FrameScript script;
  if (o.script_mode()) {
    script = load_frame_script(o.script_file);
    if (!script.ok()) return fail(kExitUsage, script.error);
    std::error_code ec;
    std::filesystem::create_directories(o.record_dir, ec);
    if (ec) return fail(kExitFailure, "--record-frames " + o.record_dir + ": " + ec.message());
  }

  int exit_code = 0;
  ClientPtr client = create_client(o, exit_code);
  if (!client) return exit_code;

  SdlWindow window;
  std::string error;
  if (!window.open("foothold-play", o.width, o.height, !o.script_mode(), !o.script_mode(), error))
    return fail(kExitFailure, error);
  Session session(client.get());
  if (!session.load(error)) return fail(kExitFailure, error);

  const foothold_client_result connected = foothold_client_connect_token_file(client.get(), o.token_file.c_str());
  if (connected != FOOTHOLD_CLIENT_OK)
    return fail(exit_code_for(connected), std::string("foothold_client_connect_token_file: ") + foothold_client_last_error(client.get()));

  return o.script_mode() ? run_script(client.get(), session, window, o, script) : run_interactive(client.get(), session, window, o);
}
