#pragma once
// Inside nav/: the structural checks a tile's bytes from a file pass before Detour sees them.
// Detour trusts a tile's header: its counts size the arrays it points into, its polygons' vertex
// and neighbour indices are followed without checks, and its bounding-volume tree's escape indices
// jump through the nodes. A tile that passes these checks is one Detour reads within its bytes.

#include <cstddef>
#include <cstdint>
#include <string>

namespace foothold::nav {

/// Most bytes one tile may have (a 1024-cell tile of a dense level holds a few MB).
inline constexpr std::size_t kMaxTileBytes = std::size_t(1) << 28;

/// Checks one tile's data (Detour's format, version DT_NAVMESH_VERSION): its header's magic and
/// version, counts that are not negative and whose sections add up to exactly `size` bytes, and
/// every index inside (polygon vertices and neighbours, detail meshes and triangles, the
/// bounding-volume tree, off-mesh connections) within its array; every coordinate finite.
/// `data` must be 4-byte aligned (a vector's or dtAlloc's storage is). Returns "" when the tile
/// passes, else what is wrong.
std::string check_tile(const uint8_t* data, std::size_t size);

}  // namespace foothold::nav
