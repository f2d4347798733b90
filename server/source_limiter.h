#pragma once
// Limits on handshake work that keep no per-sender state: fixed tables of token buckets indexed by
// a keyed hash (SipHash, random key per process, so an attacker cannot aim at a victim's bucket).
// Senders that hash alike share a bucket.
//
// SourceLimiter: how many handshake datagrams one source address, and one network prefix (/24 for
// IPv4, /64 for IPv6), may make the server look at per second; checked before anything is opened.
// The server also keeps one HashedBuckets per connect token, so a token sniffed and replayed from
// any number of spoofed addresses earns no more answers than its owner would ask for.

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "proto/endpoint.h"
#include "server/token_bucket.h"

namespace foothold::server {

/// A table of token buckets indexed by a keyed hash of a short byte string (at most 32 bytes).
class HashedBuckets {
 public:
  /// `slots` buckets (at least 1) of `rate` tokens per second holding at most `burst`, all full at
  /// `now`. Draws a random hash key. Throws std::runtime_error when libsodium cannot initialise.
  HashedBuckets(double rate, double burst, std::size_t slots, proto::Nanos now);
  /// The bucket `bytes` hash to (`kind` keeps different uses of equal bytes apart). Only the first 32
  /// bytes count. The reference is valid while this table lives.
  TokenBucket& bucket(std::span<const uint8_t> bytes, uint8_t kind);
  /// Takes one token from the bucket of `bytes`.
  bool take(std::span<const uint8_t> bytes, uint8_t kind, proto::Nanos now) { return bucket(bytes, kind).take(now); }

 private:
  std::array<uint8_t, 16> hash_key_{};
  std::vector<TokenBucket> buckets_;
};

/// The per-source handshake budgets.
struct SourceLimits {
  double address_rate = 10;  ///< handshake datagrams per second from one address (burst: twice that)
  double prefix_rate = 50;   ///< from one /24 (IPv4) or /64 (IPv6) prefix (burst: twice that)
  /// Buckets per table (memory: 32 bytes each, 4 MB for both tables). Enough that a spoofed flood
  /// spread over the whole address space at 400,000 datagrams a second leaves each bucket under its
  /// rate, so genuine senders, who hash to a bucket of their own, still pass (source_limiter_test).
  std::size_t slots = 65536;
};

/// The per-address and per-prefix handshake budgets (see the top of this file). An IPv4 address
/// mapped into IPv6 (a dual-stack socket's view) is judged as IPv4. Not thread-safe.
class SourceLimiter {
 public:
  /// Both tables start full at `now`.
  SourceLimiter(const SourceLimits& limits, proto::Nanos now);

  /// Takes one datagram's worth from the source's address and prefix buckets; false when either is
  /// empty (then neither is charged).
  bool take(const proto::Endpoint& from, proto::Nanos now);

 private:
  HashedBuckets addresses_;
  HashedBuckets prefixes_;
};

}  // namespace foothold::server
