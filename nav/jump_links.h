#pragma once
// Inside nav/: the jump links of a navigation mesh (issue #67), Detour's off-mesh connections where
// a character of the settings can jump up onto a ledge or drop off one. Found on the mesh of the
// tiles alone (pass one of NavMesh::bake), then built into the tiles that hold their starts.
//
// A link starts at a sample of a polygon's boundary edge (every kLinkSpacing along it) and looks
// straight out from it, past the wall or the edge, for a polygon a little farther than the two
// radii the mesh keeps from either side:
//   up (a jump): higher than a step and no higher than NavAgent::max_jump_rise. It starts set back
//     from the boundary by the run the character makes while its feet rise past the ledge (so it
//     does not meet the wall below the top), where the mesh has room for it;
//   down (a drop): lower than a step and no lower than NavAgent::max_drop; it starts at the edge.
// A link is kept when nothing of the static world is in the way: a ray up at the lower end to a
// capsule's height over the upper one, and rays across at the upper level, at the feet and at the
// head. Links are one-way.

#include <cstdint>
#include <vector>

#include "nav/navmesh.h"
#include "shared/ray_query.h"

class dtNavMesh;
class dtNavMeshQuery;
struct dtMeshTile;

namespace foothold::nav {

/// Metres between the samples of a boundary edge, and the least distance between two links of a
/// tile that start alike (both up or both down).
inline constexpr double kLinkSpacing = 1.0;
/// Most links one tile holds (more are left out: a tile of ledges on every side).
inline constexpr int kMaxTileLinks = 1024;

/// One link, as Detour's off-mesh connection takes it.
struct JumpLink {
  float start[3] = {0, 0, 0};  ///< where it starts, on the mesh
  float end[3] = {0, 0, 0};    ///< where it lands, on the mesh
  bool up = false;             ///< a jump up (else a drop down)
  int tile_x = 0, tile_z = 0;  ///< the tile that holds its start
};

/// Finds the links that start from the boundary edges of `tile` (a tile of `mesh`, searched with
/// `query`, which belongs to the calling thread) over `world`, appending them to `out` in the order
/// of the tile's polygons, their edges and the samples along each.
void find_jump_links(const dtNavMesh& mesh, const dtNavMeshQuery& query, const dtMeshTile& tile, const World& world,
                     const NavAgent& agent, QueryScratch& scratch, std::vector<JumpLink>& out);

}  // namespace foothold::nav
