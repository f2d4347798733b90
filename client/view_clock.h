#pragma once
// The moment at which a client draws the other characters (#37): a clock in fractional server
// ticks that runs with real time, a little behind the newest snapshot, so that the snapshots around
// it have nearly always arrived (interpolation, not guessing).
//
// How far behind adapts to the network as measured: every snapshot's arrival says how late it came
// against the earliest arrival recently seen for its tick (the fastest path is the clock's anchor;
// lateness above it is jitter). The delay is one snapshot interval (the gap the interpolation
// spans), plus the 95th percentile of that lateness over the last 128 snapshots, plus one more
// interval for each snapshot that loss makes it worth waiting for (as many as it takes for the
// chance of missing them all to fall under 1%), plus a quarter tick of margin.
//
// The clock never jumps to follow the delay: it runs up to 10% fast or slow until it is where the
// delay wants it (a tick of error closes in about half a second), so what is drawn moves
// continuously. Only an error over kJumpTicks (the start, a long outage) is closed at once.
//
// Drawing decides nothing (the server never sees it): its arithmetic may use libm.

#include <array>
#include <cstdint>

#include "proto/clock.h"

namespace foothold::client {

class ViewClock {
 public:
  static constexpr std::size_t kWindow = 128;  ///< arrivals the jitter and the anchor are measured over
  static constexpr double kMaxRateChange = 0.1;
  static constexpr double kJumpTicks = 8;

  /// A new session: ticks last `period`, snapshots come every `interval` ticks.
  void reset(proto::Nanos period, uint32_t interval);
  /// Snapshot `tick` (newer than every earlier one) arrived at `now`; `loss` is the fraction of
  /// snapshots missed lately (ClientSession::Stats::loss).
  void on_snapshot(uint32_t tick, proto::Nanos now, double loss);
  /// Steers the clock toward where the delay wants it, as of `now` (call it every update; times in order).
  void advance(proto::Nanos now);

  /// The view tick at `now`: continuous between advance() calls (0 before the first snapshot).
  double at(proto::Nanos now) const;
  /// The delay the clock is steered to, in ticks behind the newest tick the fastest path brings.
  double delay_ticks() const { return delay_; }
  /// The jitter part of it (the 95th percentile of lateness), in ticks.
  double jitter_ticks() const { return jitter_; }
  /// Times the clock had to jump (the first snapshot counts).
  uint64_t jumps() const { return jumps_; }
  bool started() const { return started_; }

 private:
  // The view tick the delay wants at `now`.
  double target(proto::Nanos now) const;

  proto::Nanos period_ = 1;
  uint32_t interval_ = 1;
  // Arrival offsets (arrival - tick * period), a ring of the newest kWindow.
  std::array<proto::Nanos, kWindow> offsets_{};
  std::size_t count_ = 0, next_ = 0;
  proto::Nanos anchor_ = 0;  // the smallest offset in the ring
  double delay_ = 0, jitter_ = 0;
  bool started_ = false;
  // The clock: at v0_ at t0_, running at rate_ ticks per period.
  double v0_ = 0, rate_ = 1;
  proto::Nanos t0_ = 0;
  uint64_t jumps_ = 0;
};

}  // namespace foothold::client
