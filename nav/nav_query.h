#pragma once
// Paths on a navigation mesh: Detour's nearest polygon, polygon path and straight path (the
// corners a character walks between). A NavQuery keeps Detour's search state, so each thread that
// asks for paths has its own; they share the NavMesh.

#include <cstdint>
#include <vector>

#include "follow/path.h"
#include "nav/navmesh.h"
#include "shared/vec3.h"

class dtNavMeshQuery;

namespace foothold::nav {

/// What find_path() found.
enum class PathStatus : uint8_t {
  kFound,    ///< a path to the goal
  kPartial,  ///< the goal is not reachable (or the search ran out of nodes): a path to the closest point reached
  kNoPath,   ///< no path at all: `why` says which end is off the mesh
};

/// Why find_path() found no path.
enum class NoPathReason : uint8_t {
  kNone,          ///< a path was found (kFound or kPartial)
  kStartOffMesh,  ///< no polygon near the start (NavQuery::search_extents())
  kGoalOffMesh,   ///< no polygon near the goal
  kSearchFailed,  ///< Detour's search failed (a start or goal polygon it could not use)
};

/// How a character goes from one corner of a path to the next.
enum class Leg : uint8_t {
  kWalk,  ///< on the mesh: walking, stairs and slopes included
  kJump,  ///< an off-mesh link up (a jump link: NavAgent::max_jump_rise): jump here toward the next corner
  kDrop,  ///< an off-mesh link down: walk off the ledge toward the next corner, and fall
};

/// Result of find_path().
struct PathResult {
  PathStatus status = PathStatus::kNoPath;  ///< found, partial or none
  NoPathReason why = NoPathReason::kNone;   ///< with kNoPath: why
  /// The corners to walk through, metres, world axes, on the mesh: the start's nearest point on
  /// the mesh first, then every turn, then the goal's nearest point (kFound) or the closest point
  /// reached (kPartial). Empty with kNoPath.
  std::vector<Vec3> corners;
  /// legs[i]: how to go from corners[i] to corners[i + 1] (the last, with nothing after it, kWalk);
  /// as many as corners.
  std::vector<Leg> legs;
  /// The narrow places the path goes through (follow::Narrow): where it enters and leaves each
  /// polygon with less than NavQuery::narrow_width() across it, in order from the start.
  std::vector<follow::Narrow> narrows;
  /// Polygons the path crosses (Detour's path corridor length), for figures and tests.
  int polygons = 0;
};

/// Asks a NavMesh for paths. Not thread-safe (Detour's search state); one per thread. The mesh
/// must outlive it.
class NavQuery {
 public:
  /// Most polygons a path may cross, and most corners it may have: longer paths come back partial.
  static constexpr int kMaxPathPolygons = 4096;
  /// Search nodes Detour may use per find_path() (at most 65535): more polygons than this to
  /// search and the path comes back partial.
  static constexpr int kSearchNodes = 32768;

  /// A query on `mesh`.
  explicit NavQuery(const NavMesh& mesh);
  ~NavQuery();
  NavQuery(const NavQuery&) = delete;
  NavQuery& operator=(const NavQuery&) = delete;

  /// The half sizes of the box around a point searched for the nearest polygon, metres: twice the
  /// radius across (at least a metre), the capsule's height up and down, so a capsule's centre as
  /// well as its feet finds the ground under it.
  Vec3 search_extents() const { return extents_; }

  /// The path from `from` to `to` (metres, world axes; feet or capsule centre). Deterministic for a
  /// given mesh: the same points give the same corners.
  PathResult find_path(const Vec3& from, const Vec3& to);

  /// Narrower than this across a path (metres the capsule's centre can stand on) and a place is
  /// narrow (PathResult::narrows): four radii, so that a follower may choose its own bound below it
  /// (two capsules pass abreast where a little more than two radii is).
  double narrow_width() const { return narrow_width_; }

  /// The point on the mesh nearest `p` within search_extents(), or false when there is none.
  bool nearest_point(const Vec3& p, Vec3& out);

 private:
  // The narrow places along the straight path from `start` to `end` through polys_[0, count), into
  // result.narrows (its corners and legs found already).
  void find_narrows(const float start[3], const float end[3], int count, PathResult& result);
  // The width of the mesh at `at` (the narrowest chord through it, near square to the way (ux, uz)),
  // in polygon `ref`, up to narrow_width_; < 0 when it cannot be measured there. `axis`: the way
  // through a passage there (follow::Narrow::axis), or zero.
  double width_across(uint32_t ref, const float at[3], double ux, double uz, Vec3& axis);
  // The mesh's chord through `at` (in polygon `ref`) along (cx, cz) (unit), metres, up to `limit`;
  // < 0 when it cannot be measured there.
  double chord(uint32_t ref, const float at[3], double cx, double cz, double limit);

  dtNavMeshQuery* query_ = nullptr;  // owned (dtFreeNavMeshQuery)
  Vec3 extents_;
  double narrow_width_ = 1.6;
  std::vector<uint32_t> polys_;      // dtPolyRef, 32-bit in Debian's build
  std::vector<float> straight_;
  std::vector<unsigned char> flags_;  // findStraightPath's flags of each corner
  std::vector<float> crossings_;      // find_narrows(): the straight path with every edge crossing
  std::vector<unsigned char> crossing_flags_;
  std::vector<uint32_t> crossing_refs_;  // the polygon each crossing enters
};

/// A path as the path follower takes it (follow/path.h): the same corners, each with its leg;
/// kFound is complete, kPartial partial, kNoPath none.
follow::Path to_follow_path(const PathResult& path);

}  // namespace foothold::nav
