// CellRuns (shared/cell_runs.h): a column's run of cells in entries sorted by cell key, the same
// whether it reads its table (a dense index) or searches (one spread too thin for a table).

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <span>
#include <vector>

#include "shared/cell_runs.h"

namespace foothold::test {
namespace {

struct Entry {
  int64_t key = 0;
  uint32_t index = 0;
};

// Entries [first, past) of `sorted` whose cell lies in column x, rows z0 to z1, by scanning all.
std::pair<std::size_t, std::size_t> scanned(const std::vector<Entry>& sorted, int64_t x, int64_t z0, int64_t z1) {
  std::size_t first = sorted.size(), past = sorted.size();
  for (std::size_t k = 0; k < sorted.size(); ++k) {
    if (sorted[k].key >= cell_key(x, z0) && first == sorted.size()) first = k;
    if (sorted[k].key > cell_key(x, z1)) {
      past = k;
      break;
    }
  }
  return {std::min(first, past), past};
}

TEST(CellRuns, AColumnsRunIsTheSameFromTheTableAndFromTheSearch) {
  std::mt19937 random(11);
  struct Case {
    int entries;
    int64_t span;  // cells per side of the square the entries lie in
  };
  // Dense and thin enough for a table; then a few hundred spread over a million cells a side.
  for (const Case& c : {Case{500, 12}, Case{200, 60}, Case{1, 1}, Case{300, 1000000}}) {
    std::vector<Entry> sorted;
    for (int k = 0; k < c.entries; ++k) {
      const int64_t x = int64_t(random() % uint64_t(c.span)) - c.span / 2, z = int64_t(random() % uint64_t(c.span)) - c.span / 2;
      sorted.push_back({cell_key(x, z), uint32_t(k)});
    }
    std::sort(sorted.begin(), sorted.end(), [](const Entry& a, const Entry& b) { return a.key < b.key || (a.key == b.key && a.index < b.index); });
    CellRuns runs;
    runs.build(std::span<const Entry>(sorted));
    std::size_t found = 0;
    for (int q = 0; q < 4000; ++q) {
      // Columns and rows around the entries' box and beyond it, stretches of every length.
      const int64_t reach = c.span > 10000 ? 2 : std::min<int64_t>(c.span, 40);  // the thin one: near its entries
      const Entry& near = sorted[random() % sorted.size()];
      const int64_t x = (near.key >> 32) + int64_t(random() % uint64_t(2 * reach + 1)) - reach;
      const int64_t z_mid = (near.key & 0xffffffff) - (int64_t(1) << 31);
      const int64_t z0 = z_mid + int64_t(random() % uint64_t(2 * reach + 1)) - reach;
      const int64_t z1 = z0 + int64_t(random() % 5);
      const auto got = runs.column(std::span<const Entry>(sorted), x, z0, z1);
      const auto want = scanned(sorted, x, z0, z1);
      ASSERT_EQ(got.second - got.first, want.second - want.first) << "column " << x << ", rows " << z0 << " to " << z1;
      if (want.second > want.first) {
        ASSERT_EQ(got, want) << "column " << x << ", rows " << z0 << " to " << z1;
      }
      found += want.second - want.first;
    }
    EXPECT_GT(found, 100u) << c.entries << " entries over " << c.span << " cells a side";
  }
}

}  // namespace
}  // namespace foothold::test
