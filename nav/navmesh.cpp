#include "nav/navmesh.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <utility>

#include <DetourAlloc.h>
#include <DetourNavMesh.h>
#include <DetourNavMeshQuery.h>

#include "nav/jump_links.h"
#include "nav/mover_sweeps.h"
#include "nav/regions.h"
#include "nav/tile_build.h"
#include "nav/tile_check.h"

namespace foothold::nav {
namespace {

// More tiles than this in the grid over a world's bounds is a world too large to bake at the
// agent's resolution (with 64-cell tiles of the reference character, about 8.7 km square).
constexpr std::size_t kMaxGridTiles = std::size_t(1) << 20;
// Detour's 32-bit polygon references (Debian builds it without DT_POLYREF64) hold a tile index, a
// polygon index and at least 10 bits of salt (dtNavMesh::init).
constexpr int kTileAndPolygonBits = 22;
// Search nodes of the queries that find jump links (rays and lookups: few).
constexpr int kLinkQueryNodes = 64;

// splitmix64 of a counter: random_point()'s draws, a pure function of (seed, k).
uint64_t draw(uint64_t seed, uint64_t k) {
  uint64_t z = seed + (k + 1) * 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
double unit(uint64_t seed, uint64_t k) { return double(draw(seed, k) >> 11) * 0x1p-53; }

int bits_for(uint64_t n) { return std::bit_width(std::bit_ceil(std::max<uint64_t>(n, 1))) - 1; }

// The triangles over each tile (and its border): (tile index z * tiles_x + x, triangle) pairs,
// sorted, so each tile's triangles are ascending whatever order they were found in.
std::vector<std::pair<uint32_t, uint32_t>> bin_triangles(const World& world, const TileLayout& layout, int tiles_x,
                                                         int tiles_z, double border) {
  std::vector<std::pair<uint32_t, uint32_t>> bins;
  bins.reserve(world.triangle_count() * 2);
  const auto tile_of = [&](double v, double origin, int count) {
    return std::clamp(int(std::floor((v - origin) / layout.tile_width)), 0, count - 1);
  };
  for (uint32_t i = 0; i < world.triangle_count(); ++i) {
    const WorldTriangle& t = world.triangle(i);
    const int x0 = tile_of(t.lo.x - border, layout.origin_x, tiles_x), x1 = tile_of(t.hi.x + border, layout.origin_x, tiles_x);
    const int z0 = tile_of(t.lo.z - border, layout.origin_z, tiles_z), z1 = tile_of(t.hi.z + border, layout.origin_z, tiles_z);
    for (int z = z0; z <= z1; ++z)
      for (int x = x0; x <= x1; ++x) bins.emplace_back(uint32_t(z * tiles_x + x), i);
  }
  std::sort(bins.begin(), bins.end());
  return bins;
}

}  // namespace

NavAgent agent_of(const MoveSettings& settings) {
  NavAgent a;
  a.radius = settings.radius;
  a.height = settings.height;
  a.climb = settings.step_height;
  a.max_slope_deg = settings.max_slope_deg;
  a.cos_max_slope = derive(settings).cos_max_slope;
  a.cell_size = settings.radius / 3;
  const double half = a.cell_size / 2;
  a.cell_height = a.climb > 0 ? a.climb / std::ceil(a.climb / half - 1e-9) : half;
  a.walk_speed = settings.walk_speed;
  a.jump_speed = settings.jump_speed;
  a.gravity = settings.gravity;
  if (settings.gravity > 0) {
    a.max_jump_rise = std::max(0.0, settings.jump_speed * settings.jump_speed / (2 * settings.gravity) - kJumpReserve);
    a.max_drop = kDropHeights * settings.height;
  }
  return a;
}

NavMesh::~NavMesh() { dtFreeNavMesh(detour_); }

NavMeshResult NavMesh::bake(const World& world, const MoveSettings& settings, const BakeOptions& options) {
  if (options.tile_cells < 16 || options.tile_cells > 1024)
    return {nullptr, "tile_cells " + std::to_string(options.tile_cells) + " is outside [16, 1024]"};
  std::unique_ptr<NavMesh> mesh(new NavMesh);
  mesh->world_hash_ = world.hash();
  mesh->settings_hash_ = settings.hash();
  mesh->agent_ = agent_of(settings);
  const TileLayout layout = tile_layout(world, mesh->agent_, options.tile_cells);
  const Aabb& b = world.bounds();
  const double tiles_x = std::floor((b.hi.x - layout.origin_x) / layout.tile_width) + 1;
  const double tiles_z = std::floor((b.hi.z - layout.origin_z) / layout.tile_width) + 1;
  if (tiles_x * tiles_z > double(kMaxGridTiles))
    return {nullptr, "world " + world.name() + " is too large to bake: " + std::to_string(int64_t(tiles_x)) + " x " +
                         std::to_string(int64_t(tiles_z)) + " tiles of " + std::to_string(layout.tile_width) +
                         " m (at most " + std::to_string(kMaxGridTiles) + ")"};
  const auto bins = bin_triangles(world, layout, int(tiles_x), int(tiles_z),
                                  layout.border_cells * mesh->agent_.cell_size);
  // The tiles with triangles, each a run [first, last) of bins.
  std::vector<std::pair<std::size_t, std::size_t>> runs;
  for (std::size_t i = 0; i < bins.size(); ++i)
    if (i == 0 || bins[i].first != bins[i - 1].first) runs.emplace_back(i, i);
  for (std::size_t r = 0; r < runs.size(); ++r) runs[r].second = r + 1 < runs.size() ? runs[r + 1].first : bins.size();

  mesh->areas_ = triangle_areas(world, mesh->agent_);
  mesh->sweeps_ = mover_sweeps(world);
  const std::vector<uint8_t>& areas = mesh->areas_;
  std::vector<TileBuild> built(runs.size());
  const int threads = options.threads ? options.threads->threads() : 1;
  const std::size_t batch = std::max<std::size_t>(16, std::size_t(4 * threads));
  for (std::size_t start = 0; start < runs.size(); start += batch) {
    const std::size_t count = std::min(batch, runs.size() - start);
    auto build = [&](std::size_t begin, std::size_t end, int) {
      std::vector<uint32_t> triangles;
      for (std::size_t k = start + begin; k < start + end; ++k) {
        const auto [first, last] = runs[k];
        triangles.clear();
        for (std::size_t i = first; i < last; ++i) triangles.push_back(bins[i].second);
        const uint32_t tile = bins[first].first;
        built[k] = build_tile(world, areas, mesh->agent_, layout, int(tile % uint32_t(tiles_x)),
                              int(tile / uint32_t(tiles_x)), triangles, {}, mesh->sweeps_);
      }
    };
    if (options.threads)
      options.threads->run(count, 1, build);
    else
      build(0, count, 0);
    if (options.progress) options.progress(start + count, runs.size());
  }
  bool walkable = false;
  for (const TileBuild& t : built) {
    if (!t.error.empty()) return {nullptr, "baking " + world.name() + ": " + t.error};
    walkable |= !t.data.empty();
  }
  if (!walkable) return {nullptr, "baking " + world.name() + ": no walkable surface for this character"};
  mesh->grid_.origin[0] = float(layout.origin_x);
  mesh->grid_.origin[1] = float(b.lo.y);
  mesh->grid_.origin[2] = float(layout.origin_z);
  mesh->grid_.tile_width = float(layout.tile_width);
  if (const std::string error = mesh->link_tiles(world, built, options.threads); !error.empty())
    return {nullptr, "baking " + world.name() + ": " + error};
  // Tile order (z, then x), whichever thread built which.
  for (TileBuild& t : built)
    if (!t.data.empty()) mesh->tiles_.push_back(std::move(t.data));
  return assemble(std::move(mesh));
}

std::string NavMesh::link_tiles(const World& world, std::vector<TileBuild>& built, ParallelFor* threads) const {
  if (!(agent_.max_jump_rise > 0) && !(agent_.max_drop > 0)) return "";
  // Pass one: the tiles as built, in a mesh of their own, to search.
  std::unique_ptr<NavMesh> first(new NavMesh);
  first->world_hash_ = world_hash_;
  first->settings_hash_ = settings_hash_;
  first->agent_ = agent_;
  first->grid_ = grid_;
  std::vector<std::size_t> kept;  // the indices into `built` of the tiles with polygons, ascending
  for (std::size_t k = 0; k < built.size(); ++k) {
    if (built[k].data.empty()) continue;
    first->tiles_.push_back(built[k].data);
    kept.push_back(k);
  }
  const NavMeshResult searched = assemble(std::move(first));
  if (!searched.mesh) return searched.error;
  const dtNavMesh& detour = searched.mesh->detour();
  const int workers = threads ? threads->threads() : 1;
  std::vector<std::unique_ptr<dtNavMeshQuery, void (*)(dtNavMeshQuery*)>> queries;
  for (int w = 0; w < workers; ++w) {
    queries.emplace_back(dtAllocNavMeshQuery(), dtFreeNavMeshQuery);
    if (!queries.back() || dtStatusFailed(queries.back()->init(&detour, kLinkQueryNodes))) return "out of memory for a query";
  }
  std::vector<QueryScratch> scratch(static_cast<std::size_t>(workers));
  std::vector<std::vector<JumpLink>> found(kept.size());
  auto find = [&](std::size_t begin, std::size_t end, int worker) {
    for (std::size_t k = begin; k < end; ++k) {
      const TileBuild& t = built[kept[k]];
      if (const dtMeshTile* tile = detour.getTileAt(t.tile_x, t.tile_z, 0); tile && tile->header)
        find_jump_links(detour, *queries[std::size_t(worker)], *tile, world, agent_, scratch[std::size_t(worker)], found[k]);
    }
  };
  if (threads)
    threads->run(kept.size(), 1, find);
  else
    find(0, kept.size(), 0);
  // Pass two: each link in the tile that holds its start, in the order found; those tiles made again.
  std::vector<std::vector<JumpLink>> held(built.size());
  for (const std::vector<JumpLink>& links : found)
    for (const JumpLink& l : links) {
      const auto at = std::lower_bound(kept.begin(), kept.end(), l, [&](std::size_t k, const JumpLink& v) {
        return std::pair(built[k].tile_z, built[k].tile_x) < std::pair(v.tile_z, v.tile_x);
      });
      if (at != kept.end() && built[*at].tile_x == l.tile_x && built[*at].tile_z == l.tile_z) held[*at].push_back(l);
    }
  for (std::size_t k = 0; k < built.size(); ++k)
    if (!held[k].empty())
      if (std::string error = add_links(built[k], agent_, held[k]); !error.empty()) return error;
  return "";
}

NavMeshResult NavMesh::assemble(std::unique_ptr<NavMesh> mesh) {
  int max_polygons = 0;
  for (std::size_t k = 0; k < mesh->tiles_.size(); ++k) {
    const std::vector<uint8_t>& t = mesh->tiles_[k];
    const std::string error = check_tile(t.data(), t.size());
    if (!error.empty()) return {nullptr, "tile " + std::to_string(k) + ": " + error};
    dtMeshHeader h;
    std::memcpy(&h, t.data(), sizeof h);
    max_polygons = std::max(max_polygons, h.polyCount);
  }
  mesh->count();
  const int tile_bits = bits_for(mesh->tiles_.size()), polygon_bits = bits_for(uint64_t(max_polygons));
  if (tile_bits + polygon_bits > kTileAndPolygonBits)
    return {nullptr, std::to_string(mesh->tiles_.size()) + " tiles of up to " + std::to_string(max_polygons) +
                         " polygons do not fit Detour's 32-bit polygon references (use larger or smaller tiles)"};
  // Room for rebuild(): spare tiles, and tiles twice as rich, where the references still hold them.
  std::size_t max_tiles = std::max<std::size_t>(4, mesh->tiles_.size());
  if (bits_for(max_tiles + kSpareTiles) + bits_for(uint64_t(2 * max_polygons)) <= kTileAndPolygonBits) {
    max_tiles += kSpareTiles;
    max_polygons *= 2;
  }
  mesh->max_tile_polygons_ = max_polygons;
  dtNavMeshParams params{};
  std::memcpy(params.orig, mesh->grid_.origin, sizeof params.orig);
  params.tileWidth = params.tileHeight = mesh->grid_.tile_width;
  params.maxTiles = int(max_tiles);
  params.maxPolys = max_polygons;
  mesh->detour_ = dtAllocNavMesh();
  if (!mesh->detour_ || dtStatusFailed(mesh->detour_->init(&params))) return {nullptr, "Detour refused the mesh's parameters"};
  for (std::size_t k = 0; k < mesh->tiles_.size(); ++k) {
    const std::vector<uint8_t>& t = mesh->tiles_[k];
    // Detour keeps (and rewrites the links of) its own copy; ours stays as built, for to_bytes().
    auto* copy = static_cast<unsigned char*>(dtAlloc(int(t.size()), DT_ALLOC_PERM));
    if (!copy) return {nullptr, "out of memory for tile " + std::to_string(k)};
    std::memcpy(copy, t.data(), t.size());
    const dtStatus status = mesh->detour_->addTile(copy, int(t.size()), DT_TILE_FREE_DATA, 0, nullptr);
    if (dtStatusFailed(status)) {
      dtFree(copy);
      return {nullptr, "tile " + std::to_string(k) + ": Detour refused it" +
                           (dtStatusDetail(status, DT_ALREADY_OCCUPIED) ? " (another tile holds its place)" : "")};
    }
  }
  mesh->index_surface();
  return {std::move(mesh), ""};
}

void NavMesh::count() {
  stats_ = {};
  for (const std::vector<uint8_t>& t : tiles_) {
    dtMeshHeader h;
    std::memcpy(&h, t.data(), sizeof h);
    stats_.polygons += std::size_t(h.offMeshBase);
    stats_.links += std::size_t(h.offMeshConCount);
  }
  stats_.tiles = tiles_.size();
}

NavRebuild NavMesh::rebuild(const World& world, const Aabb& region, std::span<const WorldTriangle> extra) {
  NavRebuild out;
  if (!(region.lo.x <= region.hi.x && region.lo.z <= region.hi.z)) return out;  // empty, or not finite
  const int cells = int(std::lround(double(grid_.tile_width) / agent_.cell_size));
  const TileLayout layout = tile_layout(world, agent_, cells);
  const Aabb& b = world.bounds();
  const int tiles_x = int(std::floor((b.hi.x - layout.origin_x) / layout.tile_width)) + 1;
  const int tiles_z = int(std::floor((b.hi.z - layout.origin_z) / layout.tile_width)) + 1;
  // Held to the grid's range in double first: a region far outside it (or not finite) rebuilds nothing.
  const auto tile_of = [&](double v, double origin) {
    const double t = std::floor((v - origin) / layout.tile_width);
    return t >= -1 && t <= double(kMaxGridTiles) ? int(t) : (t > 0 ? int(kMaxGridTiles) : -1);
  };
  const int x0 = std::max(0, tile_of(region.lo.x, layout.origin_x));
  const int x1 = std::min(tiles_x - 1, tile_of(region.hi.x, layout.origin_x));
  const int z0 = std::max(0, tile_of(region.lo.z, layout.origin_z));
  const int z1 = std::min(tiles_z - 1, tile_of(region.hi.z, layout.origin_z));
  if (areas_.size() != world.triangle_count()) {  // a loaded mesh's first rebuild
    areas_ = triangle_areas(world, agent_);
    sweeps_ = mover_sweeps(world);
  }
  const double border = layout.border_cells * agent_.cell_size;
  std::vector<uint32_t> triangles;
  std::vector<WorldTriangle> over;
  for (int z = z0; z <= z1; ++z)
    for (int x = x0; x <= x1; ++x) {
      // What lies over the tile and its border, as bake() bins it.
      const double lo_x = layout.origin_x + x * layout.tile_width - border, hi_x = lo_x + layout.tile_width + 2 * border;
      const double lo_z = layout.origin_z + z * layout.tile_width - border, hi_z = lo_z + layout.tile_width + 2 * border;
      const auto overlaps = [&](const WorldTriangle& t) { return t.hi.x >= lo_x && t.lo.x <= hi_x && t.hi.z >= lo_z && t.lo.z <= hi_z; };
      // The world's tree finds them (ascending), a hair wide so that one touching the edge is kept;
      // the same test as the bake's then says which are over the tile.
      constexpr double kHair = 1e-6;
      world.collect({{lo_x - kHair, b.lo.y - 1, lo_z - kHair}, {hi_x + kHair, b.hi.y + 1, hi_z + kHair}}, triangles);
      std::erase_if(triangles, [&](uint32_t i) { return !overlaps(world.triangle(i)); });
      over.clear();
      for (const WorldTriangle& t : extra)
        if (overlaps(t)) over.push_back(t);
      TileBuild built = build_tile(world, areas_, agent_, layout, x, z, triangles, over, sweeps_);
      if (built.error.empty()) built.error = replace_tile(x, z, built);
      if (!built.error.empty()) {
        out.error = built.error;
        break;
      }
      ++out.tiles;
    }
  count();
  index_surface();
  return out;
}

std::string NavMesh::replace_tile(int x, int z, TileBuild& built) {
  const std::string where = "tile (" + std::to_string(x) + ", " + std::to_string(z) + ")";
  // The jump links it was baked with (each held by the tile of its start), kept.
  std::vector<JumpLink> links;
  if (const dtMeshTile* old = detour_->getTileAt(x, z, 0); old && old->header)
    for (int i = 0; i < old->header->offMeshConCount; ++i) {
      JumpLink& l = links.emplace_back();
      std::memcpy(l.start, old->offMeshCons[i].pos, sizeof l.start);
      std::memcpy(l.end, old->offMeshCons[i].pos + 3, sizeof l.end);
      l.tile_x = x;
      l.tile_z = z;
    }
  if (!built.data.empty() && !links.empty())
    if (std::string error = add_links(built, agent_, links); !error.empty()) return error;
  if (built.polygons > max_tile_polygons_)
    return where + ": " + std::to_string(built.polygons) + " polygons, more than the mesh has room for (" +
           std::to_string(max_tile_polygons_) + ")";
  if (const dtTileRef ref = detour_->getTileRefAt(x, z, 0); ref != 0) detour_->removeTile(ref, nullptr, nullptr);
  // tiles_ in tile order (z, then x), as bake() and to_bytes() keep it.
  const auto at = std::lower_bound(tiles_.begin(), tiles_.end(), std::pair(z, x), [](const std::vector<uint8_t>& t, std::pair<int, int> v) {
    dtMeshHeader h;
    std::memcpy(&h, t.data(), sizeof h);
    return std::pair(h.y, h.x) < v;
  });
  const bool held = at != tiles_.end() && [&] {
    dtMeshHeader h;
    std::memcpy(&h, at->data(), sizeof h);
    return h.x == x && h.y == z;
  }();
  if (built.data.empty()) {
    if (held) tiles_.erase(at);
    return "";
  }
  auto* copy = static_cast<unsigned char*>(dtAlloc(int(built.data.size()), DT_ALLOC_PERM));
  if (!copy) return where + ": out of memory";
  std::memcpy(copy, built.data.data(), built.data.size());
  if (dtStatusFailed(detour_->addTile(copy, int(built.data.size()), DT_TILE_FREE_DATA, 0, nullptr))) {
    dtFree(copy);
    if (held) tiles_.erase(at);  // Detour no longer has it either
    return where + ": no room for it in the mesh (" + std::to_string(kSpareTiles) + " tiles beyond the baked ones)";
  }
  if (held)
    *at = std::move(built.data);
  else
    tiles_.insert(at, std::move(built.data));
  return "";
}

void NavMesh::index_surface() {
  // Every detail triangle of every polygon, with its polygon's region; then those of the largest
  // region (by horizontal area; of equals, the first found) are kept for random_point().
  struct Found {
    uint32_t region;
    bool swept;  // ground a mover sweeps: drawn only when the main region has no other
    double area;
    Vec3 a, b, c;
  };
  std::vector<Found> found;
  const PolygonRegions regions = find_regions(*detour_, tiles_);
  std::vector<double> region_area(regions.count, 0.0);
  for (std::size_t k = 0; k < tiles_.size(); ++k) {
    const std::vector<uint8_t>& t = tiles_[k];
    // The tile passed check_tile(): every index below is within its arrays.
    dtMeshHeader h;
    std::memcpy(&h, t.data(), sizeof h);
    const auto align4 = [](std::size_t n) { return (n + 3) & ~std::size_t(3); };
    const std::size_t verts_at = align4(sizeof h), polys_at = verts_at + align4(12 * std::size_t(h.vertCount));
    const std::size_t meshes_at = polys_at + align4(sizeof(dtPoly) * h.polyCount) + align4(sizeof(dtLink) * h.maxLinkCount);
    const std::size_t dverts_at = meshes_at + align4(sizeof(dtPolyDetail) * h.detailMeshCount);
    const std::size_t dtris_at = dverts_at + align4(12 * std::size_t(h.detailVertCount));
    const auto* verts = reinterpret_cast<const float*>(t.data() + verts_at);
    const auto* polys = reinterpret_cast<const dtPoly*>(t.data() + polys_at);
    const auto* meshes = reinterpret_cast<const dtPolyDetail*>(t.data() + meshes_at);
    const auto* dverts = reinterpret_cast<const float*>(t.data() + dverts_at);
    const uint8_t* dtris = t.data() + dtris_at;
    for (int i = 0; i < h.offMeshBase; ++i) {
      const dtPoly& p = polys[i];
      const dtPolyDetail& d = meshes[i];
      const bool swept = p.getArea() == kMoverArea;
      const uint32_t region = regions.region[regions.first[k] + std::size_t(i)];
      const auto vertex = [&](uint8_t v) {
        const float* f = v < p.vertCount ? verts + 3 * p.verts[v] : dverts + 3 * (d.vertBase + (v - p.vertCount));
        return Vec3{f[0], f[1], f[2]};
      };
      for (unsigned j = 0; j < d.triCount; ++j) {
        const uint8_t* tri = dtris + 4 * (std::size_t(d.triBase) + j);
        const Vec3 a = vertex(tri[0]), b = vertex(tri[1]), c = vertex(tri[2]);
        const double area = std::fabs((b.x - a.x) * (c.z - a.z) - (c.x - a.x) * (b.z - a.z)) / 2;
        if (!(area > 0)) continue;
        found.push_back({region, swept, area, a, b, c});
        region_area[region] += area;
      }
    }
  }
  uint32_t main = 0;
  for (uint32_t r = 1; r < regions.count; ++r)
    if (region_area[r] > region_area[main]) main = r;
  regions_ = regions.count;
  const bool unswept = std::any_of(found.begin(), found.end(), [&](const Found& f) { return f.region == main && !f.swept; });
  surface_.clear();
  surface_area_ = 0;
  for (const Found& f : found) {
    if (f.region != main || (unswept && f.swept)) continue;
    surface_.push_back({surface_area_, f.a, f.b, f.c});
    surface_area_ += f.area;
  }
}

Vec3 NavMesh::random_point(uint64_t seed) const {
  if (surface_.empty()) return {};
  const double target = unit(seed, 0) * surface_area_;
  auto it = std::upper_bound(surface_.begin(), surface_.end(), target,
                             [](double v, const SurfaceTriangle& t) { return v < t.area_before; });
  const SurfaceTriangle& t = *(it == surface_.begin() ? it : it - 1);
  double r = unit(seed, 1), s = unit(seed, 2);
  if (r + s > 1) {  // the other half of the parallelogram, folded back
    r = 1 - r;
    s = 1 - s;
  }
  return t.a + (t.b - t.a) * r + (t.c - t.a) * s;
}

}  // namespace foothold::nav
