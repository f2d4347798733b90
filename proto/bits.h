#pragma once
// Bit-level writing and reading for the compact messages (compact.h): fixed-width fields, unsigned
// numbers in groups of bits with a continuation bit, and the prefix code of position deltas. Bits
// go into bytes least significant first. The reader never reads past its bytes: a read beyond them
// yields zeros and marks the reader failed, which the decoders check once at the end.

#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>

namespace foothold::proto {

/// Zigzag: 0, -1, 1, -2, ... as 0, 1, 2, 3, ... (small magnitudes of either sign stay small).
constexpr uint32_t zigzag(int32_t v) { return (uint32_t(v) << 1) ^ uint32_t(v >> 31); }
/// The inverse of zigzag().
constexpr int32_t unzigzag(uint32_t u) { return int32_t((u >> 1) ^ (0u - (u & 1))); }

/// Bits a number takes in put_var() with groups of `group` bits.
constexpr int var_bits(uint32_t v, int group) {
  int bits = 0;
  do {
    bits += group + 1;
    v = group >= 32 ? 0 : v >> group;
  } while (v != 0);
  return bits;
}

/// The prefix code of a signed delta: '0' for 0, else a class prefix ('10', '110', '1110', '1111',
/// least significant bit first) and the zigzag value in 6, 10, 16 or 32 bits.
struct DeltaCode {
  uint8_t prefix;       ///< the class's prefix bits, first bit lowest
  uint8_t prefix_bits;  ///< 1 to 4
  uint8_t value_bits;   ///< 0, 6, 10, 16 or 32
};
/// The code of a delta whose zigzag value is `width` bits wide (std::bit_width: 0 to 32). A table, not
/// a chain of comparisons: a delta's size is as varied as the characters' motion, which no branch
/// predictor learns.
inline constexpr auto kDeltaCodes = [] {
  struct Table {
    DeltaCode codes[33];
  } t{};
  for (int width = 0; width <= 32; ++width) {
    t.codes[width] = width == 0    ? DeltaCode{0b0, 1, 0}
                     : width <= 6  ? DeltaCode{0b01, 2, 6}
                     : width <= 10 ? DeltaCode{0b011, 3, 10}
                     : width <= 16 ? DeltaCode{0b0111, 4, 16}
                                   : DeltaCode{0b1111, 4, 32};
  }
  return t;
}();
constexpr const DeltaCode& delta_code(uint32_t zigzagged) { return kDeltaCodes.codes[std::bit_width(zigzagged)]; }

/// Bits a signed delta takes in put_delta().
constexpr int delta_bits(int32_t v) {
  const DeltaCode& c = delta_code(zigzag(v));
  return c.prefix_bits + c.value_bits;
}

/// Writes bits into a caller's buffer; overflowing it marks the writer failed (nothing is written
/// past the buffer). Bits gather in a 64-bit word and go to the buffer 32 at a time, so a field costs
/// a shift and an OR, not a read-modify-write of the bytes it spans; finish() writes the last ones.
class BitWriter {
 public:
  explicit BitWriter(std::span<uint8_t> out) : out_(out) {}
  /// The low `count` bits of `v` (count in [0, 32]).
  void put(uint32_t v, int count) {
    if (count <= 0) return;
    if (bits_ + std::size_t(count) > out_.size() * 8) {
      ok_ = false;
      return;
    }
    pending_ |= uint64_t(count >= 32 ? v : v & ((1u << count) - 1)) << pending_bits_;
    pending_bits_ += count;
    bits_ += std::size_t(count);
    if (pending_bits_ >= 32) {
      // Those 32 bits lie within the buffer: bits_ (past them) was checked against its size.
      for (int k = 0; k < 4; ++k) out_[flushed_ + std::size_t(k)] = uint8_t(pending_ >> (8 * k));
      flushed_ += 4;
      pending_ >>= 32;
      pending_bits_ -= 32;
    }
  }
  void put_bool(bool b) { put(b ? 1 : 0, 1); }
  /// `v` in groups of `group` bits, low group first, each followed by a continuation bit.
  void put_var(uint32_t v, int group) {
    do {
      put(group >= 32 ? v : v & ((1u << group) - 1), group);
      v = group >= 32 ? 0 : v >> group;
      put_bool(v != 0);
    } while (v != 0);
  }
  /// A signed delta in the prefix code of delta_bits(). Inline, with put(): a snapshot writes three
  /// for each character it updates, and a call each was a tenth of a server's tick.
  void put_delta(int32_t v) {
    const uint32_t z = zigzag(v);
    const DeltaCode& code = delta_code(z);
    if (code.value_bits < 32) {  // the prefix and the value in one write where they fit in 32 bits
      put(code.prefix | (z << code.prefix_bits), code.prefix_bits + code.value_bits);
    } else {
      put(code.prefix, code.prefix_bits);
      put(z, 32);
    }
  }
  /// The low `count` bits of `v` (count in [0, 64]), lowest first: as put() of the low half, then
  /// of the rest.
  void put_wide(uint64_t v, int count) {
    put(uint32_t(v), count < 32 ? count : 32);
    if (count > 32) put(uint32_t(v >> 32), count - 32);
  }
  /// Bits written so far.
  std::size_t bits() const { return bits_; }
  /// Whole bytes used (the last one padded with zero bits).
  std::size_t bytes() const { return (bits_ + 7) / 8; }
  /// False once a write did not fit.
  bool ok() const { return ok_; }
  /// Writes the bits still gathered and returns the message: the first bytes() bytes of the buffer,
  /// or nothing if a write did not fit. Writing may go on after it (the next flush rewrites the
  /// last bytes whole), and it may be called again.
  std::span<uint8_t> finish() {
    const std::size_t end = bytes();
    uint64_t rest = pending_;
    for (std::size_t b = flushed_; b < end; ++b, rest >>= 8) out_[b] = uint8_t(rest);
    return ok_ ? out_.first(end) : std::span<uint8_t>();
  }

 private:
  std::span<uint8_t> out_;
  std::size_t bits_ = 0;     // all bits put
  std::size_t flushed_ = 0;  // bytes already in out_
  uint64_t pending_ = 0;     // the bits after those, lowest first
  int pending_bits_ = 0;     // bits_ - 8 * flushed_, kept so put() need not derive it; below 32 between puts
  bool ok_ = true;
};

/// Reads what a BitWriter wrote. Reading past the end yields zeros and clears ok().
class BitReader {
 public:
  explicit BitReader(std::span<const uint8_t> in) : in_(in) {}
  /// `count` bits (count in [0, 32]).
  uint32_t get(int count);
  bool get_bool() { return get(1) != 0; }
  /// A put_var() number; more than 32 bits of value fails.
  uint32_t get_var(int group);
  /// A put_delta() number.
  int32_t get_delta();
  /// False once a read went past the end, or a number did not fit.
  bool ok() const { return ok_; }
  /// True when everything read is valid and what is left is the last byte's zero padding.
  bool finished_cleanly() const;

 private:
  std::span<const uint8_t> in_;
  std::size_t bits_ = 0;
  bool ok_ = true;
};

}  // namespace foothold::proto
