#include "client/clock_steering.h"

#include <algorithm>

namespace foothold::client {

void ClockSteering::report(int16_t lead) {
  leads_[size_t(next_)] = lead;
  next_ = (next_ + 1) % kWindow;
  count_ = std::min(count_ + 1, kWindow);
  int16_t slowest = leads_[0];
  for (int i = 0; i < count_; ++i) slowest = std::min(slowest, leads_[size_t(i)]);
  // Proportional: 3% per tick of error, so a few ticks of error are mended within a second or two
  // without a step a player would see.
  const double error = double(slowest) - target_lead_;
  scale_ = std::clamp(1.0 + 0.03 * error, 0.85, 1.15);
}

}  // namespace foothold::client
