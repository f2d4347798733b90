#include "shared/fixed_point.h"

#include <cstdlib>
#include <limits>

namespace foothold {

namespace {
int64_t pow5(int n) {
  int64_t r = 1;
  for (int i = 0; i < n; ++i) r *= 5;
  return r;
}
}  // namespace

std::string format_fixed(int64_t raw, int frac_bits) {
  // raw / 2^f = raw * 5^f / 10^f, so the fraction's digits are frac * 5^f written with f digits.
  const bool negative = raw < 0;
  const uint64_t mag = negative ? uint64_t(0) - uint64_t(raw) : uint64_t(raw);
  const uint64_t whole = mag >> frac_bits;
  const uint64_t frac = mag & ((uint64_t(1) << frac_bits) - 1);
  std::string out = negative ? "-" : "";
  out += std::to_string(whole);
  if (frac != 0) {
    std::string digits = std::to_string(frac * uint64_t(pow5(frac_bits)));
    digits.insert(0, size_t(frac_bits) - digits.size(), '0');
    while (!digits.empty() && digits.back() == '0') digits.pop_back();
    out += '.';
    out += digits;
  }
  return out;
}

std::optional<int32_t> parse_fixed(std::string_view text, int frac_bits) {
  size_t i = 0;
  bool negative = false;
  if (i < text.size() && (text[i] == '-' || text[i] == '+')) negative = text[i++] == '-';
  int64_t whole = 0;
  size_t whole_digits = 0;
  while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
    whole = whole * 10 + (text[i++] - '0');
    if (whole > (int64_t(1) << 32)) return std::nullopt;
    ++whole_digits;
  }
  int64_t frac = 0;
  int frac_digits = 0;
  if (i < text.size() && text[i] == '.') {
    ++i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
      if (frac_digits == frac_bits) {
        // More digits than the grid can have: only trailing zeros may follow.
        if (text[i] != '0') return std::nullopt;
        ++i;
        continue;
      }
      frac = frac * 10 + (text[i++] - '0');
      ++frac_digits;
    }
  }
  if (i != text.size() || (whole_digits == 0 && frac_digits == 0)) return std::nullopt;
  // frac / 10^d * 2^f must be a whole number: frac * 2^(f-d) divisible by 5^d.
  const int64_t scaled = frac << (frac_bits - frac_digits);
  const int64_t p5 = pow5(frac_digits);
  if (scaled % p5 != 0) return std::nullopt;
  const int64_t raw = (whole << frac_bits) + scaled / p5;
  const int64_t value = negative ? -raw : raw;
  if (value < std::numeric_limits<int32_t>::min() || value > std::numeric_limits<int32_t>::max()) return std::nullopt;
  return int32_t(value);
}

}  // namespace foothold
