#include "sdl_window.h"

#include <chrono>
#include <thread>

namespace play {

SdlWindow::~SdlWindow() {
  if (context_ != nullptr) SDL_GL_DeleteContext(context_);
  if (window_ != nullptr) SDL_DestroyWindow(window_);
  if (sdl_started_) SDL_Quit();
}

bool SdlWindow::open(const char* title, int width, int height, bool resizable, bool want_vsync, std::string& error) {
  if (SDL_Init(SDL_INIT_VIDEO) != 0) {
    error = std::string("SDL_Init: ") + SDL_GetError();
    return false;
  }
  sdl_started_ = true;
  // Fixed-function OpenGL: a 2.1 context (compatibility), double-buffered, with a depth buffer.
  SDL_GL_SetAttribute(SDL_GL_CONTEXT_MAJOR_VERSION, 2);
  SDL_GL_SetAttribute(SDL_GL_CONTEXT_MINOR_VERSION, 1);
  SDL_GL_SetAttribute(SDL_GL_DOUBLEBUFFER, 1);
  SDL_GL_SetAttribute(SDL_GL_DEPTH_SIZE, 24);
  Uint32 flags = SDL_WINDOW_OPENGL | SDL_WINDOW_SHOWN | SDL_WINDOW_ALLOW_HIGHDPI;
  if (resizable) flags |= SDL_WINDOW_RESIZABLE;
  window_ = SDL_CreateWindow(title, SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED, width, height, flags);
  if (window_ == nullptr) {
    error = std::string("SDL_CreateWindow: ") + SDL_GetError();
    return false;
  }
  context_ = SDL_GL_CreateContext(window_);
  if (context_ == nullptr) {
    error = std::string("SDL_GL_CreateContext: ") + SDL_GetError();
    return false;
  }
  // Adaptive vsync first (it does not stall a late frame), then plain vsync; else the pacer paces.
  vsync_ = want_vsync && (SDL_GL_SetSwapInterval(-1) == 0 || SDL_GL_SetSwapInterval(1) == 0);
  if (!vsync_) SDL_GL_SetSwapInterval(0);
  return true;
}

void SdlWindow::drawable_size(int& width, int& height) const { SDL_GL_GetDrawableSize(window_, &width, &height); }

void SdlWindow::swap() const { SDL_GL_SwapWindow(window_); }

FrameClock::FrameClock() : start_(SDL_GetPerformanceCounter()), frequency_(double(SDL_GetPerformanceFrequency())) {}

double FrameClock::now() const { return double(SDL_GetPerformanceCounter() - start_) / frequency_; }

void FramePacer::wait(const FrameClock& clock) {
  const double now = clock.now();
  if (next_ < 0 || now - next_ > period_) next_ = now;
  next_ += period_;
  if (next_ > now) std::this_thread::sleep_for(std::chrono::duration<double>(next_ - now));
}

bool quit_requested() {
  SDL_Event event;
  bool quit = false;
  while (SDL_PollEvent(&event)) {
    if (event.type == SDL_QUIT) quit = true;
    if (event.type == SDL_KEYDOWN && event.key.keysym.sym == SDLK_ESCAPE) quit = true;
  }
  return quit;
}

}  // namespace play
