#include "follow/path.h"

namespace foothold::follow {

double Path::length() const {
  double total = 0;
  for (std::size_t i = 1; i < corners.size(); ++i) total += foothold::length(corners[i].point - corners[i - 1].point);
  return total;
}

Vec3 canonical_way(const Vec3& way) {
  constexpr double kCos = 0.955336489125606, kSin = 0.29552020666133955;  // of 0.3 radians
  return way.x * kCos + way.z * kSin < 0 ? Vec3{-way.x, -way.y, -way.z} : way;
}

const char* to_string(PathStatus status) {
  switch (status) {
    case PathStatus::kNone: return "none";
    case PathStatus::kComplete: return "complete";
    case PathStatus::kPartial: return "partial";
  }
  return "none";
}

}  // namespace foothold::follow
