#include "nav/mover_sweeps.h"

#include <algorithm>
#include <array>

#include "shared/animation.h"

namespace foothold::nav {
namespace {

// The mover's triangles' bounds in its own axes, as the 8 corners of that box: posed, they bound the
// posed triangles (a rotation of the box holds the rotated triangles).
std::array<Vec3, 8> local_corners(const Mover& m) {
  Vec3 lo = m.local.front().lo, hi = m.local.front().hi;
  for (const WorldTriangle& t : m.local) {
    lo = {std::min(lo.x, t.lo.x), std::min(lo.y, t.lo.y), std::min(lo.z, t.lo.z)};
    hi = {std::max(hi.x, t.hi.x), std::max(hi.y, t.hi.y), std::max(hi.z, t.hi.z)};
  }
  std::array<Vec3, 8> c;
  for (int i = 0; i < 8; ++i) c[std::size_t(i)] = {i & 1 ? hi.x : lo.x, i & 2 ? hi.y : lo.y, i & 4 ? hi.z : lo.z};
  return c;
}

// The instants sampled: every 1/kSweepRate s over the longest channel's period (at most
// kMaxSweepSamples of them), and every key.
std::vector<double> sample_times(const std::vector<Link>& chain) {
  double period = 0;
  std::vector<double> times{0};
  for (const Link& link : chain)
    for (const Channel& c : link.channels) {
      period = std::max(period, c.period);
      times.insert(times.end(), c.times.begin(), c.times.end());
    }
  const int steps = std::min(kMaxSweepSamples, int(period * kSweepRate) + 1);
  for (int i = 1; i <= steps; ++i) times.push_back(period * i / steps);
  return times;
}

}  // namespace

std::vector<Aabb> mover_sweeps(const World& world) {
  std::vector<Aabb> out;
  out.reserve(world.movers().size());
  for (const Mover& m : world.movers()) {
    if (m.local.empty()) {
      out.push_back({{1, 1, 1}, {-1, -1, -1}});  // empty: marks nothing
      continue;
    }
    const std::array<Vec3, 8> corners = local_corners(m);
    Aabb box{apply(chain_pose_at(m.chain, 0), corners[0]), apply(chain_pose_at(m.chain, 0), corners[0])};
    for (const double t : sample_times(m.chain)) {
      const Pose pose = chain_pose_at(m.chain, t);
      for (const Vec3& c : corners) {
        const Vec3 p = apply(pose, c);
        box.lo = {std::min(box.lo.x, p.x), std::min(box.lo.y, p.y), std::min(box.lo.z, p.z)};
        box.hi = {std::max(box.hi.x, p.x), std::max(box.hi.y, p.y), std::max(box.hi.z, p.z)};
      }
    }
    out.push_back(box);
  }
  return out;
}

}  // namespace foothold::nav
