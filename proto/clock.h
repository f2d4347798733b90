#pragma once
// Time as both ends of a connection keep it: nanoseconds on one monotonic clock, a real steady clock
// or a test's virtual one. Only durations between two readings of the same clock mean anything.

#include <chrono>
#include <cstdint>

namespace foothold::proto {

/// Monotonic time in nanoseconds since an arbitrary origin.
using Nanos = int64_t;
/// One second, in Nanos.
inline constexpr Nanos kSecond = 1'000'000'000;
/// One millisecond, in Nanos.
inline constexpr Nanos kMillisecond = 1'000'000;

/// The steady clock as Nanos: the server's, the bots' and the client driver's clock.
inline Nanos steady_now() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace foothold::proto
