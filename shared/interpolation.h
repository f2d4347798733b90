#pragma once
// Remote characters between snapshots: a client shows other players a little in the past,
// interpolating between the two snapshots around the moment it shows.

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "shared/character_state.h"

namespace foothold {

/// The recent positions of remote characters, by id, and their interpolation. Owns its samples.
class RemoteInterpolator {
 public:
  /// Samples kept per character; when full, the oldest is dropped.
  static constexpr int kSamples = 32;

  /// Records where character `id` was after server tick `tick`: `position` is its capsule centre,
  /// 1/1024 m. A late sample is slotted in by tick, a repeated tick replaces the old sample, and one
  /// older than every kept sample of a full track is dropped.
  /// `crouched`: its posture then.
  void add(uint32_t id, uint32_t tick, const FixedVec3& position, GroundKind ground, bool crouched = false);

  /// A character at one moment.
  struct Sample {
    Vec3 position;       ///< capsule centre, metres
    GroundKind ground = GroundKind::kNone;  ///< the ground kind of the nearer of the two samples
    Vec3 motion;         ///< metres per tick between the two samples around it (zero where held)
    bool crouched = false;  ///< the posture of the nearer of the two samples
  };
  /// Character `id` at the (fractional) server tick `tick`: interpolated between the samples around
  /// it; held at the nearest sample outside them (no extrapolation). Nothing for an unknown id.
  /// `crouch_drop`: how far a crouch lowers the capsule's centre (its feet stay): where the two
  /// samples' postures differ, their feet are interpolated, not their centres, so a crouch is drawn
  /// as the capsule's shape changing, not as a fall (0: centres, as the server's rewind does).
  /// `cubic`: a cubic Hermite curve through the samples instead of straight lines, its motion at
  /// each sample the slope across that sample's neighbours, so the velocity drawn has no corners (a
  /// push in a crowd moves a character 0.3 m in a tick; drawn as a line its velocity jumps there).
  /// It passes through every sample; between them it may stray from the lines by a few centimetres.
  std::optional<Sample> sample(uint32_t id, double tick, double crouch_drop = 0, bool cubic = false) const;

  /// The tick of character `id`'s newest sample; nothing for an unknown id.
  std::optional<uint32_t> newest_tick(uint32_t id) const;

  /// Character `id`'s motion per tick (raw 1/1024 m) as its two newest samples show it, across the
  /// ground (y is 0), rounded toward zero: what a predictor carries it on by (Predictor::set_others).
  /// Zero unless its newest sample is at `tick` (a snapshot that did not send it says it stood still)
  /// and the one before is at most `max_gap` ticks older (an old sample says nothing of now).
  FixedVec3 motion(uint32_t id, uint32_t tick, uint32_t max_gap) const;

  /// Records that character `id` stayed where its newest sample has it until `tick` (that sample
  /// copied to `tick`), when `tick` is later; nothing for an unknown id. A snapshot that leaves out a
  /// character that did not move says so this way, before a later sample shows it moving again.
  void hold_until(uint32_t id, uint32_t tick);

  /// Forgets characters with no sample at or after `tick` (they left, or are out of view).
  void forget_before(uint32_t tick);
  /// Forgets every character whose id is not in `ids` (ascending).
  void retain(std::span<const uint32_t> ids);

  /// Number of characters tracked.
  std::size_t size() const { return ids_.size(); }

 private:
  struct Point {
    uint32_t tick = 0;
    FixedVec3 position;
    GroundKind ground = GroundKind::kNone;
    bool crouched = false;
  };
  struct Track {
    std::array<Point, kSamples> points{};
    int count = 0;  // points kept, in tick order, oldest first
  };
  const Track* find(uint32_t id) const;  // null for an unknown id
  // Keeps the tracks for which keep(id, track) is true, in order.
  template <typename Keep>
  void keep_if(Keep&& keep) {
    std::size_t to = 0;
    for (std::size_t k = 0; k < ids_.size(); ++k) {
      if (!keep(ids_[k], tracks_[k])) continue;
      if (to != k) {
        ids_[to] = ids_[k];
        tracks_[to] = tracks_[k];
      }
      ++to;
    }
    ids_.resize(to);
    tracks_.resize(to);
  }
  // Flat and by ascending id, not a tree: a frame looks every drawn character up (several times),
  // and a tree's nodes, a track each, lie all over memory (a 500-bot fleet's lookups and sampling
  // took 19% of its CPU with a std::map, 13.5% flat). tracks_[k] is the track of ids_[k].
  std::vector<uint32_t> ids_;
  std::vector<Track> tracks_;
};

}  // namespace foothold
