#pragma once
// Reading the text formats Foothold accepts (OBJ lines, input scripts, spawn points): fields split
// on white space, and numbers that must be the whole field.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace foothold {

/// The fields of a line separated by spaces, tabs or carriage returns (empty fields are skipped).
/// The views point into `line`'s characters: those must outlive them.
std::vector<std::string_view> split_fields(std::string_view line);

/// The field as a finite number, or nothing when it is not exactly one (trailing junk, NaN, inf,
/// hexadecimal). Decimal or scientific notation, an optional sign; the nearest double, rounded
/// correctly, so that every machine reads the same text as the same bits.
std::optional<double> parse_finite(std::string_view field);

/// Bytes of a file read_whole_file() reads at most: 256 MiB. The largest world a server loads is far
/// below it (a 1 MB OBJ holds the 33,000 triangles of the benchmarks' terrain, so 256 MiB is some
/// 8 million triangles, more than the collision world could step in real time), and a file named by
/// a recording or a configuration must not make a tool read without end (/dev/zero).
inline constexpr std::uint64_t kMaxReadFileBytes = 256ull << 20;

/// What read_whole_file() read.
struct FileRead {
  std::optional<std::string> bytes;  ///< the file's content; nothing when it was refused
  /// Why not, without the path: "No such file or directory", "it is a FIFO, not a regular file",
  /// "it is 300000000 bytes, over the most read, 268435456 (256 MiB)".
  std::string error;
};
/// The whole content of a file, as bytes. Only a regular file of at most `max_bytes` is read: a
/// device, a FIFO, a socket or a directory is refused without a byte read (opened without blocking,
/// then judged by the opened file's own status, so it cannot be swapped in between), and so is a file
/// over the size (or one that grows past it while read). The one way the text formats (OBJ, glTF and
/// the files a glTF names, settings, input scripts) read their files.
FileRead read_whole_file(const std::string& path, std::uint64_t max_bytes = kMaxReadFileBytes);

}  // namespace foothold
