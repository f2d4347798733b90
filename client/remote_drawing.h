#pragma once
// What a game draws of the other characters at any frame time (#37). They are drawn at the view
// clock's moment (client/view_clock.h), between the snapshots around it. When the snapshot after
// that moment is late (jitter, a loss the delay did not cover), they are not held, to stop and then
// jump: each is carried on past its newest snapshot by the motion its last two snapshots show (one
// standing on a mover by the mover, as every client can pose it at any tick), for at most
// DrawOptions::remote_extrapolate_s (100 ms), and held after that. Never through a wall (cut where a
// ray along the motion meets the world, less the radius). One that is airborne (its snapshot says so,
// or it goes down more steeply than walkable ground) falls on too, under the settings' gravity from
// the velocity its newest samples show, and stops where a ray down (or up) from its centre meets the
// world, less its half height and rest gap: no hover at a ledge, no sinking into the floor below.
//
// When the late snapshot comes and says the guess was wrong, the drawn pose does not jump back: what
// the new word moves the pose drawn last frame by is taken in as the own character's corrections are
// (client/error_smoothing.h). One that only interpolates never guesses, so is never corrected.
//
// Only one whose newest snapshot is the newest received is carried on: one that a newer snapshot
// left out did not move (the server sends what changed), and is held.
//
// Drawing decides nothing (the server never sees it), but is the same on every machine: no libm
// beyond sqrt and floor, which are exact.

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "client/drawing.h"
#include "shared/character_contacts.h"
#include "shared/interpolation.h"
#include "shared/mover_clock.h"

namespace foothold::client {

/// Another character as drawn.
struct DrawnRemote {
  uint32_t id = 0;
  Vec3 position;        ///< capsule centre, metres
  Vec3 velocity;        ///< metres per second, as drawn (zero where held)
  GroundKind ground = GroundKind::kNone;
  bool crouched = false;
  uint16_t platform = 0;  ///< the mover it stands on (index + 1; 0: none), as its newest snapshot says
  bool extrapolated = false;  ///< carried on past its newest snapshot (or held, once that ran out)
  Vec3 error;           ///< a wrong guess still being taken in (drawn minus snapshots), metres
  uint32_t causes = 0;  ///< what the drawing did since the frame before (DrawCause bits)
};

/// What one frame draws from.
struct RemoteFrame {
  const RemoteInterpolator& samples;
  std::span<const OtherCharacter> others;  ///< the newest snapshot's others, sorted by id
  uint32_t newest_snapshot = 0;            ///< the newest snapshot's tick
  uint32_t max_gap = 1;                    ///< snapshots further apart than this say nothing of motion
  double view = 0;                         ///< the view clock's tick now
  proto::Nanos now = 0;
  uint64_t view_jumps = 0;                 ///< the view clock's jumps so far (ViewClock::jumps)
};

class RemoteDrawing {
 public:
  RemoteDrawing(const World& world, const DerivedSettings& settings) : world_(world), settings_(settings) {}
  void set_options(const DrawOptions& o) { options_ = o; }
  /// The movers' clocks a character riding one is carried by (null: as just reset). Kept by reference.
  void set_clocks(const MoverClocks* clocks) { clocks_ = clocks; }
  void reset() {
    states_.clear();
    view_jumps_ = 0;
  }

  /// Draws every other character of the frame, in id order: the first out.size() into `out`;
  /// returns how many there are. Frames in time order; allocates only when more characters are
  /// seen than ever before.
  std::size_t draw(const RemoteFrame& f, std::span<DrawnRemote> out);
  /// One of them at `view` from what has been received, not smoothed (for measuring); nothing for
  /// an unknown id.
  std::optional<DrawnRemote> raw(const RemoteFrame& f, const OtherCharacter& o, double view) const;

  /// Guesses taken back smoothly, and snapped, so far.
  uint64_t smoothed() const { return smoothed_; }
  uint64_t snaps() const { return snaps_; }

 private:
  const MoverClocks* clocks_ = nullptr;
  // Where a standing capsule with the same feet has its centre: what a correction is measured on.
  Vec3 feet(const DrawnRemote& d) const;
  struct State {
    uint32_t id = 0;
    double view = 0;  // the moment last drawn
    Vec3 feet;        // the raw pose drawn then, as feet() (a crouch is no correction)
    bool carried = false;  // carried on past its newest snapshot then (extrapolated and moving)
    ErrorSmoothing error;
  };
  // What the drawing does to `d` this frame beyond interpolating (DrawCause bits), less what
  // comparing with the frame before finds (draw() adds those).
  uint32_t causes(const RemoteFrame& f, const OtherCharacter& o, const DrawnRemote& d) const;
  // Whether `d`, carried on past its newest snapshot (tick `newest`) by `step` a tick across the
  // ground, falls (or rises) as well: its snapshot says it is airborne, or it goes down more
  // steeply than walkable ground.
  bool airborne(const RemoteFrame& f, const OtherCharacter& o, uint32_t newest, const DrawnRemote& d,
                const Vec3& step) const;
  // How far `d` rises (down: negative) `ahead` ticks past its newest snapshot (tick `newest`), under
  // gravity from the velocity its newest samples show, stopped by the world; its vertical velocity
  // then (metres per tick) into `velocity`.
  double fall(const RemoteFrame& f, const OtherCharacter& o, uint32_t newest, const DrawnRemote& d, double ahead,
              double& velocity) const;
  const World& world_;
  const DerivedSettings& settings_;
  DrawOptions options_;
  std::vector<State> states_, next_;  // by id
  uint64_t smoothed_ = 0, snaps_ = 0;
  uint64_t view_jumps_ = 0;  // RemoteFrame::view_jumps last frame
  mutable QueryScratch scratch_;
};

}  // namespace foothold::client
