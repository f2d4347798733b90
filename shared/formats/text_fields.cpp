#include "shared/formats/text_fields.h"

#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>
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

std::optional<std::string> read_whole_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream bytes;
  bytes << in.rdbuf();
  if (in.bad()) return std::nullopt;
  return bytes.str();
}

}  // namespace foothold
