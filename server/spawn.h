#pragma once
// Where a joining character appears: the nearest free spot of a fixed list, so that characters never
// join inside each other (they collide, movement.md §16). A recording holds every join's state, so
// the choice need not be derivable from the id alone.

#include <cstdint>
#include <span>
#include <vector>

#include "shared/character_state.h"
#include "shared/settings.h"
#include "shared/world.h"

namespace foothold::server {

/// The spawn spots of a world, in order of preference.
/// - The arena: every point of a 1.2 m lattice inside arena::kSpawnAreas (floor clear of every
///   feature and mover), at 1.5 m, nearest kSpawnCentre first: 900 or so.
/// - Any other world: a lattice 1.5 m apart (wider for a world more than 384 m across: at most 256
///   points a side) over its bounds less a margin, 2 m above its top, nearest the middle first.
/// Ties in distance go by lattice row, then column, so the order is the same on every machine.
class SpawnSpots {
 public:
  SpawnSpots(const World& world, const MoveSettings& settings);

  /// The spawn state (airborne, at rest) of character `id`: the first spot that no character at
  /// `occupied` (capsule centres, 1/1024 m) stands within 2 radii + 0.2 m of, horizontally. When
  /// every spot is taken, spot `id` modulo their number: the characters' steps then push the
  /// overlapping ones apart (movement.md §16).
  CharacterState choose(uint32_t id, std::span<const FixedVec3> occupied) const;

  std::size_t size() const { return order_.size(); }
  /// Spot `k` (capsule centre, metres), 0 <= k < size().
  Vec3 spot(std::size_t k) const;

 private:
  double x0_ = 0, z0_ = 0, y_ = 0, spacing_ = 1;
  int32_t cols_ = 0, rows_ = 0;
  double clearance_ = 0;                // metres, horizontally
  std::vector<uint32_t> order_;         // lattice indices (row * cols_ + col), preferred first
  mutable std::vector<uint8_t> taken_;  // scratch, one per lattice point
};

}  // namespace foothold::server
