#pragma once
// Percentiles of measured samples (round trips, tick times) for the tools' summary lines.

#include <algorithm>
#include <cstddef>
#include <vector>

namespace foothold {

/// The `p` quantile (p in [0, 1], e.g. 0.99) of `samples`, by rank; 0 when there are none. The vector
/// is reordered.
inline double percentile(std::vector<double>& samples, double p) {
  if (samples.empty()) return 0;
  const std::size_t k = std::min(samples.size() - 1, std::size_t(p * double(samples.size())));
  std::nth_element(samples.begin(), samples.begin() + long(k), samples.end());
  return samples[k];
}

}  // namespace foothold
