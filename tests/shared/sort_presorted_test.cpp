// sort_presorted: the one sorted sequence whatever order it starts from (nearly sorted, shuffled,
// reversed), the same as std::sort gives.

#include "shared/sort_presorted.h"

#include <algorithm>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

namespace foothold::test {
namespace {

using Entry = std::pair<int64_t, uint32_t>;  // (key, index): a strict total order, as the callers'

std::vector<Entry> sorted_copy(std::vector<Entry> v) {
  std::sort(v.begin(), v.end());
  return v;
}

TEST(SortPresorted, GivesTheSortedSequenceFromAnyStart) {
  std::mt19937 rng(7);
  for (std::size_t n : {0u, 1u, 2u, 17u, 500u, 3000u}) {
    std::vector<Entry> base;
    for (uint32_t i = 0; i < n; ++i) base.push_back({int64_t(rng() % 64), i});  // many equal keys
    std::sort(base.begin(), base.end());

    // Nearly sorted: a few entries given a new key (characters that crossed into another cell).
    std::vector<Entry> near = base;
    for (std::size_t k = 0; k < n / 50 + 1 && n > 0; ++k) near[rng() % n].first = int64_t(rng() % 64);
    const auto want_near = sorted_copy(near);
    sort_presorted(near, std::less<Entry>());
    EXPECT_EQ(near, want_near) << n << " entries, nearly sorted";

    // Shuffled and reversed: far from sorted, finished by the fallback.
    std::vector<Entry> shuffled = base;
    std::shuffle(shuffled.begin(), shuffled.end(), rng);
    sort_presorted(shuffled, std::less<Entry>());
    EXPECT_EQ(shuffled, base) << n << " entries, shuffled";
    std::vector<Entry> reversed(base.rbegin(), base.rend());
    sort_presorted(reversed, std::less<Entry>());
    EXPECT_EQ(reversed, base) << n << " entries, reversed";
  }
}

}  // namespace
}  // namespace foothold::test
