#include "proto/bits.h"

namespace foothold::proto {

uint32_t BitReader::get(int count) {
  if (count <= 0) return 0;
  if (bits_ + std::size_t(count) > in_.size() * 8) {
    ok_ = false;
    bits_ = in_.size() * 8;
    return 0;
  }
  // Gather the bytes the field spans (at most 5), then shift and mask.
  const std::size_t first = bits_ / 8, end = (bits_ + std::size_t(count) + 7) / 8;
  uint64_t bits = 0;
  for (std::size_t b = end; b-- > first;) bits = (bits << 8) | in_[b];
  bits >>= (bits_ % 8);
  bits_ += std::size_t(count);
  return uint32_t(count >= 32 ? bits : bits & ((uint64_t(1) << count) - 1));
}

uint32_t BitReader::get_var(int group) {
  uint64_t v = 0;
  for (int shift = 0; ok_; shift += group) {
    if (shift >= 32) {  // a number longer than 32 bits: not one a writer makes
      ok_ = false;
      return 0;
    }
    const uint64_t part = get(group);
    v |= part << shift;
    if (v > 0xffffffffull) {
      ok_ = false;
      return 0;
    }
    if (!get_bool()) break;
  }
  return ok_ ? uint32_t(v) : 0;
}

int32_t BitReader::get_delta() {
  if (!get_bool()) return 0;
  int width = 6;
  if (get_bool()) {
    width = 10;
    if (get_bool()) width = get_bool() ? 32 : 16;
  }
  return unzigzag(get(width));
}

bool BitReader::finished_cleanly() const {
  if (!ok_) return false;
  const std::size_t total = in_.size() * 8;
  if (total - bits_ >= 8) return false;  // a whole unread byte: not what a writer makes
  for (std::size_t b = bits_; b < total; ++b)
    if ((in_[b / 8] >> (b % 8)) & 1u) return false;
  return true;
}

}  // namespace foothold::proto
