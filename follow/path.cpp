#include "follow/path.h"

namespace foothold::follow {

double Path::length() const {
  double total = 0;
  for (std::size_t i = 1; i < corners.size(); ++i) total += foothold::length(corners[i].point - corners[i - 1].point);
  return total;
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
