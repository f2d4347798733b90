#include "shared/formats/text_fields.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>
#if defined(_WIN32)
#include <io.h>
#endif

#include <cerrno>
#include <charconv>
#include <cstring>
#include <cmath>
#include <string>

namespace foothold {

std::vector<std::string_view> split_fields(std::string_view line) {
  auto space = [](char c) { return c == ' ' || c == '\t' || c == '\r'; };
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && space(line[i])) ++i;
    size_t j = i;
    while (j < line.size() && !space(line[j])) ++j;
    if (j > i) out.push_back(line.substr(i, j - i));
    i = j;
  }
  return out;
}

std::optional<double> parse_finite(std::string_view field) {
  // std::from_chars rounds correctly (to nearest, ties to even) and reads no locale, so every
  // machine turns the same text into the same double. Parsers that build the value from powers of
  // ten with libm (as tinyobjloader's does) can differ in the last bit between architectures.
  // from_chars takes no '+': a single leading one is allowed here, as strtod allowed it.
  if (field.size() > 1 && field[0] == '+' && field[1] != '-' && field[1] != '+') field.remove_prefix(1);
  double v = 0;
  const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), v, std::chars_format::general);
  if (field.empty() || ec != std::errc() || end != field.data() + field.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

namespace {

#if defined(_WIN32)
// Windows' C runtime: binary mode, or it would turn CR LF into LF; no FIFO to wait on, nothing
// exec'd to inherit the descriptor.
constexpr int kReadFlags = O_RDONLY | O_BINARY;
#else
// O_NONBLOCK: opening a FIFO with no writer returns at once instead of waiting for one.
constexpr int kReadFlags = O_RDONLY | O_NONBLOCK | O_CLOEXEC;
#endif

// What a file that is not a regular one is, for the refusal.
const char* kind_of(unsigned mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
#if defined(S_ISSOCK)
  if (S_ISSOCK(mode)) return "a socket";
#endif
  return "of an unknown kind";
}

std::string too_large(std::uint64_t size, std::uint64_t max_bytes) {
  return "it is " + std::to_string(size) + " bytes, over the most read, " + std::to_string(max_bytes) + " (" +
         std::to_string(max_bytes >> 20) + " MiB)";
}

}  // namespace

FileRead read_whole_file(const std::string& path, std::uint64_t max_bytes) {
  FileRead out;
  // What the path names is judged from the opened descriptor, never from the path again.
  const int fd = ::open(path.c_str(), kReadFlags);
  if (fd < 0) {
    out.error = std::strerror(errno);
    return out;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    out.error = std::string("examining it failed (") + std::strerror(errno) + ")";
  } else if (!S_ISREG(st.st_mode)) {
    out.error = std::string("it is ") + kind_of(st.st_mode) + ", not a regular file";
  } else if (std::uint64_t(st.st_size) > max_bytes) {
    out.error = too_large(std::uint64_t(st.st_size), max_bytes);
  } else {
    std::string bytes;
    bytes.reserve(std::size_t(st.st_size));
    char chunk[64 << 10];
    while (true) {
      const auto n = ::read(fd, chunk, sizeof chunk);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) out.error = std::string("reading it failed (") + std::strerror(errno) + ")";
      if (n <= 0) break;
      // The size fstat gave is not trusted to stay: a file that grows past the most is refused too.
      if (bytes.size() + std::size_t(n) > max_bytes) {
        out.error = too_large(bytes.size() + std::size_t(n), max_bytes);
        break;
      }
      bytes.append(chunk, std::size_t(n));
    }
    if (out.error.empty()) out.bytes = std::move(bytes);
  }
  ::close(fd);
  return out;
}

}  // namespace foothold
