#include "proto/cookie_layout.h"

#include <cstring>

#include "proto/secure.h"

namespace foothold::proto {

std::array<uint8_t, kCookieSize> write_cookie(const CookieFields& f) {
  std::array<uint8_t, kCookieSize> b{};
  put_u64(b.data(), f.issued);
  put_u64(b.data() + 8, f.server_salt);
  std::memcpy(b.data() + 16, f.mac.data(), f.mac.size());
  return b;
}

bool read_cookie(std::span<const uint8_t> bytes, CookieFields& f) {
  if (bytes.size() != kCookieSize) return false;
  f.issued = get_u64(bytes.data());
  f.server_salt = get_u64(bytes.data() + 8);
  std::memcpy(f.mac.data(), bytes.data() + 16, f.mac.size());
  return true;
}

}  // namespace foothold::proto
