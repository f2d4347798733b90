#pragma once
// Sorting a sequence that was sorted a tick ago and has changed little since: the server's per-tick
// indexes of characters by cell (Crowd, the interest grid). Rebuilt in last tick's order, a few
// characters that crossed into another cell are out of place, and an insertion sort puts them back
// in about one pass, where a full sort would cost n log n comparisons that no branch predictor wins.

#include <algorithm>
#include <cstddef>
#include <vector>

namespace foothold {

/// Sorts `v` by `less`, which must be a strict total order (no two elements equivalent), so that the
/// result is the one sorted sequence whatever order `v` came in: only the time taken depends on it.
/// Linear when `v` is nearly sorted; a sequence far from sorted (more moves than a few per element)
/// is finished by std::sort instead.
template <typename T, typename Less>
void sort_presorted(std::vector<T>& v, Less less) {
  std::size_t budget = 8 * v.size() + 64;  // element moves before giving up on insertion
  for (std::size_t i = 1; i < v.size(); ++i) {
    if (!less(v[i], v[i - 1])) continue;
    T x = v[i];
    std::size_t j = i;
    do {
      v[j] = v[j - 1];
      --j;
    } while (j > 0 && less(x, v[j - 1]));
    v[j] = x;
    const std::size_t moved = i - j;
    if (moved >= budget) {
      std::sort(v.begin(), v.end(), less);
      return;
    }
    budget -= moved;
  }
}

}  // namespace foothold
