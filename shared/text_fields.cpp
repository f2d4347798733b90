#include "shared/text_fields.h"

#include <cmath>
#include <cstdlib>
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
  const std::string s(field);  // strtod needs a terminated string
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (s.empty() || end != s.c_str() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

}  // namespace foothold
