#pragma once
// CRC-32C (Castagnoli), the checksum of every record in a recording.

#include <cstddef>
#include <cstdint>

namespace foothold::replay {

/// CRC-32C of `size` bytes, continuing from `crc` (0 to start): crc32c(b, n, crc32c(a, m)) is the
/// CRC of a followed by b.
uint32_t crc32c(const uint8_t* data, std::size_t size, uint32_t crc = 0);

}  // namespace foothold::replay
