#pragma once
// Steering a client's tick clock (as Overwatch does): the server reports, in every snapshot, how many
// ticks early the client's input for that tick arrived. The client runs its ticks slightly faster
// while its slowest recent input was less early than it wants, and slightly slower while it was
// more, so that inputs arrive just ahead of the server's need whatever the round trip and jitter.

#include <array>
#include <cstdint>

namespace foothold::client {

/// The tick-rate scale from the server's reports of input lead. Plain data; no clock of its own.
class ClockSteering {
 public:
  /// Ticks by which the slowest recent input should still be early at the server.
  static constexpr int kDefaultTargetLead = 2;
  /// Reports remembered: the slowest of these is steered on (half a second at 60 Hz).
  static constexpr int kWindow = 30;

  explicit ClockSteering(int target_lead = kDefaultTargetLead) : target_lead_(target_lead) {}

  /// One snapshot's report: our input for its tick arrived `lead` ticks early (negative: late).
  void report(int16_t lead);
  /// The factor to multiply the tick period by: below 1 runs faster, above 1 slower; in [0.85, 1.15].
  double period_scale() const { return scale_; }

 private:
  int target_lead_;
  std::array<int16_t, kWindow> leads_{};
  int count_ = 0;
  int next_ = 0;
  double scale_ = 1.0;
};

}  // namespace foothold::client
