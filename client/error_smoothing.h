#pragma once
// A drawn pose's correction, taken in over time (#37): what a correction moved the pose by is kept
// as an offset (drawn minus true) that decays exponentially and never releases faster than a bound;
// a larger one snaps. Shared by the own character (LocalDrawing) and the others (RemoteDrawing).
//
// Exponential, not linear: the error shrinks by the same fraction every frame, whatever the frame
// rate, so a second correction during the first just adds to what is left; the speed bound keeps a
// large one from lurching in its first frames.

#include <cstdint>

#include "proto/clock.h"
#include "shared/ray_query.h"
#include "shared/settings.h"
#include "shared/world.h"

namespace foothold::client {

struct SmoothingOptions {
  double smoothing_s = 0.1;       ///< time constant, seconds (0: at once)
  double snap_m = 2.0;            ///< a correction, or the error it leaves, larger than this snaps
  double max_release_mps = 1.5;   ///< at most this speed of error released (0: no bound)
};

class ErrorSmoothing {
 public:
  /// The true pose moved by `moved` under what was drawn: the offset takes it up, or snaps. Returns
  /// false when it snapped.
  bool corrected(const Vec3& moved, const SmoothingOptions& o);
  /// Decays the offset from the last call's time to `now` (times in order; the first call only starts the clock).
  void decay(proto::Nanos now, const SmoothingOptions& o);
  /// Cuts the offset where a ray from `centre` (the true pose) along it meets the world, less
  /// `radius`, and keeps the cut (the drawn pose never swings back out once a wall is passed).
  void cut(const World& world, const Vec3& centre, double radius, QueryScratch& scratch);
  void clear() { error_ = {}; }
  const Vec3& error() const { return error_; }
  proto::Nanos at() const { return at_; }
  bool started() const { return started_; }

 private:
  Vec3 error_;
  proto::Nanos at_ = 0;
  bool started_ = false;
};

}  // namespace foothold::client
