#pragma once
// The bytes of a Challenge's cookie, read and written here only. The server makes and checks cookies
// (server/cookie.h, which holds the MAC key); the client reads the server's salt out of one for its
// session keys (proto/handshake.h); the server remembers spent ones by their MAC.
//
//   issued u64 (nanoseconds of the server's clock) | server salt u64 | MAC[16]     (kCookieSize = 32)

#include <array>
#include <cstdint>
#include <span>

#include "proto/codec.h"

namespace foothold::proto {

/// A cookie's fields.
struct CookieFields {
  uint64_t issued = 0;       ///< when the server issued it, nanoseconds of its clock
  uint64_t server_salt = 0;  ///< the server's salt for the session keys
  std::array<uint8_t, 16> mac{};  ///< keyed BLAKE2b over the rest and the client's attempt
};
static_assert(kCookieSize == 8 + 8 + 16);

/// The kCookieSize bytes of `fields`.
std::array<uint8_t, kCookieSize> write_cookie(const CookieFields& fields);
/// The fields of `bytes`; false, with `fields` untouched, when they are not kCookieSize bytes.
bool read_cookie(std::span<const uint8_t> bytes, CookieFields& fields);

}  // namespace foothold::proto
