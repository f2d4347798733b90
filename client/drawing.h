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
// - Corrections smoothed (client/error_smoothing.h): a correction changes the prediction at once
//   (it stays exact), but what it moves the drawn pose by is kept as an offset that decays
//   exponentially (DrawOptions::smoothing_s) and never faster than DrawOptions::max_release_mps. A
//   correction larger than DrawOptions::snap_m (a teleport, a respawn) snaps instead.
// - Never through a wall: the offset is cut where a ray from the predicted centre along it meets the
//   world, less the capsule's radius, so a character sliding along a wall it was corrected away from
//   is drawn on its side of it. The cut is kept (the error left is what was drawn), so the drawn
//   pose never swings back out once the wall is passed.
// - Movers carry it with no lag: the offset is added to where the prediction has the character now,
//   and the prediction rides the mover.
//
// Drawing decides nothing (the server never sees it): its arithmetic may use libm.

#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "client/error_smoothing.h"
#include "proto/clock.h"
#include "shared/predictor.h"
#include "shared/ray_query.h"
#include "shared/settings.h"
#include "shared/world.h"

namespace foothold::client {

// What the drawing did to a character in one frame besides following its snapshots (the others)
// or its prediction (its own): the bits of DrawnPose::causes and DrawnRemote::causes, for explaining
// a pop (#69: foothold-bot's pop_max_at and remote_pop_max_at). Each has a snake_case token
// (draw_cause_text), the first word of its comment.

/// correction: new word moved the pose drawn last frame (a snapshot's correction of a guess, a late sample
/// slotted in; the own prediction corrected by a repeated input), taken in smoothed
inline constexpr uint32_t kCauseCorrection = 1u << 0;
/// snap: such a correction was larger than DrawOptions::snap_m and was drawn at once
inline constexpr uint32_t kCauseSnap = 1u << 1;
/// neighbour_restep: the own prediction corrected by another character (re-stepped with it)
inline constexpr uint32_t kCauseNeighbourRestep = 1u << 2;
/// re_added: not drawn the frame before (new, or back)
inline constexpr uint32_t kCauseReAdded = 1u << 3;
/// kept_unsaid: the newest snapshot left it out: held where an older one had it
inline constexpr uint32_t kCauseKeptUnsaid = 1u << 4;
/// mover_carry: carried by its mover (the others: past their newest snapshot; the own: standing on one)
inline constexpr uint32_t kCauseMoverCarry = 1u << 5;
/// extrapolating: carried on by its motion past its newest snapshot
inline constexpr uint32_t kCauseExtrapolating = 1u << 6;
/// extrapolation_end: carried on the frame before, not this one (held, or the late snapshot came)
inline constexpr uint32_t kCauseExtrapolationEnd = 1u << 7;
/// view_delay: the view clock (the own: the tick clock) jumped, or went back, since the frame before
inline constexpr uint32_t kCauseViewDelay = 1u << 8;
/// The tokens of the causes in `bits`, joined by '+', in the order above; "interpolated" for none.
std::string draw_cause_text(uint32_t bits);

/// How the client draws (ClientSession::draw_local, draw_remotes).
struct DrawOptions {
  bool extrapolate = false;  ///< the local character: the newest tick carried on, not interpolated a tick back
  double smoothing_s = 0.1;  ///< a correction is taken in with this time constant, seconds (0: at once)
  /// A correction larger than this, metres, snaps (a teleport, a respawn); so does the error left
  /// when corrections pile up past it. 2 m: a push in a crowd, or a landing mispredicted, is far
  /// less (Unreal's character movement smooths up to 2.56 m by default).
  double snap_m = 2.0;
  /// The smoothing releases at most this speed of error, metres per second (0: no bound): a large
  /// correction is taken in at an amble rather than in one lurch (1.5 m/s: 1 cm a frame at 144 Hz, so
  /// a frame half again as late as it should be still pops less than 2 cm; 0.3 m in a fifth of a second).
  double max_release_mps = 1.5;
  /// The others: how long past their newest snapshot they are carried on by their motion when the
  /// next is late, seconds (0: held at once); then held until it comes.
  double remote_extrapolate_s = 0.1;
  /// The smoothing of the local character, for the others too (where extrapolation guessed wrong).
  SmoothingOptions smoothing() const { return {smoothing_s, snap_m, max_release_mps}; }
};

/// A character as drawn.
struct DrawnPose {
  Vec3 position;        ///< capsule centre, metres
  Vec3 velocity;        ///< metres per second, as predicted around the moment drawn
  double tick = 0;      ///< the fractional tick drawn
  bool crouched = false;
  uint16_t platform = 0;  ///< the mover it stands on (index + 1; 0: none)
  Vec3 error;           ///< the correction still being taken in (drawn minus predicted), metres
  uint32_t causes = 0;  ///< what the drawing did since the frame before (DrawCause bits)
};

class LocalDrawing {
 public:
  LocalDrawing(const World& world, const DerivedSettings& settings) : world_(world), settings_(settings) {}
  void set_options(const DrawOptions& o) { options_ = o; }
  const DrawOptions& options() const { return options_; }

  /// Tick `tick` was predicted; its moment on the tick clock is `at`, the next tick's `next`.
  void on_tick(uint32_t tick, proto::Nanos at, proto::Nanos next);
  /// The next tick's moment moved (the clock steering, or catching up: `jumped`, told with the next
  /// frame as kCauseViewDelay).
  void on_next(proto::Nanos next, bool jumped = false) {
    next_ = next;
    if (jumped) causes_ |= kCauseViewDelay;
  }
  /// Forgets everything (a new session).
  void reset();

  /// The pose the prediction alone gives at `now` (no smoothing): for the correction bookkeeping and
  /// for measuring pops. Nothing before the first tick.
  std::optional<DrawnPose> predicted(const Predictor& p, proto::Nanos now) const;
  /// The moment the last frame was drawn at (0 before any): a correction is measured there
  /// (predicted() before and after it), so what that frame showed stays where it was.
  proto::Nanos drawn_at() const { return error_.started() ? error_.at() : 0; }
  /// A correction moved the predicted pose at drawn_at() by `moved` (after minus before): taken in
  /// over the smoothing time, or snapped when it, or the error it leaves, is larger than snap_m.
  /// `cause`: what corrected it (kCauseCorrection, or kCauseNeighbourRestep for another character),
  /// told with the next frame (DrawnPose::causes).
  void corrected(const Vec3& moved, uint32_t cause = kCauseCorrection);
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
  ErrorSmoothing error_;
  uint64_t snaps_ = 0, smoothed_ = 0;
  uint32_t causes_ = 0;  // DrawCause bits since the last frame
  mutable QueryScratch scratch_;
};

}  // namespace foothold::client
