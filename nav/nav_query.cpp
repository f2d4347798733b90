#include "nav/nav_query.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <tuple>
#include <utility>
#include <type_traits>

#include <DetourNavMesh.h>
#include <DetourNavMeshQuery.h>

#include "nav/mover_sweeps.h"

namespace foothold::nav {
namespace {

static_assert(std::is_same_v<dtPolyRef, uint32_t>, "Debian's Detour: 32-bit polygon references");

// A straight path with every polygon edge it crosses: a corner and a crossing per polygon at most.
constexpr int kMaxCrossings = 2 * NavQuery::kMaxPathPolygons;

void to_float(const Vec3& v, float out[3]) {
  out[0] = float(v.x);
  out[1] = float(v.y);
  out[2] = float(v.z);
}
Vec3 to_vec(const float v[3]) { return {v[0], v[1], v[2]}; }

}  // namespace

NavQuery::NavQuery(const NavMesh& mesh)
    : polys_(kMaxPathPolygons),
      straight_(3 * kMaxPathPolygons),
      flags_(kMaxPathPolygons),
      crossings_(3 * kMaxCrossings),
      crossing_flags_(kMaxCrossings),
      crossing_refs_(kMaxCrossings) {
  query_ = dtAllocNavMeshQuery();
  // A mesh from bake() or load() is one Detour accepted; init fails only without memory.
  if (!query_ || dtStatusFailed(query_->init(&mesh.detour(), kSearchNodes))) {
    dtFreeNavMeshQuery(query_);
    query_ = nullptr;
  }
  const NavAgent& a = mesh.agent();
  const double across = std::max(1.0, 2 * a.radius);
  extents_ = {across, a.height, across};
  narrow_width_ = 4 * a.radius;
}

NavQuery::~NavQuery() { dtFreeNavMeshQuery(query_); }

bool NavQuery::nearest_point(const Vec3& p, Vec3& out) {
  if (!query_) return false;
  float centre[3], extents[3], nearest[3];
  to_float(p, centre);
  to_float(extents_, extents);
  const dtQueryFilter filter;
  dtPolyRef ref = 0;
  if (dtStatusFailed(query_->findNearestPoly(centre, extents, &filter, &ref, nearest)) || ref == 0) return false;
  out = to_vec(nearest);
  return true;
}

PathResult NavQuery::find_path(const Vec3& from, const Vec3& to) {
  PathResult result;
  if (!query_) {
    result.why = NoPathReason::kSearchFailed;
    return result;
  }
  // Every polygon with a flag (all walkable ones: tile_build.cpp); the ground movers sweep dearer.
  dtQueryFilter filter;
  filter.setAreaCost(kMoverArea, kMoverAreaCost);
  float extents[3], start[3], goal[3], start_on[3], goal_on[3];
  to_float(extents_, extents);
  to_float(from, start);
  to_float(to, goal);
  dtPolyRef start_ref = 0, goal_ref = 0;
  if (dtStatusFailed(query_->findNearestPoly(start, extents, &filter, &start_ref, start_on)) || start_ref == 0) {
    result.why = NoPathReason::kStartOffMesh;
    return result;
  }
  if (dtStatusFailed(query_->findNearestPoly(goal, extents, &filter, &goal_ref, goal_on)) || goal_ref == 0) {
    result.why = NoPathReason::kGoalOffMesh;
    return result;
  }
  // In the open, walk straight: Detour's polygon search prices a path by its polygons' edge
  // midpoints, so on a floor split into tiles it may pick a corridor with a needless corner where
  // tiles meet. A ray along the mesh that reaches the goal's own polygon is the path, unless it
  // crosses ground a mover sweeps, which the search may go round.
  int count = 0;
  float t = 0, normal[3];
  const auto swept = [&](dtPolyRef ref) {
    unsigned char area = 0;
    return dtStatusSucceed(query_->getAttachedNavMesh()->getPolyArea(ref, &area)) && area == kMoverArea;
  };
  if (dtStatusSucceed(query_->raycast(start_ref, start_on, goal_on, &filter, &t, normal, polys_.data(), &count,
                                      kMaxPathPolygons)) &&
      t == FLT_MAX && count > 0 && polys_[std::size_t(count - 1)] == goal_ref &&
      std::none_of(polys_.begin(), polys_.begin() + count, swept)) {
    result.status = PathStatus::kFound;
    result.polygons = count;
    result.corners = {to_vec(start_on), to_vec(goal_on)};
    result.legs = {Leg::kWalk, Leg::kWalk};
    find_narrows(start_on, goal_on, count, result);
    return result;
  }
  count = 0;
  const dtStatus status = query_->findPath(start_ref, goal_ref, start_on, goal_on, &filter, polys_.data(), &count,
                                           kMaxPathPolygons);
  if (dtStatusFailed(status) || count == 0) {
    result.why = NoPathReason::kSearchFailed;
    return result;
  }
  // Detour ends a partial path at the polygon nearest the goal: walk to the point of it nearest the goal.
  const bool partial = dtStatusDetail(status, DT_PARTIAL_RESULT) || polys_[std::size_t(count - 1)] != goal_ref;
  float end[3] = {goal_on[0], goal_on[1], goal_on[2]};
  if (partial && dtStatusFailed(query_->closestPointOnPoly(polys_[std::size_t(count - 1)], goal_on, end, nullptr))) {
    result.why = NoPathReason::kSearchFailed;
    return result;
  }
  int corners = 0;
  if (dtStatusFailed(query_->findStraightPath(start_on, end, polys_.data(), count, straight_.data(), flags_.data(),
                                              nullptr, &corners, kMaxPathPolygons)) ||
      corners == 0) {
    result.why = NoPathReason::kSearchFailed;
    return result;
  }
  result.status = partial ? PathStatus::kPartial : PathStatus::kFound;
  result.polygons = count;
  result.corners.reserve(std::size_t(corners));
  for (int i = 0; i < corners; ++i) result.corners.push_back(to_vec(&straight_[3 * std::size_t(i)]));
  // An off-mesh link starts at a corner flagged so; it goes up (a jump) or down (a drop) to the next.
  result.legs.assign(result.corners.size(), Leg::kWalk);
  for (std::size_t i = 0; i + 1 < result.corners.size(); ++i)
    if (flags_[i] & DT_STRAIGHTPATH_OFFMESH_CONNECTION)
      result.legs[i] = result.corners[i + 1].y > result.corners[i].y ? Leg::kJump : Leg::kDrop;
  find_narrows(start_on, end, count, result);
  return result;
}

void NavQuery::find_narrows(const float start[3], const float end[3], int count, PathResult& result) {
  // Detour's funnel again, now with a vertex where the path crosses each polygon edge (the corners
  // come out as they did, the crossings between them). Between two vertices the path lies in one
  // polygon (the one entered at the first): the width is measured at the middle, inside it, and a
  // narrow polygon's two vertices are where the path enters and leaves the narrow place. (At the
  // crossings themselves it could not always be: a path that turns round a door's jamb has its
  // corners where it crosses the door's edges.)
  int n = 0;
  const dtStatus status =
      query_->findStraightPath(start, end, polys_.data(), count, crossings_.data(), crossing_flags_.data(),
                               crossing_refs_.data(), &n, kMaxCrossings, DT_STRAIGHTPATH_ALL_CROSSINGS);
  if (dtStatusFailed(status)) return;
  std::size_t leg = 0;  // the leg the vertices lie on: from corners[leg] to corners[leg + 1]
  for (int j = 0; j + 1 < n; ++j) {
    const Vec3 a = to_vec(&crossings_[3 * std::size_t(j)]), b = to_vec(&crossings_[3 * std::size_t(j + 1)]);
    if (j > 0 && leg + 1 < result.corners.size() && a == result.corners[leg + 1]) ++leg;  // a corner of the path
    if (leg + 1 >= result.corners.size() || result.legs[leg] != Leg::kWalk) continue;  // over a link: not walked
    Vec3 way = b - a;
    if (way.x * way.x + way.z * way.z < 1e-6) way = result.corners[leg + 1] - result.corners[leg];
    const double len = std::sqrt(way.x * way.x + way.z * way.z);
    if (!(len > 0)) continue;
    Vec3 axis;
    const Vec3 middle = (a + b) * 0.5;
    float at[3];
    to_float(middle, at);
    const double width = width_across(crossing_refs_[std::size_t(j)], at, way.x / len, way.z / len, axis);
    if (!(width >= 0 && width < narrow_width_)) continue;
    if (result.narrows.empty() || !(result.narrows.back().point == a)) result.narrows.push_back({a, uint32_t(leg), width, axis});
    result.narrows.push_back({b, uint32_t(leg), width, axis});
  }
}

double NavQuery::chord(uint32_t ref, const float at[3], double cx, double cz, double limit) {
  const dtQueryFilter filter;
  double width = 0;
  for (const double side : {1.0, -1.0}) {
    const double reach = limit - width;
    const float to[3] = {at[0] + float(cx * side * reach), at[1], at[2] + float(cz * side * reach)};
    float t = 0, normal[3];
    int visited = 0;
    if (dtStatusFailed(query_->raycast(ref, at, to, &filter, &t, normal, nullptr, &visited, 0))) return -1;
    if (t == 0) return -1;  // `at` is not in the polygon (an edge of a sliver): not measured here
    if (t == FLT_MAX) return limit;  // no narrower than the limit
    width += t * reach;
  }
  return width;
}

double NavQuery::width_across(uint32_t ref, const float at[3], double ux, double uz, Vec3& axis) {
  // The narrowest chord of the mesh through `at`: square to the way, and turned from that by 30 and
  // 60 degrees either way, as a path may cross a door aslant (square to such a path, a door's chord
  // is long, or leaves it by a mouth); then turned by 15, 7.5 and 3.75 degrees either way from the
  // narrowest, while that narrows it. Square to a passage, the chord is narrowest: the way through
  // runs square to it, for every path through the passage alike (to a few degrees).
  constexpr double kTurns[][2] = {{0.8660254037844387, 0.5}, {0.5, 0.8660254037844387}};  // 30, 60 degrees
  constexpr double kFiner[][2] = {{0.9659258262890683, 0.25881904510252074},   // 15 degrees
                                  {0.9914448613738104, 0.13052619222005157},   // 7.5
                                  {0.9978589232386035, 0.06540312923014306}};  // 3.75
  const auto turned = [](double x, double z, double c, double s) { return std::pair(x * c - z * s, x * s + z * c); };
  double bx = -uz, bz = ux;  // the narrowest chord's way so far: square to the path (its right)
  double narrowest = chord(ref, at, bx, bz, narrow_width_);
  if (narrowest < 0) return -1;
  for (const auto& t : kTurns)
    for (const double sign : {1.0, -1.0}) {
      const auto [cx, cz] = turned(-uz, ux, t[0], sign * t[1]);
      const double width = chord(ref, at, cx, cz, narrowest);
      if (width >= 0 && width < narrowest) std::tie(narrowest, bx, bz) = std::tuple(width, cx, cz);
    }
  axis = {};
  if (!(narrowest < narrow_width_)) return narrowest;
  for (const auto& t : kFiner) {
    double best = narrowest, nx = bx, nz = bz;
    for (const double sign : {1.0, -1.0}) {
      const auto [cx, cz] = turned(bx, bz, t[0], sign * t[1]);
      const double width = chord(ref, at, cx, cz, best);
      if (width >= 0 && width < best) std::tie(best, nx, nz) = std::tuple(width, cx, cz);
    }
    std::tie(narrowest, bx, bz) = std::tuple(best, nx, nz);
  }
  axis = follow::canonical_way({-bz, 0, bx});
  return narrowest;
}

follow::Path to_follow_path(const PathResult& path) {
  follow::Path out;
  out.status = path.status == PathStatus::kFound     ? follow::PathStatus::kComplete
               : path.status == PathStatus::kPartial ? follow::PathStatus::kPartial
                                                     : follow::PathStatus::kNone;
  out.corners.reserve(path.corners.size());
  for (std::size_t i = 0; i < path.corners.size(); ++i) {
    const Leg leg = i < path.legs.size() ? path.legs[i] : Leg::kWalk;
    out.corners.push_back({path.corners[i], leg == Leg::kJump   ? follow::Leg::kJump
                                            : leg == Leg::kDrop ? follow::Leg::kDrop
                                                                : follow::Leg::kWalk});
  }
  out.narrows = path.narrows;
  return out;
}

}  // namespace foothold::nav
