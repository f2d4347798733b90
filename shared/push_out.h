#pragma once
// Push-out (docs/movement.md §8): resolve a capsule that overlaps the world.

#include "shared/contact_queries.h"

namespace foothold {

/// What push_out() did.
struct PushOutResult {
  Vec3 position;           ///< capsule centre after push-out, metres (not rounded to the grid)
  int iterations = 0;      ///< resolution iterations run, summed over the §8.2 rounds (0: nothing overlapped)
  bool resolved = true;    ///< false when the iteration cap was reached while still overlapping
};

/// Iteratively pushes the capsule out of the triangle it overlaps most, along the closest-point
/// normal, by the penetration plus half the contact distance, at most max_pushout_iterations times.
/// When `grounded` (moving grounded, movement.md §4.2), a walkable surface is resolved by moving
/// straight up onto it (snapping takes precedence over the shortest way out, which would drift
/// sideways on slopes, §8.1). When the result ends higher than `center` by more than a quarter of
/// contact_distance, further rounds (at most max_pushout_iterations) shift it down and resolve again,
/// keeping the one with the least vertical displacement: a slanted wall pushes sideways, not up (§8.2).
/// `center` is the capsule centre, metres.
PushOutResult push_out(ContactQueries& queries, const Vec3& center, bool grounded);

}  // namespace foothold
