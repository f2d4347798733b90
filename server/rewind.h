#pragma once
// Lag compensation's memory: where every character was, as clients saw it, over the last
// `rewind_window` of ticks, so that a game can ask what a shot met in the world as its shooter drew
// it (GameControl::ray, overlap). Characters are kept at their published positions (1/256 m, what a
// snapshot carries) and interpolated between snapshot ticks exactly as a client's RemoteInterpolator
// does; their own exact positions are kept too (a shooter's own character, as its client predicted
// it). Movers are placed at a tick by MoverFrame from the world alone, so they need no memory.

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "server/roster.h"
#include "server/snapshot_phase.h"
#include "shared/ray_query.h"
#include "shared/settings.h"

namespace foothold::server {

class RewindHistory {
 public:
  /// Keeps `window_ticks` ticks (0: only the newest) of characters whose clients are sent snapshots
  /// on `schedule`.
  RewindHistory(uint32_t window_ticks, SnapshotSchedule schedule, const DerivedSettings& settings);

  /// After tick `tick`: every character of `roster`, as it is now.
  void record(uint32_t tick, const Roster& roster);

  /// Ticks kept (the window), and the snapshot interval it interpolates by.
  uint32_t window() const { return window_; }
  uint32_t snapshot_interval() const { return schedule_.interval; }
  /// The oldest and newest ticks held (both 0 before the first record()).
  uint32_t oldest() const { return oldest_; }
  uint32_t newest() const { return newest_; }
  /// `view` (a fractional tick) within what is held: [oldest(), min(newest(), `newest_seen`)].
  double clamp(double view, uint32_t newest_seen) const;

  /// Every character's capsule at view time `view` (clamped first), as the client of character
  /// `viewer` drew it, interpolating the snapshots it is sent (every snapshot_interval-th tick, on its
  /// phase): between the two of its snapshot ticks around it; held at the one it has when it was in
  /// only one of them. Ascending id.
  void capsules_at(double view, uint32_t viewer, std::vector<QueryCapsule>& out) const;
  /// Character `id`'s exact capsule centre after tick `tick`, if held.
  std::optional<Vec3> exact_at(uint32_t id, uint32_t tick) const;

  /// Bytes held for one character per tick (a figure).
  static constexpr std::size_t kBytesPerEntry = 2 * sizeof(FixedVec3) + 2 * sizeof(uint32_t);

 private:
  struct Entry {
    uint32_t id = 0;
    FixedVec3 published;  // 1/1024 m, low bits cleared: as a snapshot carries it
    FixedVec3 exact;
    bool crouched = false;
  };
  struct Tick {
    uint32_t tick = 0;
    std::vector<Entry> entries;  // ascending id
  };
  const Tick* at(uint32_t tick) const;
  QueryCapsule capsule(const Entry& e, const Vec3& center) const;

  uint32_t window_ = 0;
  SnapshotSchedule schedule_;
  double radius_ = 0.4, half_ = 0.5, crouch_half_ = 0.2;
  std::vector<Tick> ring_;  // by tick % size
  uint32_t oldest_ = 0, newest_ = 0;
};

}  // namespace foothold::server
