#pragma once
// What a game draws of its own character at any frame time (#37): the prediction runs in whole
// ticks, a game draws at its own rate; drawing the newest tick as it is judders (at 144 Hz a
// character walking steadily moves 0, 1 or 2 ticks' worth per frame), and a correction drawn as it
// comes pops. LocalDrawing turns the predicted ticks into a pose for any moment:
//
// - Interpolated (the default): the frame is placed on the tick clock and drawn between the two
//   predicted ticks around the moment one tick before it. Smooth at any frame rate, exact at tick
//   times, and one tick behind the newest prediction (16.7 ms at 60 Hz): the price of never guessing.
//   Extrapolated (DrawOptions::extrapolate): the newest tick carried on by its velocity for the time
//   since it ran: no latency, a small pop wherever the motion turns.
// - Corrections smoothed: a correction changes the prediction at once (it stays exact), but what it
//   moves the drawn pose by is kept as an offset that decays exponentially (time constant
//   DrawOptions::smoothing_s), and never faster than DrawOptions::max_release_mps. Exponential, not
//   linear: the error shrinks by the same fraction every frame, whatever the frame rate, so a second
//   correction during the first just adds to what is left; the speed bound keeps a large one from
//   lurching in its first frames. A correction larger than DrawOptions::snap_m (a teleport, a
//   respawn) snaps instead.
// - Never through a wall: the offset is cut where a ray from the predicted centre along it meets the
//   world, less the capsule's radius, so a character sliding along a wall it was corrected away from
//   is drawn on its side of it.
// - Movers carry it with no lag: the offset is added to where the prediction has the character now,
//   and the prediction rides the mover.
//
// Drawing decides nothing (the server never sees it): its arithmetic may use libm.

#include <array>
#include <cstdint>
#include <optional>

#include "proto/clock.h"
#include "shared/predictor.h"
#include "shared/ray_query.h"
#include "shared/settings.h"
#include "shared/world.h"

namespace foothold::client {

/// How the client draws (ClientSession::draw_local).
struct DrawOptions {
  bool extrapolate = false;  ///< the local character: the newest tick carried on, not interpolated a tick back
  double smoothing_s = 0.1;  ///< a correction is taken in with this time constant, seconds (0: at once)
  double snap_m = 1.0;       ///< a correction larger than this, metres, snaps
  /// The smoothing releases at most this speed of error, metres per second (0: no bound): a large
  /// correction is taken in at about walking pace rather than in one lurch (2.5 m/s: 1.7 cm a frame at 144 Hz).
  double max_release_mps = 2.5;
};

/// A character as drawn.
struct DrawnPose {
  Vec3 position;        ///< capsule centre, metres
  Vec3 velocity;        ///< metres per second, as predicted around the moment drawn
  double tick = 0;      ///< the fractional tick drawn
  bool crouched = false;
  uint16_t platform = 0;  ///< the mover it stands on (index + 1; 0: none)
  Vec3 error;           ///< the correction still being taken in (drawn minus predicted), metres
};

class LocalDrawing {
 public:
  LocalDrawing(const World& world, const DerivedSettings& settings) : world_(world), settings_(settings) {}
  void set_options(const DrawOptions& o) { options_ = o; }
  const DrawOptions& options() const { return options_; }

  /// Tick `tick` was predicted; its moment on the tick clock is `at`, the next tick's `next`.
  void on_tick(uint32_t tick, proto::Nanos at, proto::Nanos next);
  /// The next tick's moment moved (the clock steering, or catching up).
  void on_next(proto::Nanos next) { next_ = next; }
  /// Forgets everything (a new session).
  void reset();

  /// The pose the prediction alone gives at `now` (no smoothing): for the correction bookkeeping and
  /// for measuring pops. Nothing before the first tick.
  std::optional<DrawnPose> predicted(const Predictor& p, proto::Nanos now) const;
  /// A correction moved the predicted pose at `now` by `moved` (after minus before): taken in over
  /// the smoothing time, or snapped when it, or the error it leaves, is larger than snap_m.
  void corrected(const Vec3& moved);
  /// The pose to draw at `now` (frames in order: the smoothing decays from the last call's time).
  std::optional<DrawnPose> draw(const Predictor& p, proto::Nanos now);
  /// Corrections snapped, and taken in smoothly, so far.
  uint64_t snaps() const { return snaps_; }
  uint64_t smoothed() const { return smoothed_; }

 private:
  struct TickTime {
    uint32_t tick = 0;
    proto::Nanos at = 0;
  };
  static constexpr std::size_t kTimes = 64;
  const TickTime* time_of(uint32_t tick) const;

  const World& world_;
  const DerivedSettings& settings_;
  DrawOptions options_;
  std::array<TickTime, kTimes> times_{};
  uint32_t latest_ = 0;
  proto::Nanos next_ = 0;
  Vec3 error_;
  proto::Nanos error_at_ = 0;
  bool drawn_ = false;
  uint64_t snaps_ = 0, smoothed_ = 0;
  mutable QueryScratch scratch_;
};

}  // namespace foothold::client
