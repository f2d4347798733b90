#pragma once
// The regions of a navigation mesh: sets of polygons that all reach one another, walking and by
// the jump links, which go one way (a drop's landing does not reach its ledge). A wall's top, a
// pit's floor with no way out and a ledge one can only drop from are regions of their own, apart
// from the level's floor; NavMesh::random_point() draws only from the largest region.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

class dtNavMesh;

namespace foothold::nav {

/// Every polygon's region (Tarjan's strongly connected components of Detour's links).
struct PolygonRegions {
  /// first[k]: the index in `region` of tile k's polygon 0 (its polygons, then its jump links, as
  /// Detour numbers them).
  std::vector<std::size_t> first;
  /// Each polygon's region, 0 to count - 1, numbered in the order the search closes them: the same
  /// mesh gives the same numbers.
  std::vector<uint32_t> region;
  uint32_t count = 0;
};

/// The regions of `mesh`, whose tiles are `tiles` (Detour's tile format, in the mesh's tile order:
/// NavMesh::tiles()); every tile must be in `mesh`.
PolygonRegions find_regions(const dtNavMesh& mesh, std::span<const std::vector<uint8_t>> tiles);

}  // namespace foothold::nav
