#include "frame_capture.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include <SDL_opengl.h>

namespace play {

std::string frame_path(const std::string& dir, uint64_t frame) {
  char name[32];
  std::snprintf(name, sizeof name, "frame_%05llu.ppm", static_cast<unsigned long long>(frame));
  return dir + "/" + name;
}

bool save_back_buffer_ppm(const std::string& path, int width, int height, std::string& error) {
  const size_t row = size_t(width) * 3;
  std::vector<uint8_t> pixels(row * size_t(height));
  while (glGetError() != GL_NO_ERROR) {
  }  // an older error must not be taken for the read's
  glPixelStorei(GL_PACK_ALIGNMENT, 1);  // rows of 3 * width bytes, no padding
  glReadBuffer(GL_BACK);
  glReadPixels(0, 0, width, height, GL_RGB, GL_UNSIGNED_BYTE, pixels.data());
  if (const GLenum gl_error = glGetError(); gl_error != GL_NO_ERROR) {
    error = "glReadPixels failed (GL error " + std::to_string(gl_error) + ")";
    return false;
  }
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) {
    error = path + ": " + std::strerror(errno);
    return false;
  }
  std::fprintf(f, "P6\n%d %d\n255\n", width, height);
  // OpenGL's rows run bottom to top; PPM's top to bottom.
  bool ok = true;
  for (int y = height - 1; y >= 0 && ok; --y) ok = std::fwrite(pixels.data() + size_t(y) * row, 1, row, f) == row;
  ok = std::fclose(f) == 0 && ok;
  if (!ok) error = path + ": write failed";
  return ok;
}

}  // namespace play
