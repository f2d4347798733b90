#include "nav/jump_links.h"

#include <algorithm>
#include <cfloat>
#include <cmath>

#include <DetourNavMesh.h>
#include <DetourNavMeshQuery.h>

namespace foothold::nav {
namespace {

// How far past the two radii (the mesh's margin on either side of a wall or an edge) a link looks
// for the other level, metres: just past them, then farther, for a rounded or sloping edge.
constexpr float kProbeBeyond[] = {0.2f, 0.6f};
// Metres the feet clear the ledge by before the character is over it; and the run-up's margin.
constexpr double kRiseMargin = 0.1;
constexpr double kRunUpMargin = 0.1;
// How far inside its polygon a boundary sample is taken (its height, a drop's start), metres.
constexpr float kInside = 0.05f;
// The run-up, as shares of the one a jump wants, tried in turn where the mesh is short of room.
constexpr double kRunUpShares[] = {1.0, 0.75, 0.5};
constexpr int kMaxCandidates = 16;

struct Surface {
  dtPolyRef ref = 0;
  float y = 0;
};

// The mesh's surface over (x, z) with its height in [lo, hi]: the lowest such or the highest.
bool surface_at(const dtNavMeshQuery& query, float x, float z, float lo, float hi, bool lowest, Surface& out) {
  if (!(hi >= lo)) return false;
  const float centre[3] = {x, (lo + hi) / 2, z}, half[3] = {0.05f, (hi - lo) / 2 + 0.01f, 0.05f};
  const dtQueryFilter filter;
  dtPolyRef refs[kMaxCandidates];
  int count = 0;
  if (dtStatusFailed(query.queryPolygons(centre, half, &filter, refs, &count, kMaxCandidates))) return false;
  bool found = false;
  for (int i = 0; i < count; ++i) {
    float h = 0;
    if (dtStatusFailed(query.getPolyHeight(refs[i], centre, &h)) || h < lo || h > hi) continue;
    if (!found || (lowest ? h < out.y : h > out.y)) out = {refs[i], h};
    found = true;
  }
  return found;
}

// Whether the segment meets a static triangle of the world.
bool blocked(const World& world, const Vec3& from, const Vec3& to, QueryScratch& scratch) {
  const Vec3 d = to - from;
  const double len = length(d);
  return len > 0 && cast_ray(world, nullptr, {}, from, d, len, 0, scratch).kind != RayHit::Kind::kNone;
}

// Nothing of the world between a character at `lower` and the ledge at `upper`: up at the lower end
// to a capsule's height over the upper level, then across at the upper level (feet and head).
bool way_clear(const World& world, const Vec3& lower, const Vec3& upper, const NavAgent& agent, QueryScratch& scratch) {
  if (blocked(world, lower + Vec3{0, 0.1, 0}, {lower.x, upper.y + agent.height, lower.z}, scratch)) return false;
  for (const double above : {0.3, agent.height - 0.2})
    if (blocked(world, {lower.x, upper.y + above, lower.z}, {upper.x, upper.y + above, upper.z}, scratch)) return false;
  return true;
}

bool linked(const dtMeshTile& tile, const dtPoly& poly, int edge) {
  for (unsigned k = poly.firstLink; k != DT_NULL_LINK; k = tile.links[k].next)
    if (tile.links[k].edge == edge) return true;
  return false;
}

// One boundary sample: where it is and which way is out.
struct Sample {
  dtPolyRef ref = 0;     // its polygon
  Vec3 at;               // on the boundary, at the polygon's height just inside it
  double out_x = 0, out_z = 0;  // unit, horizontal, away from the polygon
};

class Finder {
 public:
  Finder(const dtNavMesh& mesh, const dtNavMeshQuery& query, const World& world, const NavAgent& agent,
         QueryScratch& scratch, std::vector<JumpLink>& out)
      : mesh_(mesh), query_(query), world_(world), agent_(agent), scratch_(scratch), out_(out), first_(out.size()) {
    step_ = float(agent.climb + agent.cell_height);  // a rise the step does not take
  }

  bool full() const { return out_.size() - first_ >= std::size_t(kMaxTileLinks); }

  void sample(const Sample& s) {
    if (agent_.max_jump_rise > step_) jump_up(s);
    if (agent_.max_drop > step_) drop_down(s);
  }

 private:
  Vec3 out_from(const Sample& s, double d) const { return {s.at.x + s.out_x * d, s.at.y, s.at.z + s.out_z * d}; }

  void jump_up(const Sample& s) {
    for (const float beyond : kProbeBeyond) {
      const Vec3 q = out_from(s, 2 * agent_.radius + beyond);
      Surface top;
      if (!surface_at(query_, float(q.x), float(q.z), float(s.at.y) + step_, float(s.at.y + agent_.max_jump_rise), true, top))
        continue;
      const Vec3 upper{q.x, top.y, q.z};
      if (!way_clear(world_, s.at, upper, agent_, scratch_)) return;
      // The run the character makes while its feet rise past the ledge: it takes off that far back.
      const double h = upper.y - s.at.y + kRiseMargin, v = agent_.jump_speed, g = agent_.gravity;
      const double disc = v * v - 2 * g * h;
      if (disc < 0) return;
      const double run = agent_.walk_speed * (v - std::sqrt(disc)) / g + kRunUpMargin;
      for (const double share : kRunUpShares) {
        const Vec3 t = out_from(s, -run * share);
        Surface ground;
        if (!surface_at(query_, float(t.x), float(t.z), float(s.at.y - agent_.climb), float(s.at.y + agent_.climb), true,
                        ground) ||
            !walkable(ground.ref, {t.x, ground.y, t.z}, s.at))
          continue;
        add({t.x, ground.y, t.z}, ground.ref, upper, true);
        return;
      }
      return;
    }
  }

  void drop_down(const Sample& s) {
    for (const float beyond : kProbeBeyond) {
      const Vec3 q = out_from(s, 2 * agent_.radius + beyond);
      Surface below;
      if (!surface_at(query_, float(q.x), float(q.z), float(s.at.y - agent_.max_drop), float(s.at.y) - step_, false, below))
        continue;
      const Vec3 lower{q.x, below.y, q.z};
      if (way_clear(world_, lower, s.at, agent_, scratch_)) add(s.at, s.ref, lower, false);
      return;
    }
  }

  // The mesh's straight way from `from` (on polygon `ref`) to `to`, unbroken.
  bool walkable(dtPolyRef ref, const Vec3& from, const Vec3& to) const {
    const float a[3] = {float(from.x), float(from.y), float(from.z)}, b[3] = {float(to.x), float(to.y), float(to.z)};
    const dtQueryFilter filter;
    float t = 0, normal[3];
    int count = 0;
    dtPolyRef path[64];
    return dtStatusSucceed(query_.raycast(ref, a, b, &filter, &t, normal, path, &count, 64)) && t == FLT_MAX;
  }

  void add(const Vec3& start, dtPolyRef start_ref, const Vec3& end, bool up) {
    for (std::size_t i = first_; i < out_.size(); ++i) {
      const JumpLink& l = out_[i];
      const double dx = l.start[0] - start.x, dz = l.start[2] - start.z;
      if (l.up == up && dx * dx + dz * dz < kLinkSpacing * kLinkSpacing && std::fabs(l.start[1] - start.y) < step_) return;
    }
    const dtMeshTile* tile = nullptr;
    const dtPoly* poly = nullptr;
    mesh_.getTileAndPolyByRefUnsafe(start_ref, &tile, &poly);
    JumpLink l;
    l.start[0] = float(start.x);
    l.start[1] = float(start.y);
    l.start[2] = float(start.z);
    l.end[0] = float(end.x);
    l.end[1] = float(end.y);
    l.end[2] = float(end.z);
    l.up = up;
    l.tile_x = tile->header->x;
    l.tile_z = tile->header->y;
    out_.push_back(l);
  }

  const dtNavMesh& mesh_;
  const dtNavMeshQuery& query_;
  const World& world_;
  const NavAgent& agent_;
  QueryScratch& scratch_;
  std::vector<JumpLink>& out_;
  std::size_t first_;
  float step_ = 0;
};

}  // namespace

void find_jump_links(const dtNavMesh& mesh, const dtNavMeshQuery& query, const dtMeshTile& tile, const World& world,
                     const NavAgent& agent, QueryScratch& scratch, std::vector<JumpLink>& out) {
  Finder finder(mesh, query, world, agent, scratch, out);
  const dtPolyRef base = mesh.getPolyRefBase(&tile);
  for (int i = 0; i < tile.header->polyCount && !finder.full(); ++i) {
    const dtPoly& poly = tile.polys[i];
    if (poly.getType() != DT_POLYTYPE_GROUND) continue;
    double cx = 0, cz = 0;
    for (int k = 0; k < poly.vertCount; ++k) {
      cx += tile.verts[3 * poly.verts[k]];
      cz += tile.verts[3 * poly.verts[k] + 2];
    }
    cx /= poly.vertCount;
    cz /= poly.vertCount;
    for (int e = 0; e < poly.vertCount && !finder.full(); ++e) {
      if (linked(tile, poly, e)) continue;
      const float* a = &tile.verts[3 * poly.verts[e]];
      const float* b = &tile.verts[3 * poly.verts[(e + 1) % poly.vertCount]];
      const double dx = b[0] - a[0], dz = b[2] - a[2], len = std::sqrt(dx * dx + dz * dz);
      if (!(len > 1e-3)) continue;
      Sample s;
      s.ref = base | dtPolyRef(i);
      s.out_x = dz / len;
      s.out_z = -dx / len;
      if (((a[0] + b[0]) / 2 - cx) * s.out_x + ((a[2] + b[2]) / 2 - cz) * s.out_z < 0) {
        s.out_x = -s.out_x;
        s.out_z = -s.out_z;
      }
      const int samples = std::max(1, int(len / kLinkSpacing));
      for (int k = 0; k < samples && !finder.full(); ++k) {
        const double t = (k + 0.5) / samples;
        float inside[3] = {float(a[0] + t * dx - s.out_x * kInside), float(a[1] + t * (b[1] - a[1])),
                           float(a[2] + t * dz - s.out_z * kInside)};
        float h = inside[1];
        if (dtStatusSucceed(query.getPolyHeight(s.ref, inside, &h))) inside[1] = h;
        s.at = {inside[0], inside[1], inside[2]};
        finder.sample(s);
      }
    }
  }
}

}  // namespace foothold::nav
