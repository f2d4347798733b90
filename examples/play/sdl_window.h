#pragma once
// The platform side: SDL's window with its OpenGL 2.1 context, the frame clock, the frame pacer.

#include <string>

#include <SDL.h>

namespace play {

/// SDL (video), one window and its OpenGL 2.1 context; all released by the destructor.
class SdlWindow {
 public:
  SdlWindow() = default;
  ~SdlWindow();
  SdlWindow(const SdlWindow&) = delete;
  SdlWindow& operator=(const SdlWindow&) = delete;

  /// Opens the window; false with SDL's message in `error`. `vsync` asks for swaps synchronised to
  /// the display (vsync() says whether that was granted).
  bool open(const char* title, int width, int height, bool resizable, bool want_vsync, std::string& error);
  /// The size in pixels of what OpenGL draws into (larger than the window's on high-DPI screens).
  void drawable_size(int& width, int& height) const;
  void swap() const;
  bool vsync() const { return vsync_; }

 private:
  bool sdl_started_ = false;
  SDL_Window* window_ = nullptr;
  SDL_GLContext context_ = nullptr;
  bool vsync_ = false;
};

/// The frame clock: SDL's performance counter, in seconds since construction (never decreasing).
class FrameClock {
 public:
  FrameClock();
  double now() const;

 private:
  Uint64 start_;
  double frequency_;
};

/// Keeps a steady frame rate: wait() sleeps until the next multiple of the period. When the frames
/// fall behind by more than a period, it starts counting afresh instead of rushing to catch up.
class FramePacer {
 public:
  explicit FramePacer(double period_seconds) : period_(period_seconds) {}
  void wait(const FrameClock& clock);

 private:
  double period_;
  double next_ = -1;
};

/// True when the window was closed or Escape pressed (drains SDL's event queue).
bool quit_requested();

}  // namespace play
