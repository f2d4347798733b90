#include "server/source_limiter.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include <sodium.h>

namespace foothold::server {

HashedBuckets::HashedBuckets(double rate, double burst, std::size_t slots, proto::Nanos now) {
  if (sodium_init() < 0) throw std::runtime_error("libsodium failed to initialise");
  static_assert(sizeof hash_key_ == crypto_shorthash_KEYBYTES);
  randombytes_buf(hash_key_.data(), hash_key_.size());
  buckets_.assign(std::max<std::size_t>(1, slots), TokenBucket(rate, burst, now));
}

TokenBucket& HashedBuckets::bucket(std::span<const uint8_t> bytes, uint8_t kind) {
  uint8_t in[33] = {kind};
  const std::size_t n = std::min<std::size_t>(bytes.size(), 32);
  std::memcpy(in + 1, bytes.data(), n);
  uint64_t h = 0;
  crypto_shorthash(reinterpret_cast<unsigned char*>(&h), in, n + 1, hash_key_.data());
  return buckets_[std::size_t(h % buckets_.size())];
}

SourceLimiter::SourceLimiter(const SourceLimits& limits, proto::Nanos now)
    : addresses_(limits.address_rate, 2 * limits.address_rate, limits.slots, now),
      prefixes_(limits.prefix_rate, 2 * limits.prefix_rate, limits.slots, now) {}

bool SourceLimiter::take(const proto::Endpoint& from, proto::Nanos now) {
  auto a = from.address();
  // A dual-stack socket reports IPv4 peers as ::ffff:a.b.c.d: judge them by their IPv4 /24, or
  // every IPv4 sender would share one /64.
  if (a.is_v6() && a.to_v6().is_v4_mapped()) a = asio::ip::make_address_v4(asio::ip::v4_mapped, a.to_v6());
  std::array<uint8_t, 16> bytes{};
  std::size_t size = 0, prefix = 0;
  if (a.is_v4()) {
    const auto b = a.to_v4().to_bytes();
    std::copy(b.begin(), b.end(), bytes.begin());
    size = 4;
    prefix = 3;
  } else {
    const auto b = a.to_v6().to_bytes();
    std::copy(b.begin(), b.end(), bytes.begin());
    size = 16;
    prefix = 8;
  }
  TokenBucket& address_bucket = addresses_.bucket({bytes.data(), size}, uint8_t(size));
  TokenBucket& prefix_bucket = prefixes_.bucket({bytes.data(), prefix}, uint8_t(100 + prefix));
  // Check both before charging either, so that a refused datagram costs its source nothing more.
  TokenBucket address = address_bucket, prefix_copy = prefix_bucket;
  if (!address.take(now) || !prefix_copy.take(now)) return false;
  address_bucket = address;
  prefix_bucket = prefix_copy;
  return true;
}

}  // namespace foothold::server
