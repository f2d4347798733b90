#pragma once
// A small, stable 64-bit hash (FNV-1a) for content hashes that must agree across processes,
// builds and machines: world and settings hashes in the handshake, state checksums in recordings.
// Values are fed as explicit little-endian bytes, never as raw struct memory, so padding and
// byte order never leak in.

#include <bit>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace foothold {

/// FNV-1a, 64-bit. Feed values with the add_* functions, in a fixed order, then read value().
class Hasher {
 public:
  /// Feeds one byte.
  constexpr void add_u8(uint8_t b) {
    state_ ^= b;
    state_ *= 0x100000001b3ull;
  }
  /// Feeds 4 bytes, little-endian.
  constexpr void add_u32(uint32_t v) {
    for (int i = 0; i < 4; ++i) add_u8(uint8_t(v >> (8 * i)));
  }
  /// Feeds 8 bytes, little-endian.
  constexpr void add_u64(uint64_t v) {
    for (int i = 0; i < 8; ++i) add_u8(uint8_t(v >> (8 * i)));
  }
  /// Feeds the two's-complement bits, as add_u32.
  constexpr void add_i32(int32_t v) { add_u32(uint32_t(v)); }
  /// Feeds the IEEE-754 bit pattern; +0 and -0 differ, as they may change results.
  void add_double(double v) { add_u64(std::bit_cast<uint64_t>(v)); }
  /// Feeds the length (as add_u64), then the bytes: "ab" + "c" and "a" + "bc" hash differently.
  void add_string(std::string_view s) {
    add_u64(s.size());
    for (char c : s) add_u8(uint8_t(c));
  }
  /// The hash of everything fed so far (the FNV offset basis when nothing was).
  constexpr uint64_t value() const { return state_; }

 private:
  uint64_t state_ = 0xcbf29ce484222325ull;
};

}  // namespace foothold
