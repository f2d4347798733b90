#include "nav/tile_build.h"

#include <algorithm>
#include <cmath>
#include <memory>

#include <DetourAlloc.h>
#include <DetourNavMesh.h>
#include <DetourNavMeshBuilder.h>
#include <Recast.h>

#include "nav/mover_sweeps.h"

namespace foothold::nav {
namespace {

// The polygon flag every walkable polygon gets: Detour's default filter passes a polygon only when
// its flags share a bit with the filter's include flags.
constexpr unsigned short kWalkFlag = 1;
// Recast's tuning, as its own samples use it: edges at most 12 m long (shorter follow curves more
// closely), contours within 1.3 cells of the region's edge, regions below 8 x 8 cells dropped
// (islands on a box top) and below 20 x 20 merged into a neighbour; the detail mesh sampled every
// 6 cells to within one cell height.
constexpr double kMaxEdgeMetres = 12;
constexpr float kMaxSimplificationError = 1.3f;
constexpr int kMinRegionCells = 8 * 8;
constexpr int kMergeRegionCells = 20 * 20;
constexpr int kDetailSampleCells = 6;

struct RecastDeleter {
  void operator()(rcHeightfield* p) const { rcFreeHeightField(p); }
  void operator()(rcCompactHeightfield* p) const { rcFreeCompactHeightfield(p); }
  void operator()(rcContourSet* p) const { rcFreeContourSet(p); }
  void operator()(rcPolyMesh* p) const { rcFreePolyMesh(p); }
  void operator()(rcPolyMeshDetail* p) const { rcFreePolyMeshDetail(p); }
};
template <typename T>
using RecastPtr = std::unique_ptr<T, RecastDeleter>;

rcConfig tile_config(const NavAgent& agent, const TileLayout& layout) {
  rcConfig cfg{};
  cfg.cs = float(agent.cell_size);
  cfg.ch = float(agent.cell_height);
  cfg.walkableSlopeAngle = float(agent.max_slope_deg);
  cfg.walkableHeight = int(std::ceil(agent.height / agent.cell_height - 1e-9));
  // cell_height divides the climb (agent_of()); the margin keeps 5.9999999 from flooring to 5.
  cfg.walkableClimb = int(std::floor(agent.climb / agent.cell_height + 1e-6));
  cfg.walkableRadius = int(std::ceil(agent.radius / agent.cell_size - 1e-9));
  cfg.maxEdgeLen = int(kMaxEdgeMetres / agent.cell_size);
  cfg.maxSimplificationError = kMaxSimplificationError;
  cfg.minRegionArea = kMinRegionCells;
  cfg.mergeRegionArea = kMergeRegionCells;
  cfg.maxVertsPerPoly = DT_VERTS_PER_POLYGON;
  cfg.tileSize = layout.tile_cells;
  cfg.borderSize = layout.border_cells;
  cfg.width = cfg.tileSize + 2 * cfg.borderSize;
  cfg.height = cfg.width;
  cfg.detailSampleDist = float(kDetailSampleCells * agent.cell_size);
  cfg.detailSampleMaxError = float(agent.cell_height);
  return cfg;
}

// The triangles as Recast rasterises them: nine floats each, and their areas; those of
// kNeverGroundArea last, from `never` on.
struct TileTriangles {
  std::vector<float> verts;
  std::vector<unsigned char> areas;
  std::size_t never = 0;
  float y_min = 0, y_max = 0;
};

TileTriangles gather(const World& world, const std::vector<uint8_t>& areas, const std::vector<uint32_t>& triangles,
                     std::span<const WorldTriangle> extra, const NavAgent& agent) {
  TileTriangles t;
  t.verts.reserve((triangles.size() + extra.size()) * 9);
  t.areas.reserve(triangles.size() + extra.size());
  double lo = 0, hi = 0;
  auto add = [&](const WorldTriangle& tri, uint8_t area) {
    for (const Vec3* v : {&tri.tri.a, &tri.tri.b, &tri.tri.c}) {
      t.verts.push_back(float(v->x));
      t.verts.push_back(float(v->y));
      t.verts.push_back(float(v->z));
    }
    lo = t.areas.empty() ? tri.lo.y : std::min(lo, tri.lo.y);
    hi = t.areas.empty() ? tri.hi.y : std::max(hi, tri.hi.y);
    t.areas.push_back(area);
  };
  for (const bool never : {false, true}) {
    if (never) t.never = t.areas.size();
    for (uint32_t i : triangles)
      if ((areas[i] == kNeverGroundArea) == never) add(world.triangle(i), areas[i]);
    for (const WorldTriangle& tri : extra)
      if (const uint8_t area = triangle_area(tri, agent); (area == kNeverGroundArea) == never) add(tri, area);
  }
  t.y_min = float(lo);
  t.y_max = float(hi);
  return t;
}

// Recast's pipeline up to the compact heightfield, eroded by the radius, with its regions.
RecastPtr<rcCompactHeightfield> rasterise(rcContext& ctx, const rcConfig& cfg, const TileTriangles& t,
                                          std::span<const Aabb> sweeps, const NavAgent& agent, std::string& error) {
  RecastPtr<rcHeightfield> solid(rcAllocHeightfield());
  // never_ground triangles last, their area kept where they merge with a span (a flag merge
  // threshold no height difference is within): a never_ground top over walkable ground stays so.
  const int never = int(t.areas.size() - t.never);
  if (!solid || !rcCreateHeightfield(&ctx, *solid, cfg.width, cfg.height, cfg.bmin, cfg.bmax, cfg.cs, cfg.ch) ||
      !rcRasterizeTriangles(&ctx, t.verts.data(), t.areas.data(), int(t.never), *solid, cfg.walkableClimb) ||
      (never > 0 && !rcRasterizeTriangles(&ctx, t.verts.data() + 9 * t.never, t.areas.data() + t.never, never, *solid, -1))) {
    error = "rasterising";
    return nullptr;
  }
  // Spans a step up from walkable ground stay walkable (a stair's edge), but not never_ground ones
  // (kNeverGroundArea); ledges and spans without headroom for the capsule do not.
  rcFilterLowHangingWalkableObstacles(&ctx, cfg.walkableClimb, *solid);
  for (int i = 0; i < solid->width * solid->height; ++i)
    for (rcSpan* s = solid->spans[i]; s; s = s->next)
      if (s->area == kNeverGroundArea) s->area = RC_NULL_AREA;
  rcFilterLedgeSpans(&ctx, cfg.walkableHeight, cfg.walkableClimb, *solid);
  rcFilterWalkableLowHeightSpans(&ctx, cfg.walkableHeight, *solid);
  RecastPtr<rcCompactHeightfield> chf(rcAllocCompactHeightfield());
  if (!chf || !rcBuildCompactHeightfield(&ctx, cfg.walkableHeight, cfg.walkableClimb, *solid, *chf)) {
    error = "building the compact heightfield";
    return nullptr;
  }
  solid.reset();
  // The ground movers sweep, where a standing capsule would meet them: its own area, so that its
  // polygons are apart (mover_sweeps.h).
  for (const Aabb& b : sweeps) {
    if (!(b.lo.x <= b.hi.x)) continue;
    const float lo[3] = {float(b.lo.x - agent.radius), float(b.lo.y - agent.height), float(b.lo.z - agent.radius)};
    const float hi[3] = {float(b.hi.x + agent.radius), float(b.hi.y), float(b.hi.z + agent.radius)};
    if (lo[0] > cfg.bmax[0] || hi[0] < cfg.bmin[0] || lo[2] > cfg.bmax[2] || hi[2] < cfg.bmin[2]) continue;
    rcMarkBoxArea(&ctx, lo, hi, kMoverArea, *chf);
  }
  // Watershed regions: the best polygons for open levels, and what Recast's samples use by default.
  if (!rcErodeWalkableArea(&ctx, cfg.walkableRadius, *chf) || !rcBuildDistanceField(&ctx, *chf) ||
      !rcBuildRegions(&ctx, *chf, cfg.borderSize, cfg.minRegionArea, cfg.mergeRegionArea)) {
    error = "building regions";
    return nullptr;
  }
  return chf;
}

// The area and flag of a jump link: its own area (the default filter prices every area alike), walkable.
constexpr unsigned char kLinkArea = 1;

// Detour's data of `tile`'s polygons, with `links` as its off-mesh connections, into tile.data.
std::string create_data(TileBuild& tile, const NavAgent& agent, std::span<const JumpLink> links) {
  const rcPolyMesh& pmesh = *tile.polys;
  const rcPolyMeshDetail& dmesh = *tile.detail;
  std::vector<float> verts, radii;
  std::vector<unsigned short> flags;
  std::vector<unsigned char> areas, directions;
  std::vector<unsigned int> ids;
  for (std::size_t i = 0; i < links.size(); ++i) {
    verts.insert(verts.end(), links[i].start, links[i].start + 3);
    verts.insert(verts.end(), links[i].end, links[i].end + 3);
    radii.push_back(float(agent.cell_size));  // the ends lie on the mesh: a cell finds their polygons
    flags.push_back(kWalkFlag);
    areas.push_back(kLinkArea);
    directions.push_back(0);  // one way
    ids.push_back(unsigned(i));
  }
  dtNavMeshCreateParams params{};
  params.verts = pmesh.verts;
  params.vertCount = pmesh.nverts;
  params.polys = pmesh.polys;
  params.polyAreas = pmesh.areas;
  params.polyFlags = pmesh.flags;
  params.polyCount = pmesh.npolys;
  params.nvp = pmesh.nvp;
  params.detailMeshes = dmesh.meshes;
  params.detailVerts = dmesh.verts;
  params.detailVertsCount = dmesh.nverts;
  params.detailTris = dmesh.tris;
  params.detailTriCount = dmesh.ntris;
  params.offMeshConVerts = verts.data();
  params.offMeshConRad = radii.data();
  params.offMeshConFlags = flags.data();
  params.offMeshConAreas = areas.data();
  params.offMeshConDir = directions.data();
  params.offMeshConUserID = ids.data();
  params.offMeshConCount = int(links.size());
  params.walkableHeight = float(agent.height);
  params.walkableRadius = float(agent.radius);
  params.walkableClimb = float(agent.climb);
  params.tileX = tile.tile_x;
  params.tileY = tile.tile_z;
  params.tileLayer = 0;
  rcVcopy(params.bmin, pmesh.bmin);
  rcVcopy(params.bmax, pmesh.bmax);
  params.cs = float(agent.cell_size);
  params.ch = float(agent.cell_height);
  params.buildBvTree = true;
  unsigned char* data = nullptr;
  int size = 0;
  if (!dtCreateNavMeshData(&params, &data, &size))
    return "tile (" + std::to_string(tile.tile_x) + ", " + std::to_string(tile.tile_z) + "): Detour refused its " +
           std::to_string(pmesh.npolys) + " polygons and " + std::to_string(links.size()) +
           " links (more than 65535 vertices?)";
  tile.data.assign(data, data + size);
  dtFree(data);
  return "";
}

}  // namespace

TileLayout tile_layout(const World& world, const NavAgent& agent, int tile_cells) {
  TileLayout layout;
  layout.origin_x = world.bounds().lo.x;
  layout.origin_z = world.bounds().lo.z;
  layout.tile_cells = tile_cells;
  layout.tile_width = tile_cells * agent.cell_size;
  // Recast's samples: the erosion radius plus three cells, so that regions at a tile's edge are
  // shaped by what lies beyond it and the neighbouring tiles' polygons meet.
  layout.border_cells = int(std::ceil(agent.radius / agent.cell_size - 1e-9)) + 3;
  return layout;
}

uint8_t triangle_area(const WorldTriangle& t, const NavAgent& agent) {
  const double ny = t.tri.normal.y;
  bool walkable = false;
  switch (t.tag) {
    case SurfaceTag::kByNormal: walkable = ny >= agent.cos_max_slope; break;
    case SurfaceTag::kAlwaysGround: walkable = ny > 0; break;  // any upward contact grounds (movement.md §3.2)
    case SurfaceTag::kNeverGround: return kNeverGroundArea;
  }
  return walkable ? RC_WALKABLE_AREA : RC_NULL_AREA;
}

std::vector<uint8_t> triangle_areas(const World& world, const NavAgent& agent) {
  std::vector<uint8_t> areas(world.triangle_count(), RC_NULL_AREA);
  for (uint32_t i = 0; i < areas.size(); ++i) areas[i] = triangle_area(world.triangle(i), agent);
  return areas;
}

TileBuild build_tile(const World& world, const std::vector<uint8_t>& areas, const NavAgent& agent,
                     const TileLayout& layout, int tile_x, int tile_z, const std::vector<uint32_t>& triangles,
                     std::span<const WorldTriangle> extra, std::span<const Aabb> sweeps) {
  TileBuild out;
  out.tile_x = tile_x;
  out.tile_z = tile_z;
  if (triangles.empty() && extra.empty()) return out;
  const TileTriangles t = gather(world, areas, triangles, extra, agent);
  rcConfig cfg = tile_config(agent, layout);
  const double border = layout.border_cells * agent.cell_size;
  cfg.bmin[0] = float(layout.origin_x + tile_x * layout.tile_width - border);
  cfg.bmin[2] = float(layout.origin_z + tile_z * layout.tile_width - border);
  cfg.bmax[0] = float(layout.origin_x + (tile_x + 1) * layout.tile_width + border);
  cfg.bmax[2] = float(layout.origin_z + (tile_z + 1) * layout.tile_width + border);
  cfg.bmin[1] = t.y_min;
  cfg.bmax[1] = t.y_max;
  if ((t.y_max - t.y_min) / cfg.ch >= float(RC_SPAN_MAX_HEIGHT)) {
    out.error = "tile (" + std::to_string(tile_x) + ", " + std::to_string(tile_z) + ") spans more height than Recast's " +
                std::to_string(RC_SPAN_MAX_HEIGHT) + " cells of " + std::to_string(cfg.ch) + " m";
    return out;
  }
  rcContext ctx(false);
  std::string failed;
  RecastPtr<rcCompactHeightfield> chf = rasterise(ctx, cfg, t, sweeps, agent, failed);
  RecastPtr<rcContourSet> cset(chf ? rcAllocContourSet() : nullptr);
  RecastPtr<rcPolyMesh> pmesh(cset ? rcAllocPolyMesh() : nullptr);
  RecastPtr<rcPolyMeshDetail> dmesh(pmesh ? rcAllocPolyMeshDetail() : nullptr);
  if (chf && failed.empty() &&
      (!dmesh || !rcBuildContours(&ctx, *chf, cfg.maxSimplificationError, cfg.maxEdgeLen, *cset) ||
       !rcBuildPolyMesh(&ctx, *cset, cfg.maxVertsPerPoly, *pmesh) ||
       !rcBuildPolyMeshDetail(&ctx, *pmesh, *chf, cfg.detailSampleDist, cfg.detailSampleMaxError, *dmesh)))
    failed = "building polygons";
  if (!failed.empty()) {
    out.error = "tile (" + std::to_string(tile_x) + ", " + std::to_string(tile_z) + "): Recast failed " + failed;
    return out;
  }
  if (pmesh->npolys == 0) return out;
  for (int i = 0; i < pmesh->npolys; ++i)
    pmesh->flags[i] = pmesh->areas[i] == RC_WALKABLE_AREA || pmesh->areas[i] == kMoverArea ? kWalkFlag : 0;
  out.polys = std::shared_ptr<rcPolyMesh>(pmesh.release(), RecastDeleter{});
  out.detail = std::shared_ptr<rcPolyMeshDetail>(dmesh.release(), RecastDeleter{});
  out.polygons = out.polys->npolys;
  out.error = create_data(out, agent, {});
  return out;
}

std::string add_links(TileBuild& tile, const NavAgent& agent, std::span<const JumpLink> links) {
  return create_data(tile, agent, links);
}

}  // namespace foothold::nav
