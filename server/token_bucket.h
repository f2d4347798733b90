#pragma once
// A token bucket: at most `rate` events per second on average, bursts up to `burst`.

#include <algorithm>

#include "proto/endpoint.h"

namespace foothold::server {

/// A token bucket over the caller's clock (proto::Nanos, real or virtual): it refills at `rate` tokens
/// per second up to `burst` tokens. Not thread-safe.
class TokenBucket {
 public:
  /// An empty bucket that never refills: take() always fails.
  TokenBucket() = default;
  /// `rate` tokens per second, at most `burst` held; starts full at time `now`.
  TokenBucket(double rate, double burst, proto::Nanos now) : rate_(rate), burst_(burst), tokens_(burst), last_(now) {}

  /// Takes one token if there is one, after refilling for the time since the last call (a `now`
  /// earlier than a previous one refills nothing).
  bool take(proto::Nanos now) {
    if (now > last_) {
      tokens_ = std::min(burst_, tokens_ + double(now - last_) * rate_ / double(proto::kSecond));
      last_ = now;
    }
    if (tokens_ < 1) return false;
    tokens_ -= 1;
    return true;
  }

 private:
  double rate_ = 0;
  double burst_ = 0;
  double tokens_ = 0;
  proto::Nanos last_ = 0;
};

}  // namespace foothold::server
