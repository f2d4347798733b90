#pragma once
// Inside nav/: one tile of a navigation mesh, built by Recast from the triangles over it, as
// Detour's tile data. Each tile is built alone, so tiles build on any thread in any order.

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "nav/jump_links.h"
#include "nav/navmesh.h"

struct rcPolyMesh;
struct rcPolyMeshDetail;

namespace foothold::nav {

/// Where tile (x, z) is: tile_origin + (x, z) * tile_width, in cells of the agent's cell_size.
struct TileLayout {
  double origin_x = 0, origin_z = 0;  ///< minimum corner of tile (0, 0), metres
  double tile_width = 0;              ///< metres: tile_cells * cell_size
  int tile_cells = 0;                 ///< cells along a tile's side
  int border_cells = 0;               ///< cells each side a tile also rasterises, so that its edges meet its neighbours'
};

/// The layout of tiles of `tile_cells` for `agent`, with tile (0, 0) at the world's minimum corner.
TileLayout tile_layout(const World& world, const NavAgent& agent, int tile_cells);

/// The Recast area of a surface tagged never_ground: solid and never walkable. Recast's filter that
/// lets a low obstacle's top be walked on (a kerb a step high) makes any other area but walkable
/// ones walkable; a never_ground top a step over the floor (the arena's pad) must stay out, so it is
/// rasterised as this area, over what lies under it, and made RC_NULL_AREA after that filter.
inline constexpr uint8_t kNeverGroundArea = 2;

/// The triangles' walkability, one Recast area per static triangle of the world (in index order):
/// walkable (RC_WALKABLE_AREA) where the movement step would ground on it (by its normal and tag),
/// kNeverGroundArea where it is tagged never to, else RC_NULL_AREA (still solid: a wall or a ceiling).
std::vector<uint8_t> triangle_areas(const World& world, const NavAgent& agent);

/// Result of build_tile().
struct TileBuild {
  std::vector<uint8_t> data;  ///< Detour's tile data (dtCreateNavMeshData); empty: the tile has no polygon
  int polygons = 0;           ///< polygons in it
  std::string error;          ///< what Recast failed on (memory); empty on success
  int tile_x = 0, tile_z = 0;  ///< which tile it is
  /// Recast's polygons and detail mesh of the tile, kept for add_links(); null with no polygon.
  std::shared_ptr<rcPolyMesh> polys;
  std::shared_ptr<rcPolyMeshDetail> detail;
};

/// Recast's area of one triangle, as triangle_areas() gives it.
uint8_t triangle_area(const WorldTriangle& triangle, const NavAgent& agent);

/// Builds tile (tile_x, tile_z) from the triangles `triangles` (indices into `world`, ascending:
/// those over the tile and its border) and `extra` (triangles the world does not own, in world axes:
/// movers where they stand; those over the tile and its border, in an order of their own). The
/// ground within `sweeps` (mover_sweeps(): the boxes movers sweep) gets kMoverArea.
TileBuild build_tile(const World& world, const std::vector<uint8_t>& areas, const NavAgent& agent,
                     const TileLayout& layout, int tile_x, int tile_z, const std::vector<uint32_t>& triangles,
                     std::span<const WorldTriangle> extra = {}, std::span<const Aabb> sweeps = {});

/// Makes `tile`'s data again with `links` (jump links whose starts are in it) as Detour's off-mesh
/// connections. Returns "" on success, else what Detour refused.
std::string add_links(TileBuild& tile, const NavAgent& agent, std::span<const JumpLink> links);

}  // namespace foothold::nav
