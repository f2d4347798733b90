#include "server/spawn.h"

#include <algorithm>
#include <cmath>
#include <tuple>

#include "shared/arena.h"

namespace foothold::server {

namespace {
constexpr int32_t kMaxSide = 256;  // lattice points along each axis, at most
}

SpawnSpots::SpawnSpots(const World& world, const MoveSettings& settings) {
  clearance_ = 2 * settings.radius + 0.2;
  double cx = 0, cz = 0;
  const bool arena = world.name() == "arena";
  if (arena) {
    spacing_ = 1.2;
    x0_ = -arena::kHalfSize;
    z0_ = -arena::kHalfSize;
    cols_ = rows_ = int32_t(2 * arena::kHalfSize / spacing_) + 1;
    y_ = 1.5;
    cx = arena::kSpawnCentre.x;
    cz = arena::kSpawnCentre.z;
  } else {
    const Aabb& b = world.bounds();
    const double margin = settings.radius + 0.5;
    const double w = std::max(0.0, b.hi.x - b.lo.x - 2 * margin), d = std::max(0.0, b.hi.z - b.lo.z - 2 * margin);
    spacing_ = std::max({1.5, w / (kMaxSide - 1), d / (kMaxSide - 1)});
    cols_ = int32_t(w / spacing_) + 1;
    rows_ = int32_t(d / spacing_) + 1;
    cx = (b.lo.x + b.hi.x) * 0.5;
    cz = (b.lo.z + b.hi.z) * 0.5;
    // The lattice centred on the middle of the bounds.
    x0_ = cx - (cols_ - 1) * spacing_ * 0.5;
    z0_ = cz - (rows_ - 1) * spacing_ * 0.5;
    y_ = b.hi.y + 2;
  }
  std::vector<std::tuple<double, int32_t, int32_t>> ranked;
  for (int32_t r = 0; r < rows_; ++r) {
    for (int32_t c = 0; c < cols_; ++c) {
      const double x = x0_ + c * spacing_, z = z0_ + r * spacing_;
      if (arena && !arena::in_spawn_area(x, z)) continue;
      ranked.emplace_back((x - cx) * (x - cx) + (z - cz) * (z - cz), r, c);
    }
  }
  std::sort(ranked.begin(), ranked.end());
  for (const auto& [d2, r, c] : ranked) order_.push_back(uint32_t(r * cols_ + c));
  taken_.resize(size_t(cols_) * size_t(rows_));
}

Vec3 SpawnSpots::spot(std::size_t k) const {
  const uint32_t i = order_[k];
  return {x0_ + double(i % uint32_t(cols_)) * spacing_, y_, z0_ + double(i / uint32_t(cols_)) * spacing_};
}

CharacterState SpawnSpots::choose(uint32_t id, std::span<const FixedVec3> occupied) const {
  // Mark every lattice point within the clearance of someone: those within reach of the nearest.
  std::fill(taken_.begin(), taken_.end(), uint8_t(0));
  const int32_t reach = int32_t(std::ceil(clearance_ / spacing_));
  const double c2 = clearance_ * clearance_;
  for (const FixedVec3& f : occupied) {
    const Vec3 p = to_position(f);
    const double u = (p.x - x0_) / spacing_, v = (p.z - z0_) / spacing_;
    if (!(u > -reach - 1 && u < cols_ + reach && v > -reach - 1 && v < rows_ + reach)) continue;  // far outside
    const int32_t cu = int32_t(std::lround(u)), cv = int32_t(std::lround(v));
    for (int32_t r = std::max(0, cv - reach); r <= std::min(rows_ - 1, cv + reach); ++r) {
      for (int32_t c = std::max(0, cu - reach); c <= std::min(cols_ - 1, cu + reach); ++c) {
        const double dx = x0_ + c * spacing_ - p.x, dz = z0_ + r * spacing_ - p.z;
        if (dx * dx + dz * dz < c2) taken_[size_t(r) * size_t(cols_) + size_t(c)] = 1;
      }
    }
  }
  for (std::size_t k = 0; k < order_.size(); ++k)
    if (!taken_[order_[k]]) return spawn_state(spot(k));
  return spawn_state(spot(id % order_.size()));
}

}  // namespace foothold::server
