#pragma once
// Push-out (docs/movement.md §8): resolve a capsule that overlaps the world.

#include "shared/contact_queries.h"

namespace foothold {

struct PushOutResult {
  Vec3 position;
  int iterations = 0;      ///< resolution iterations run (0: nothing overlapped)
  bool resolved = true;    ///< false when the iteration cap was reached while still overlapping
};

/// Iteratively pushes the capsule out of the triangle it overlaps most, along the closest-point
/// normal, by the penetration plus half the contact distance, at most max_pushout_iterations times.
/// When `grounded`, a walkable surface is resolved by moving straight up onto it (snapping takes
/// precedence over the shortest way out, which would drift sideways on slopes). When the result
/// ends higher than `center`, further rounds shift it down and resolve again, keeping the one with
/// the least vertical displacement: a slanted wall pushes sideways, not up.
PushOutResult push_out(ContactQueries& queries, const Vec3& center, bool grounded);

}  // namespace foothold
