#include "replay/crc32c.h"

#include <array>

namespace foothold::replay {

namespace {
constexpr std::array<uint32_t, 256> make_table() {
  std::array<uint32_t, 256> t{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ 0x82f63b78u : c >> 1;
    t[i] = c;
  }
  return t;
}
constexpr auto kTable = make_table();
}  // namespace

uint32_t crc32c(const uint8_t* data, std::size_t size, uint32_t crc) {
  crc = ~crc;
  for (std::size_t i = 0; i < size; ++i) crc = kTable[(crc ^ data[i]) & 0xff] ^ (crc >> 8);
  return ~crc;
}

}  // namespace foothold::replay
