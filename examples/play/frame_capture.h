#pragma once
// Script mode's frames: the back buffer, read with glReadPixels, as binary PPM (P6) files.

#include <cstdint>
#include <string>
#include <vector>

namespace play {

/// Reads the `width` x `height` back buffer (call it after drawing, before the swap) and writes it to
/// `path` as P6, rows top to bottom. False with the reason in `error` when the file cannot be written.
bool save_back_buffer_ppm(const std::string& path, int width, int height, std::string& error);

/// "DIR/frame_00030.ppm" for frame 30.
std::string frame_path(const std::string& dir, uint64_t frame);

}  // namespace play
