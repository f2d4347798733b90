// check_frames DIR: are the frames foothold-play saved in script mode (DIR/frame_NNNNN.ppm) a
// picture of the game? The first and the last saved frame must each show sky, the world's floor and
// the local character in sensible proportions, and the two must differ (the character walked, so
// the view followed it). Prints one line per frame, then the verdict.
//
// The colours are foothold-play's, from examples/play/palette.h: keep the two files in step.
//
// Exit codes: 0 the frames pass; 1 they do not (each failure named); 2 bad usage.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <unordered_set>
#include <vector>

namespace {

namespace fs = std::filesystem;

// examples/play/palette.h's kSky: the clear colour, never lit, so it arrives exactly.
constexpr int kSkyR = 135, kSkyG = 185, kSkyB = 235;
constexpr int kSkyTolerance = 2;

// Thresholds (fractions of the frame's pixels).
constexpr double kSkyMin = 0.10, kSkyMax = 0.90;
constexpr double kWorldMin = 0.20;
constexpr double kCharacterMin = 0.001, kCharacterMax = 0.20;
constexpr size_t kMinColours = 8;       // a blank or one-colour frame has 1 or 2
// Mean |first - last| per channel, out of 255. The net graph's changing numbers alone make about 1;
// a walk that scrolls the floor's checker past the camera makes several times the threshold.
constexpr double kMinMeanDifference = 3.0;

struct Image {
  int width = 0, height = 0;
  std::vector<unsigned char> rgb;  ///< rows top to bottom
};

// Skips white space and '#' comments between PPM header fields.
void skip_header_space(const std::string& d, size_t& pos) {
  while (pos < d.size()) {
    if (d[pos] == '#') {
      while (pos < d.size() && d[pos] != '\n') ++pos;
    } else if (std::isspace(static_cast<unsigned char>(d[pos]))) {
      ++pos;
    } else {
      break;
    }
  }
}

bool read_header_number(const std::string& d, size_t& pos, int& out) {
  skip_header_space(d, pos);
  const size_t start = pos;
  while (pos < d.size() && std::isdigit(static_cast<unsigned char>(d[pos]))) ++pos;
  if (pos == start || pos - start > 6) return false;
  out = std::atoi(d.substr(start, pos - start).c_str());
  return true;
}

// A binary PPM (P6, maxval 255); false with the reason in `error`.
bool read_ppm(const fs::path& path, Image& image, std::string& error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = "cannot open";
    return false;
  }
  const std::string d((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t pos = 2;
  int maxval = 0;
  if (d.compare(0, 2, "P6") != 0 || !read_header_number(d, pos, image.width) || !read_header_number(d, pos, image.height) ||
      !read_header_number(d, pos, maxval) || pos >= d.size() || !std::isspace(static_cast<unsigned char>(d[pos]))) {
    error = "not a binary PPM (P6) header";
    return false;
  }
  if (maxval != 255 || image.width <= 0 || image.height <= 0) {
    error = "expected 8-bit channels and a non-empty image";
    return false;
  }
  ++pos;  // the single white-space character before the pixels
  const size_t bytes = size_t(image.width) * size_t(image.height) * 3;
  if (d.size() - pos != bytes) {
    error = "pixel data is " + std::to_string(d.size() - pos) + " bytes, expected " + std::to_string(bytes);
    return false;
  }
  image.rgb.assign(d.begin() + std::ptrdiff_t(pos), d.end());
  return true;
}

bool is_sky(int r, int g, int b) {
  return std::abs(r - kSkyR) <= kSkyTolerance && std::abs(g - kSkyG) <= kSkyTolerance && std::abs(b - kSkyB) <= kSkyTolerance;
}

// palette.h's kWorldPlain (128, 150, 112) lit by any intensity in [0.45, 1]: grey-green, g > r > b.
// No other colour foothold-play draws has that order (sandy, reddish, orange and yellow have r > g).
bool is_world(int r, int g, int b) { return g >= r + 5 && r >= b + 5 && g <= 200 && b >= 20; }

// palette.h's kLocalCharacter (30, 80, 255) lit by any intensity in [0.6, 1]: strongly blue. The sky
// is blue too, but far less so over green (235 - 185 = 50).
bool is_character(int r, int g, int b) { return b >= 120 && b >= g + 70 && b >= r + 90; }

struct Census {
  double sky = 0, world = 0, character = 0;  ///< fractions of the pixels
  size_t colours = 0;
};

Census census(const Image& image) {
  size_t sky = 0, world = 0, character = 0;
  std::unordered_set<unsigned> colours;
  const size_t pixels = image.rgb.size() / 3;
  for (size_t i = 0; i < pixels; ++i) {
    const int r = image.rgb[3 * i], g = image.rgb[3 * i + 1], b = image.rgb[3 * i + 2];
    colours.insert(unsigned(r) << 16 | unsigned(g) << 8 | unsigned(b));
    if (is_sky(r, g, b)) ++sky;
    else if (is_character(r, g, b)) ++character;
    else if (is_world(r, g, b)) ++world;
  }
  const double n = double(pixels);
  return {double(sky) / n, double(world) / n, double(character) / n, colours.size()};
}

std::string percent(double fraction) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f%%", 100 * fraction);
  return text;
}

// Each rule the frame breaks, as a message.
std::vector<std::string> judge(const std::string& name, const Census& c) {
  std::vector<std::string> failures;
  if (c.colours < kMinColours)
    failures.push_back(name + ": only " + std::to_string(c.colours) + " distinct colours (blank frame?), need " +
                       std::to_string(kMinColours));
  if (c.sky < kSkyMin || c.sky > kSkyMax)
    failures.push_back(name + ": sky covers " + percent(c.sky) + ", expected between " + percent(kSkyMin) + " and " + percent(kSkyMax));
  if (c.world < kWorldMin)
    failures.push_back(name + ": the world's grey-green covers " + percent(c.world) + ", expected at least " + percent(kWorldMin));
  if (c.character < kCharacterMin || c.character > kCharacterMax)
    failures.push_back(name + ": the local character's blue covers " + percent(c.character) + ", expected between " +
                       percent(kCharacterMin) + " and " + percent(kCharacterMax));
  return failures;
}

double mean_difference(const Image& a, const Image& b) {
  double sum = 0;
  for (size_t i = 0; i < a.rgb.size(); ++i) sum += std::abs(int(a.rgb[i]) - int(b.rgb[i]));
  return sum / double(a.rgb.size());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: check_frames DIR   (DIR holds foothold-play's frame_NNNNN.ppm)\n");
    return 2;
  }
  const fs::path dir = argv[1];
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    std::fprintf(stderr, "check_frames: %s is not a directory\n", dir.c_str());
    return 2;
  }
  std::vector<fs::path> frames;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("frame_", 0) == 0 && entry.path().extension() == ".ppm") frames.push_back(entry.path());
  }
  std::sort(frames.begin(), frames.end());  // zero-padded numbers: name order is frame order
  if (frames.size() < 2) {
    std::fprintf(stderr, "check_frames: %s holds %zu frame_*.ppm file(s); need at least 2 (a first and a last)\n", dir.c_str(),
                 frames.size());
    return 1;
  }

  std::vector<std::string> failures;
  std::vector<Image> images(frames.size());
  for (size_t i = 0; i < frames.size(); ++i) {
    const std::string name = frames[i].filename().string();
    std::string error;
    if (!read_ppm(frames[i], images[i], error)) {
      failures.push_back(name + ": " + error);
      continue;
    }
    const Census c = census(images[i]);
    std::printf("%s: sky=%.1f%% world=%.1f%% character=%.2f%% colours=%zu\n", name.c_str(), 100 * c.sky, 100 * c.world,
                100 * c.character, c.colours);
    if (i == 0 || i + 1 == frames.size()) {
      const auto broken = judge(name, c);
      failures.insert(failures.end(), broken.begin(), broken.end());
    }
  }

  const Image& first = images.front();
  const Image& last = images.back();
  if (!first.rgb.empty() && !last.rgb.empty()) {
    if (first.width != last.width || first.height != last.height) {
      failures.push_back("the first and last frames differ in size");
    } else {
      const double difference = mean_difference(first, last);
      std::printf("first vs last: mean absolute difference %.2f per channel (need > %.2f)\n", difference, kMinMeanDifference);
      if (difference <= kMinMeanDifference)
        failures.push_back("the first and last frames are nearly the same (mean difference " + std::to_string(difference) +
                           "): neither the character nor the view moved");
    }
  }

  for (const auto& f : failures) std::fprintf(stderr, "check_frames: FAIL %s\n", f.c_str());
  if (!failures.empty()) return 1;
  std::printf("check_frames: ok (%zu frames)\n", frames.size());
  return 0;
}
