#pragma once
// Per-source limits on handshake work, in front of the server's global limits: how many handshake
// datagrams one source address, and one network prefix (/24 for IPv4, /64 for IPv6), may make the
// server look at per second. No per-address state is kept: each limit is a fixed table of token
// buckets indexed by a keyed hash of the address or prefix. Sources that hash alike share a bucket;
// the hash key is random per process, so an attacker cannot aim at a victim's bucket.

#include <array>
#include <cstdint>
#include <vector>

#include "server/net_types.h"
#include "server/token_bucket.h"

namespace foothold::server {

struct SourceLimits {
  double address_rate = 10;  ///< handshake datagrams per second from one address (burst: twice that)
  double prefix_rate = 50;   ///< from one /24 (IPv4) or /64 (IPv6) prefix (burst: twice that)
  std::size_t slots = 4096;  ///< buckets per table (memory: about 32 bytes each)
};

class SourceLimiter {
 public:
  SourceLimiter(const SourceLimits& limits, net::Nanos now);

  /// Takes one datagram's worth from the source's address and prefix buckets; false when either is
  /// empty (then neither is charged).
  bool take(const net::Endpoint& from, net::Nanos now);

 private:
  std::size_t slot(const uint8_t* bytes, std::size_t size, uint8_t kind) const;

  std::array<uint8_t, 16> hash_key_{};
  std::vector<TokenBucket> addresses_;
  std::vector<TokenBucket> prefixes_;
};

}  // namespace foothold::server
