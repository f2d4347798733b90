#pragma once
// Who is near whom, for path followers that steer round the others (issue #67): every character
// sorted into square cells once a tick, so that each follower's neighbours are found in its cell
// and the eight around it, not among every character (a crowd of hundreds would be N² otherwise).
#include <cstdint>
#include <vector>

#include "follow/path_follower.h"
#include "shared/character_state.h"

namespace foothold::follow {

/// Metres within which a follower is given the characters near it (GameControl::follow(), foothold-nav
/// walk): those it would meet within FollowSettings::avoid_time (a second at walk speed, both
/// walking), and some.
constexpr double kNearbyReach = 10;

/// The characters of one tick, by cell. Fill it (clear(), add() each, sort()), then ask near() for
/// each follower; what near() gives depends on the characters alone, never on the order they were
/// added in.
class NearbyIndex {
 public:
  /// Neighbours within `reach` metres (horizontally) are found; the cells are that wide.
  explicit NearbyIndex(double reach = kNearbyReach);

  void clear() { cells_.clear(); }
  /// Character `key` (unique among those added: an id, an index) in `state`.
  void add(uint32_t key, const CharacterState& state);
  /// Sorts the characters added by cell, then key; before near().
  void sort();
  /// Replaces `out` with the characters within reach of `at` (horizontally), leaving out `key`, by
  /// cell, then key.
  void near(const FixedVec3& at, uint32_t key, std::vector<Nearby>& out) const;

 private:
  struct Cell {
    int32_t x, z;
    uint32_t key;
    Nearby seen;  // the character as a follower steers round it
  };
  int32_t cell_of(int32_t fixed) const;

  double cell_fixed_;  // the cells' side, 1/1024 m
  double reach_sq_;    // reach², (1/1024 m)²
  std::vector<Cell> cells_;
};

}  // namespace foothold::follow
