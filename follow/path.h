#pragma once
// A path for a character to walk (issue #67), as plain data: the corners a navigation mesh gives
// (GameControl::path(), over nav/'s NavQuery), each with how the character goes on from it, which
// the path follower (follow/path_follower.h) turns into inputs.

#include <cstdint>
#include <vector>

#include "shared/vec3.h"

namespace foothold::follow {

/// How a character goes from one corner of a path to the next.
enum class Leg : uint8_t {
  kWalk,  ///< walking on the mesh: stairs within the step height and walkable slopes included
  kJump,  ///< a jump up a ledge within the jump's reach: jump at this corner toward the next
  kDrop,  ///< a drop off a ledge: walk off it toward the next corner, and fall
};

/// One corner of a path.
struct Corner {
  Vec3 point;              ///< on the walkable surface (where the feet go), metres, world axes
  Leg leg = Leg::kWalk;    ///< how to go from here to the next corner (the last corner's is kWalk)
  bool operator==(const Corner&) const = default;
};

/// Where a path goes through a passage too narrow for two characters to pass in: a door, a gap
/// between pillars, a ledge along a wall. Two coming from either end meet there head on; a follower
/// waits at the mouth for one coming the other way (FollowSettings::narrow_width).
struct Narrow {
  Vec3 point;          ///< where the path enters or leaves a narrow polygon there, on the walkable surface, metres
  uint32_t leg = 0;    ///< the leg it lies on: from corners[leg] to corners[leg + 1]
  double width = 0;    ///< metres across the passage (its narrowest chord) that a capsule's centre can stand on
  /// The way through the passage there (horizontal, unit, canonical_way()): along its sides, the
  /// same for every path through it whichever way it goes; zero when not known (a crossing at a
  /// mouth, where one side is a room's wall). Those going through it one way and those going the
  /// other take turns by it (FollowSettings::give_way_turn).
  Vec3 axis;
  bool operator==(const Narrow&) const = default;
};

/// Of a horizontal line's two ways, the one that points along (cos 0.3, sin 0.3) rather than
/// against it: `way` or its opposite. Not along x or z, nor at 45 degrees between them, the ways
/// level designers draw walls in, whose doors' ways would fall either side of the line by a
/// rounding.
Vec3 canonical_way(const Vec3& way);

/// Whether a path reaches where it was asked to go.
enum class PathStatus : uint8_t {
  kNone,      ///< no path: an end is off the mesh, or there is no mesh (no corners)
  kComplete,  ///< it reaches the goal (its last corner is the goal's nearest point on the mesh)
  kPartial,   ///< the goal cannot be reached: it ends at the closest point that can
};

/// A path: the corners from the start (its nearest point on the mesh) to the goal.
struct Path {
  PathStatus status = PathStatus::kNone;
  std::vector<Corner> corners;
  /// The narrow places along it, in order from the start (where it enters and leaves each narrow
  /// polygon: a door gives two or three); none known for a path built by hand.
  std::vector<Narrow> narrows;
  bool operator==(const Path&) const = default;
  /// Its length along the corners, metres (0 with fewer than two).
  double length() const;
};

/// "none", "complete" or "partial".
const char* to_string(PathStatus status);

}  // namespace foothold::follow
