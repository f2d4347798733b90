#include "client/error_smoothing.h"

#include <algorithm>
#include <cmath>

namespace foothold::client {

bool ErrorSmoothing::corrected(const Vec3& moved, const SmoothingOptions& o) {
  const Vec3 left = error_ - moved;
  if (length_sq(moved) > o.snap_m * o.snap_m || length_sq(left) > o.snap_m * o.snap_m) {
    error_ = {};
    return false;
  }
  error_ = left;
  return true;
}

void ErrorSmoothing::decay(proto::Nanos now, const SmoothingOptions& o) {
  if (o.smoothing_s <= 0) {
    error_ = {};
  } else if (started_ && now > at_) {
    const double dt = double(now - at_) / double(proto::kSecond);
    const Vec3 decayed = error_ * std::exp(-dt / o.smoothing_s);
    const double released = std::sqrt(length_sq(error_ - decayed)), cap = o.max_release_mps * dt;
    error_ = o.max_release_mps > 0 && released > cap ? error_ + (decayed - error_) * (cap / released) : decayed;
  }
  at_ = started_ ? std::max(at_, now) : now;
  started_ = true;
}

void ErrorSmoothing::cut(const World& world, const Vec3& centre, double radius, QueryScratch& scratch) {
  const double len = std::sqrt(length_sq(error_));
  if (len <= 1e-6) return;
  const RayHit hit = cast_ray(world, nullptr, {}, centre, error_, len + radius, 0, scratch);
  if (hit.kind == RayHit::Kind::kNone) return;
  const double room = std::max(0.0, hit.distance - radius);
  if (room < len) error_ = error_ * (room / len);
}

}  // namespace foothold::client
