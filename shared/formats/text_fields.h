#pragma once
// Reading the text formats Foothold accepts (OBJ lines, input scripts, spawn points): fields split
// on white space, and numbers that must be the whole field.

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

/// The whole content of a file, as bytes; nothing when it cannot be opened or read. The one way the
/// text formats (OBJ, glTF, settings, input scripts) read their files.
std::optional<std::string> read_whole_file(const std::string& path);

}  // namespace foothold
