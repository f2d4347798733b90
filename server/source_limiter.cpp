#include "server/source_limiter.h"

#include <cstring>
#include <stdexcept>

#include <sodium.h>

namespace foothold::server {

SourceLimiter::SourceLimiter(const SourceLimits& limits, net::Nanos now) {
  if (sodium_init() < 0) throw std::runtime_error("libsodium failed to initialise");
  static_assert(sizeof hash_key_ == crypto_shorthash_KEYBYTES);
  randombytes_buf(hash_key_.data(), hash_key_.size());
  const std::size_t n = std::max<std::size_t>(1, limits.slots);
  addresses_.assign(n, TokenBucket(limits.address_rate, 2 * limits.address_rate, now));
  prefixes_.assign(n, TokenBucket(limits.prefix_rate, 2 * limits.prefix_rate, now));
}

std::size_t SourceLimiter::slot(const uint8_t* bytes, std::size_t size, uint8_t kind) const {
  // SipHash keyed per process: the kind byte keeps an address and a prefix of equal bytes apart.
  uint8_t in[17] = {kind};
  std::memcpy(in + 1, bytes, size);
  uint64_t h = 0;
  crypto_shorthash(reinterpret_cast<unsigned char*>(&h), in, size + 1, hash_key_.data());
  return std::size_t(h % addresses_.size());
}

bool SourceLimiter::take(const net::Endpoint& from, net::Nanos now) {
  const auto a = from.address();
  std::size_t addr_slot = 0, prefix_slot = 0;
  if (a.is_v4()) {
    const auto b = a.to_v4().to_bytes();
    addr_slot = slot(b.data(), 4, 4);
    prefix_slot = slot(b.data(), 3, 24);
  } else {
    const auto b = a.to_v6().to_bytes();
    addr_slot = slot(b.data(), 16, 6);
    prefix_slot = slot(b.data(), 8, 64);
  }
  // Check both before charging either, so that a refused datagram costs its source nothing more.
  TokenBucket address = addresses_[addr_slot], prefix = prefixes_[prefix_slot];
  if (!address.take(now) || !prefix.take(now)) return false;
  addresses_[addr_slot] = address;
  prefixes_[prefix_slot] = prefix;
  return true;
}

}  // namespace foothold::server
