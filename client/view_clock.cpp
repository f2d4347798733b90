#include "client/view_clock.h"

#include <algorithm>
#include <cmath>

namespace foothold::client {

void ViewClock::reset(proto::Nanos period, uint32_t interval) {
  *this = ViewClock{};
  period_ = std::max<proto::Nanos>(1, period);
  interval_ = std::max<uint32_t>(1, interval);
  delay_ = 2.0 * interval_;
}

void ViewClock::on_snapshot(uint32_t tick, proto::Nanos now, double loss) {
  offsets_[next_] = now - proto::Nanos(tick) * period_;
  next_ = (next_ + 1) % kWindow;
  count_ = std::min(count_ + 1, kWindow);
  anchor_ = *std::min_element(offsets_.begin(), offsets_.begin() + std::ptrdiff_t(count_));
  // Lateness over the anchor, in ticks; its 95th percentile (a copy: the ring keeps its order).
  std::array<double, kWindow> late{};
  for (std::size_t i = 0; i < count_; ++i) late[i] = double(offsets_[i] - anchor_) / double(period_);
  const std::size_t k = std::min(count_ - 1, std::size_t(double(count_) * 0.95));
  std::nth_element(late.begin(), late.begin() + std::ptrdiff_t(k), late.begin() + std::ptrdiff_t(count_));
  jitter_ = late[k];
  // Snapshots worth waiting for beyond the next: until missing all of them is under 1% likely.
  int waits = 0;
  for (double miss = std::clamp(loss, 0.0, 0.9); miss >= 0.01 && waits < 4; miss *= std::clamp(loss, 0.0, 0.9)) ++waits;
  delay_ = double(interval_) * (1 + waits) + jitter_ + 0.25;
  if (!started_) {
    started_ = true;
    v0_ = target(now);
    t0_ = now;
    rate_ = 1;
    ++jumps_;
  }
}

double ViewClock::target(proto::Nanos now) const { return double(now - anchor_) / double(period_) - delay_; }

double ViewClock::at(proto::Nanos now) const {
  if (!started_) return 0;
  return v0_ + double(now - t0_) / double(period_) * rate_;
}

void ViewClock::advance(proto::Nanos now) {
  if (!started_ || now < t0_) return;
  const double v = at(now), error = target(now) - v;
  v0_ = v;
  t0_ = now;
  if (std::fabs(error) > kJumpTicks) {
    v0_ = target(now);
    rate_ = 1;
    ++jumps_;
    return;
  }
  // A tick of error closes in about half a second, never faster than 10%.
  const double half_second = 0.5 * double(proto::kSecond) / double(period_);
  rate_ = 1 + std::clamp(error / half_second, -kMaxRateChange, kMaxRateChange);
}

}  // namespace foothold::client
