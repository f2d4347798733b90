#pragma once
// A navigation mesh of a world (issue #67): where a character of the movement settings can walk,
// as Detour polygons in tiles, built by Recast from the world's static triangles. It only chooses
// paths for characters the server drives; what those characters do is their inputs, which the
// server records, so the mesh need not be bit-identical across machines (Recast computes in float).
// Baking the same world with the same settings gives the same bytes on one machine, whatever the
// number of threads: each tile is built alone from its own triangles, and the tiles are kept in
// tile order.
//
// Movers are not in the baked mesh: it is the static world only (a path may cross where a mover
// passes, and never uses a moving platform). rebuild() builds the tiles where movers stand again
// with their triangles as they stand (a shut door blocks, a parked platform joins), at the game's
// word. Crouching is not in it: the mesh is for the standing capsule. Jumps are: a ledge within the jump's reach is joined to the ground below it by a jump
// link up, and a ledge to the ground a fall below it by a drop link down (nav/jump_links.h).

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "shared/parallel_for.h"
#include "shared/settings.h"
#include "shared/vec3.h"
#include "shared/world.h"

class dtNavMesh;

namespace foothold::nav {

/// The character a mesh is for, and the resolution it is built at, all from the movement settings
/// (agent_of()).
struct NavAgent {
  double radius = 0;       ///< capsule radius, metres (MoveSettings::radius): the mesh keeps this far from walls
  double height = 0;       ///< capsule height, metres (MoveSettings::height): the least headroom walked under
  double climb = 0;        ///< highest step walked up, metres (MoveSettings::step_height)
  double max_slope_deg = 0;  ///< steepest walkable slope, degrees (MoveSettings::max_slope_deg)
  double cos_max_slope = 0;  ///< a triangle with normal.y >= this is walkable (the step's own value)
  double cell_size = 0;    ///< horizontal cell, metres: radius / 3 (three cells keep the radius to a third of it)
  /// Vertical cell, metres: about cell_size / 2, shrunk so that the climb is a whole number of cells
  /// (a stair exactly step_height high is walkable, as the step climbs it).
  double cell_height = 0;
  // The jump links (nav/jump_links.h).
  double walk_speed = 0;     ///< metres per second (MoveSettings::walk_speed): a jump's run-up
  double jump_speed = 0;     ///< metres per second (MoveSettings::jump_speed)
  double gravity = 0;        ///< metres per second squared (MoveSettings::gravity)
  /// Highest ledge a jump link goes up, metres: the feet's rise at the jump's apex (jump_speed^2 /
  /// 2 gravity) less kJumpReserve; 0 (no jump links) without a jump or without gravity.
  double max_jump_rise = 0;
  /// Deepest drop a drop link goes down, metres: kDropHeights capsule heights; 0 without gravity.
  double max_drop = 0;
};

/// Metres of a jump's rise a jump link leaves unused: the feet clear the ledge's edge by it.
inline constexpr double kJumpReserve = 0.15;
/// A drop link falls at most this many capsule heights.
inline constexpr double kDropHeights = 2.5;

/// The agent a mesh is built for with these settings (see NavAgent).
NavAgent agent_of(const MoveSettings& settings);

/// How bake() works; none of it changes which world or settings a mesh is for.
struct BakeOptions {
  /// Tile side in cells [16, 1024]: a tile is built by one thread from the triangles over it.
  int tile_cells = 64;
  /// Threads to build tiles on; null: the calling thread only. The bytes do not depend on it.
  ParallelFor* threads = nullptr;
  /// Called on the calling thread after each batch of tiles, with the tiles built so far and the
  /// total (for a progress line); may be empty.
  std::function<void(std::size_t done, std::size_t total)> progress;
};

/// Counts of a mesh.
struct NavStats {
  std::size_t tiles = 0;     ///< tiles holding at least one polygon
  std::size_t polygons = 0;  ///< walkable polygons, all tiles
  std::size_t links = 0;     ///< jump links (jumps up and drops down: Detour's off-mesh connections), all tiles
};

class NavMesh;
struct TileBuild;

/// Result of NavMesh::rebuild().
struct NavRebuild {
  std::size_t tiles = 0;  ///< tiles built again (those the region overlaps within the mesh's grid)
  std::string error;      ///< what went wrong, naming the tile; empty on success
};
/// Tiles a mesh has room for beyond its baked ones: where rebuild() finds polygons that were not
/// there (a platform parked over a gap).
inline constexpr std::size_t kSpareTiles = 64;

/// Result of bake() and load().
struct NavMeshResult {
  std::unique_ptr<NavMesh> mesh;  ///< null on error
  std::string error;              ///< what went wrong, naming the world or file; empty on success
};

/// A baked navigation mesh, shared read-only by any number of NavQuery (one per thread); rebuild()
/// changes it, while no query runs. Not copyable; hold it by the unique_ptr.
class NavMesh {
 public:
  /// Builds the mesh of `world`'s static triangles for the character of `settings` (which must be
  /// valid: MoveSettings::validate() empty). Errors: a world too large for the mesh's tile grid or
  /// polygon references, or a tile Recast fails on (out of memory).
  static NavMeshResult bake(const World& world, const MoveSettings& settings, const BakeOptions& options = {});

  /// Reads a mesh file written by save(); `path` names it in messages. Refused, with a message
  /// naming the file: unreadable, not a navmesh file, another format version, baked for another
  /// world or settings (their hashes differ), truncated, corrupt (checksum), or any tile that fails
  /// the structural checks (nav_file.cpp) before Detour sees it.
  static NavMeshResult load(const std::string& path, const World& world, const MoveSettings& settings);
  /// load() from bytes in memory; `name` stands for the file in messages.
  static NavMeshResult from_bytes(std::span<const uint8_t> bytes, const std::string& name, const World& world,
                                  const MoveSettings& settings);

  /// The file's bytes (nav_file.cpp describes the format): the same mesh gives the same bytes.
  std::vector<uint8_t> to_bytes() const;
  /// Writes to_bytes() to `path`; returns an error naming the file, or "" on success.
  std::string save(const std::string& path) const;

  ~NavMesh();
  NavMesh(const NavMesh&) = delete;
  NavMesh& operator=(const NavMesh&) = delete;

  /// World::hash() of the world it was built from.
  uint64_t world_hash() const { return world_hash_; }
  /// MoveSettings::hash() of the settings it was built for.
  uint64_t settings_hash() const { return settings_hash_; }
  /// The character it is for.
  const NavAgent& agent() const { return agent_; }
  /// Its tiles and polygons.
  NavStats stats() const { return stats_; }
  /// The data of every tile, in tile order (z, then x): Detour's tile format, as Recast built it.
  const std::vector<std::vector<uint8_t>>& tiles() const { return tiles_; }

  /// A point on the walkable surface of the mesh's main region (its detail triangles, within a
  /// cell height of the ground), drawn uniformly by horizontal area from `seed` alone: the same seed
  /// and mesh give the same point. The main region is the largest (by area) set of polygons that
  /// all reach one another, walking and by jump links (nav/regions.h): so any two points drawn are
  /// joined by a complete path both ways, and none is on a wall's top, in a pit with no way out or
  /// on a ledge one can only drop from; nor on ground a mover sweeps (nav/mover_sweeps.h).
  /// Precondition: the mesh has a polygon (a mesh from bake() or load() has).
  Vec3 random_point(uint64_t seed) const;
  /// How many regions the mesh has (sets of polygons that reach one another; nav/regions.h).
  uint32_t regions() const { return regions_; }

  /// Detour's mesh, for NavQuery; owned by this NavMesh.
  const dtNavMesh& detour() const { return *detour_; }

  /// Builds again every tile of the mesh's grid that `region` (world axes, metres: its x and z)
  /// overlaps, from `world`'s static triangles over it and those of `extra` over it (triangles the
  /// world does not own, world axes: movers posed where they stand), each tile keeping the jump
  /// links it was baked with. A tile left without polygons goes; one with polygons where there were
  /// none comes in while the mesh has room (kSpareTiles, and twice the most polygons a baked tile
  /// has). The same world, region and triangles give the same tiles; stats(), tiles() and
  /// random_point() follow. `world` must be the one it was baked for.
  NavRebuild rebuild(const World& world, const Aabb& region, std::span<const WorldTriangle> extra);

 private:
  NavMesh() = default;
  struct Grid {
    float origin[3] = {0, 0, 0};  // world position of tile (0, 0)'s minimum corner
    float tile_width = 0;         // metres along x and z
  };
  // Puts the tiles into Detour after checks; the one path of bake() and load().
  static NavMeshResult assemble(std::unique_ptr<NavMesh> mesh);
  // bake(): finds the jump links of the tiles `built` (nav/jump_links.h) and makes those that hold
  // their starts again with them. Returns an error, or "".
  std::string link_tiles(const World& world, std::vector<TileBuild>& built, ParallelFor* threads) const;
  void index_surface();  // finds the regions and fills surface_ with the main one's, for random_point()
  void count();          // fills stats_ from tiles_
  // rebuild(): tile (x, z) built again as `built` (no data: none there now), in Detour and tiles_.
  std::string replace_tile(int x, int z, TileBuild& built);

  uint64_t world_hash_ = 0;
  uint64_t settings_hash_ = 0;
  NavAgent agent_;
  Grid grid_;
  NavStats stats_;
  std::vector<std::vector<uint8_t>> tiles_;
  std::vector<uint8_t> areas_;   // each world triangle's Recast area (triangle_areas()), for rebuild()
  std::vector<Aabb> sweeps_;     // the boxes the world's movers sweep (mover_sweeps()), for rebuild()
  dtNavMesh* detour_ = nullptr;  // owned (dtFreeNavMesh)
  int max_tile_polygons_ = 0;    // the most polygons a tile may have (Detour's references hold them)
  // Every detail triangle of the main region with its running total of horizontal area, for random_point().
  struct SurfaceTriangle {
    double area_before = 0;  // horizontal area of the triangles before this one, m^2
    Vec3 a, b, c;
  };
  std::vector<SurfaceTriangle> surface_;  // of the main region only
  double surface_area_ = 0;
  uint32_t regions_ = 0;  // regions of the mesh

};

}  // namespace foothold::nav
