#include "nav/tile_check.h"

#include <cmath>
#include <cstring>

#include <DetourCommon.h>
#include <DetourNavMesh.h>

namespace foothold::nav {
namespace {

// Detour's own section sizes (dtNavMesh::addTile), computed in 64 bits from counts already known
// not to be negative, so that no count can wrap them.
uint64_t align4(uint64_t n) { return (n + 3) & ~uint64_t(3); }

bool finite(const float* v, uint64_t n) {
  for (uint64_t i = 0; i < n; ++i)
    if (!std::isfinite(v[i])) return false;
  return true;
}

// Where each section of a tile starts, for a header whose counts passed check_counts().
struct Sections {
  uint64_t verts, polys, links, detail_meshes, detail_verts, detail_tris, bv_tree, off_mesh, end;
};

Sections sections_of(const dtMeshHeader& h) {
  Sections s{};
  s.verts = align4(sizeof(dtMeshHeader));
  s.polys = s.verts + align4(sizeof(float) * 3 * uint64_t(h.vertCount));
  s.links = s.polys + align4(sizeof(dtPoly) * uint64_t(h.polyCount));
  s.detail_meshes = s.links + align4(sizeof(dtLink) * uint64_t(h.maxLinkCount));
  s.detail_verts = s.detail_meshes + align4(sizeof(dtPolyDetail) * uint64_t(h.detailMeshCount));
  s.detail_tris = s.detail_verts + align4(sizeof(float) * 3 * uint64_t(h.detailVertCount));
  s.bv_tree = s.detail_tris + align4(4 * uint64_t(h.detailTriCount));
  s.off_mesh = s.bv_tree + align4(sizeof(dtBVNode) * uint64_t(h.bvNodeCount));
  s.end = s.off_mesh + align4(sizeof(dtOffMeshConnection) * uint64_t(h.offMeshConCount));
  return s;
}

std::string check_counts(const dtMeshHeader& h) {
  if (h.magic != DT_NAVMESH_MAGIC) return "not a Detour tile (magic)";
  if (h.version != DT_NAVMESH_VERSION) return "Detour tile version " + std::to_string(h.version) + ", not " +
                                              std::to_string(DT_NAVMESH_VERSION);
  for (int c : {h.polyCount, h.vertCount, h.maxLinkCount, h.detailMeshCount, h.detailVertCount, h.detailTriCount,
                h.bvNodeCount, h.offMeshConCount, h.offMeshBase})
    if (c < 0) return "a negative count";
  if (h.polyCount == 0) return "no polygon";
  // Detour indexes vertices and neighbours in 16 bits, and its links' free list needs one.
  if (h.vertCount > 0xffff || h.polyCount > 0xffff) return "more than 65535 vertices or polygons";
  if (h.maxLinkCount < 1) return "no link slot";
  // Off-mesh connections are the last polygons, one each; every other polygon has a detail mesh.
  if (uint64_t(h.offMeshBase) + uint64_t(h.offMeshConCount) != uint64_t(h.polyCount))
    return "off-mesh connections that are not the last polygons";
  if (h.detailMeshCount != h.offMeshBase) return "a detail mesh count unlike its ground polygons'";
  if (!finite(h.bmin, 3) || !finite(h.bmax, 3) || !std::isfinite(h.bvQuantFactor) || !std::isfinite(h.walkableHeight) ||
      !std::isfinite(h.walkableRadius) || !std::isfinite(h.walkableClimb))
    return "a bound that is not a finite number";
  return "";
}

std::string check_polygons(const uint8_t* data, const Sections& s, const dtMeshHeader& h) {
  const auto* polys = reinterpret_cast<const dtPoly*>(data + s.polys);
  for (int i = 0; i < h.polyCount; ++i) {
    const dtPoly& p = polys[i];
    const bool off_mesh = i >= h.offMeshBase;
    if (off_mesh != (p.getType() == DT_POLYTYPE_OFFMESH_CONNECTION) || p.getType() > DT_POLYTYPE_OFFMESH_CONNECTION)
      return "polygon " + std::to_string(i) + " of the wrong type";
    if (off_mesh ? p.vertCount != 2 : (p.vertCount < 3 || p.vertCount > DT_VERTS_PER_POLYGON))
      return "polygon " + std::to_string(i) + " with " + std::to_string(p.vertCount) + " vertices";
    for (int j = 0; j < p.vertCount; ++j) {
      if (p.verts[j] >= h.vertCount) return "polygon " + std::to_string(i) + " names a vertex past the tile's";
      const unsigned short n = p.neis[j];
      // An internal neighbour is its index + 1; an external one is DT_EXT_LINK | side (any side).
      if (n != 0 && (n & DT_EXT_LINK) == 0 && n - 1 >= h.polyCount)
        return "polygon " + std::to_string(i) + " names a neighbour past the tile's polygons";
    }
  }
  return "";
}

std::string check_detail(const uint8_t* data, const Sections& s, const dtMeshHeader& h) {
  const auto* polys = reinterpret_cast<const dtPoly*>(data + s.polys);
  const auto* meshes = reinterpret_cast<const dtPolyDetail*>(data + s.detail_meshes);
  const uint8_t* tris = data + s.detail_tris;
  for (int i = 0; i < h.detailMeshCount; ++i) {
    const dtPolyDetail& d = meshes[i];
    if (uint64_t(d.vertBase) + d.vertCount > uint64_t(h.detailVertCount) ||
        uint64_t(d.triBase) + d.triCount > uint64_t(h.detailTriCount))
      return "detail mesh " + std::to_string(i) + " past the tile's detail vertices or triangles";
    for (unsigned t = 0; t < d.triCount; ++t) {
      const uint8_t* tri = tris + 4 * (uint64_t(d.triBase) + t);
      // Below the polygon's vertex count a polygon vertex, else a detail vertex of this mesh.
      for (int k = 0; k < 3; ++k)
        if (tri[k] >= polys[i].vertCount && tri[k] - polys[i].vertCount >= d.vertCount)
          return "detail triangle of polygon " + std::to_string(i) + " names a vertex past its own";
    }
  }
  return "";
}

std::string check_tree_and_links(const uint8_t* data, const Sections& s, const dtMeshHeader& h) {
  const auto* nodes = reinterpret_cast<const dtBVNode*>(data + s.bv_tree);
  for (int i = 0; i < h.bvNodeCount; ++i) {
    const int index = nodes[i].i;
    // A leaf names a ground polygon; an inner node's negative index is how far to skip forward
    // past its subtree (Detour's queryPolygonsInTile), at most to the end of the tree.
    if (index >= 0 ? index >= h.offMeshBase : (index == INT32_MIN || int64_t(i) - index > h.bvNodeCount))
      return "bounding-volume node " + std::to_string(i) + " points outside the tile";
  }
  const auto* cons = reinterpret_cast<const dtOffMeshConnection*>(data + s.off_mesh);
  for (int i = 0; i < h.offMeshConCount; ++i)
    if (cons[i].poly != h.offMeshBase + i || !finite(cons[i].pos, 6) || !std::isfinite(cons[i].rad))
      return "off-mesh connection " + std::to_string(i) + " does not match its polygon";
  return "";
}

}  // namespace

std::string check_tile(const uint8_t* data, std::size_t size) {
  if (size < sizeof(dtMeshHeader)) return "shorter than a tile header";
  if (size > kMaxTileBytes) return "larger than " + std::to_string(kMaxTileBytes) + " bytes";
  dtMeshHeader h;
  std::memcpy(&h, data, sizeof h);
  std::string error = check_counts(h);
  if (!error.empty()) return error;
  const Sections s = sections_of(h);
  if (s.end != size) return "counts for " + std::to_string(s.end) + " bytes in " + std::to_string(size);
  if (!finite(reinterpret_cast<const float*>(data + s.verts), 3 * uint64_t(h.vertCount)) ||
      !finite(reinterpret_cast<const float*>(data + s.detail_verts), 3 * uint64_t(h.detailVertCount)))
    return "a vertex that is not a finite number";
  error = check_polygons(data, s, h);
  if (error.empty()) error = check_detail(data, s, h);
  if (error.empty()) error = check_tree_and_links(data, s, h);
  return error;
}

}  // namespace foothold::nav
