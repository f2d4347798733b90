// A snapshot's choices (server/snapshot_choices.h): the priority weight is the integer rule
// exactly, and the selection takes exactly what a greedy pass over the choices sorted by rank
// takes, however the budget, the view's limit and the choices fall.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>
#include <vector>

#include "server/snapshot_choices.h"

namespace foothold::test {
namespace {

using server::BudgetCosts;
using server::kBudgetIndexBits;
using server::priority_weight;
using server::take_within_budget;

// The rule as written: 1 + 256 (4 m)^2 / ((4 m)^2 + the horizontal distance squared), in integers.
uint64_t reference_weight(int64_t dx, int64_t dz) {
  constexpr int64_t kLimit = int64_t(1) << 30, kNear = int64_t(4096) * 4096;
  dx = std::clamp(dx, -kLimit, kLimit);
  dz = std::clamp(dz, -kLimit, kLimit);
  return 1 + uint64_t(256 * kNear / (kNear + dx * dx + dz * dz));
}

uint64_t weight_at(int64_t dx, int64_t dz) {
  const FixedVec3 viewer{100, -7, -300};
  return priority_weight(viewer, FixedVec3{int32_t(viewer.x + dx), 12345, int32_t(viewer.z + dz)});
}

TEST(SnapshotChoices, ThePriorityWeightIsTheIntegerRuleAtEveryStepOfItsQuotient) {
  // Where the quotient steps from q to q - 1 (the distance squared crossing 2^32 / q - 2^24), and a
  // little either side, for every q it takes: the places a rounded division would go wrong.
  constexpr double kScaled = 4294967296.0, kNear = 16777216.0;
  int checked = 0;
  for (int q = 1; q <= 256; ++q) {
    const double d2 = kScaled / q - kNear;
    if (d2 < 0) continue;
    const int64_t around = int64_t(std::sqrt(d2));
    for (int64_t dx = std::max<int64_t>(0, around - 3); dx <= around + 3; ++dx)
      for (int64_t dz = 0; dz <= 40; ++dz) {
        ASSERT_EQ(weight_at(dx, dz), reference_weight(dx, dz)) << "dx " << dx << " dz " << dz;
        ASSERT_EQ(weight_at(-dz, -dx), reference_weight(dz, dx)) << "dx " << -dz << " dz " << -dx;
        ++checked;
      }
  }
  EXPECT_GT(checked, 50000);
  EXPECT_EQ(weight_at(0, 0), 257u);
  EXPECT_EQ(weight_at(4096, 0), 129u) << "4 m";
  EXPECT_EQ(weight_at(0, 32 * 1024), 4u) << "32 m";
  EXPECT_EQ(weight_at(int64_t(1) << 31, -(int64_t(1) << 31)), 1u) << "beyond the clamp";
}

TEST(SnapshotChoices, ThePriorityWeightIsTheIntegerRuleAtRandomDistancesOfEveryScale) {
  std::mt19937_64 rng(43);
  for (int i = 0; i < 200000; ++i) {
    const int scale = int(rng() % 31);
    const int64_t span = int64_t(1) << scale;
    const int64_t dx = int64_t(rng() % uint64_t(2 * span + 1)) - span;
    const int64_t dz = int64_t(rng() % uint64_t(2 * span + 1)) - span;
    ASSERT_EQ(weight_at(dx, dz), reference_weight(dx, dz)) << "dx " << dx << " dz " << dz;
  }
}

// A snapshot's choices, as the replication ranks them: removals first (their keys below every
// other's), then the rest by a rank with ties, the index breaking them.
struct Case {
  std::vector<uint64_t> keys;
  std::vector<uint32_t> bits;
  std::vector<int8_t> view;
  std::size_t room = 0, view_size = 0, max_view = 48;
};

Case random_case(std::mt19937_64& rng) {
  Case c;
  const std::size_t n = rng() % 97;
  const std::size_t removals = n == 0 ? 0 : rng() % (1 + std::min<std::size_t>(n, 12));
  // Few distinct ranks, sometimes: ties, broken by the index, must be kept to.
  const uint64_t ranks = rng() % 2 ? 4 : uint64_t(1) << 40;
  std::size_t total = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const bool removal = i < removals;
    const bool addition = !removal && rng() % 3 == 0;
    c.view.push_back(int8_t(removal ? -1 : addition ? 1 : 0));
    c.bits.push_back(removal ? 2 : addition ? uint32_t(40 + rng() % 60) : uint32_t(5 + rng() % 40));
    const uint64_t rank = removal ? 0 : (uint64_t(1) << 42) | (rng() % ranks);
    c.keys.push_back(rank << kBudgetIndexBits | i);
    total += c.bits.back();
  }
  std::shuffle(c.keys.begin(), c.keys.end(), rng);  // the keys' order must not matter
  c.room = total == 0 ? rng() % 8 : rng() % (total + 8);
  c.view_size = 48 - std::min<std::size_t>(48, rng() % 6 == 0 ? 0 : rng() % 8);  // often at the limit or near it
  if (rng() % 4 == 0) c.view_size = rng() % 49;
  return c;
}

// The pass itself, over every choice sorted by rank.
std::set<uint64_t> reference_take(const Case& c) {
  std::vector<uint64_t> sorted = c.keys;
  std::sort(sorted.begin(), sorted.end());
  std::set<uint64_t> taken;
  std::size_t room = c.room;
  int64_t view = int64_t(c.view_size);
  for (const uint64_t key : sorted) {
    const std::size_t i = server::budget_index(key);
    if (c.bits[i] > room || (c.view[i] > 0 && view >= int64_t(c.max_view))) continue;
    room -= c.bits[i];
    view += c.view[i];
    taken.insert(key);
  }
  return taken;
}

std::set<uint64_t> fast_take(const Case& c, std::vector<uint64_t>& keys) {
  keys = c.keys;
  const std::size_t n = take_within_budget(keys, BudgetCosts{c.bits, c.view}, c.room, c.view_size, c.max_view);
  return {keys.begin(), keys.begin() + std::ptrdiff_t(n)};
}

TEST(SnapshotChoices, TheSelectionTakesWhatTheGreedyPassInRankOrderTakes) {
  std::mt19937_64 rng(2026);
  std::vector<uint64_t> keys;
  std::size_t some_left_out = 0, additions_held_by_the_view = 0;
  constexpr std::size_t kCases = 30000;
  for (std::size_t i = 0; i < kCases; ++i) {
    const Case c = random_case(rng);
    const std::set<uint64_t> expected = reference_take(c);
    ASSERT_EQ(fast_take(c, keys), expected) << "case " << i << ": " << c.keys.size() << " choices, room " << c.room
                                            << ", view " << c.view_size;
    // Still a permutation of the keys: nothing lost or repeated.
    std::vector<uint64_t> a = keys, b = c.keys;
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    ASSERT_EQ(a, b) << "case " << i;
    some_left_out += expected.size() < c.keys.size();
    Case unlimited = c;
    unlimited.max_view = 1000;
    additions_held_by_the_view += reference_take(unlimited) != expected;
  }
  // The cases reach what they are for: budgets that leave choices out, and views that hold additions back.
  EXPECT_GT(some_left_out, kCases / 2) << additions_held_by_the_view;
  EXPECT_GT(additions_held_by_the_view, kCases / 100) << some_left_out;
}

TEST(SnapshotChoices, AFullViewTakesRemovalsAndChangesButAnAdditionOnlyAfterARemoval) {
  // Ranked: a removal (2 bits), an addition (40), a change (10), an addition (40); the view full.
  Case c;
  c.bits = {2, 40, 10, 40};
  c.view = {-1, 1, 0, 1};
  for (uint64_t i = 0; i < 4; ++i) c.keys.push_back(((i == 0 ? 0 : uint64_t(1) << 42) + i) << kBudgetIndexBits | i);
  c.view_size = 48;
  c.room = 1000;
  std::vector<uint64_t> keys;
  EXPECT_EQ(fast_take(c, keys), (std::set<uint64_t>{c.keys[0], c.keys[1], c.keys[2]}))
      << "the removal makes room for the first addition only";
  c.room = 51;  // the removal, the first addition and the change: 52 bits
  EXPECT_EQ(fast_take(c, keys), (std::set<uint64_t>{c.keys[0], c.keys[1]})) << "the change no longer fits";
  c.room = 1;
  EXPECT_TRUE(fast_take(c, keys).empty()) << "not even the removal fits";
  c.keys.clear();
  EXPECT_TRUE(fast_take(c, keys).empty());
}

}  // namespace
}  // namespace foothold::test
