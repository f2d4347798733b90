#pragma once
// A flat grid of square cells over X and Z, for indexes that keep entries sorted by cell (the
// Crowd's characters, the server's interest grid): the cell key sorts by column, then row, so a
// column's stretch of rows is one run of the sorted entries, and CellRuns finds that run.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace foothold {

/// The key of cell (x, z): ordered by x, then z (z offset to be non-negative, so that the rows z - 1,
/// z, z + 1 of one column are neighbours in the order too). z in [-2^31, 2^31).
inline int64_t cell_key(int64_t x, int64_t z) { return (x << 32) + (z + (int64_t(1) << 31)); }

/// Where the run of each cell begins in entries sorted by cell key (any type with an int64_t `key`
/// of cell_key()), for the box of cells the entries span, when that box has at most
/// kCellsPerEntry cells an entry plus kSlack; a sparser index searches instead. Either way a
/// column's run is the same, so callers get the same entries in the same order.
class CellRuns {
 public:
  static constexpr int64_t kCellsPerEntry = 4, kSlack = 4096;

  /// Indexes `sorted` (ascending key; not kept).
  template <typename Entry>
  void build(std::span<const Entry> sorted) {
    starts_.clear();
    columns_ = rows_ = 0;
    if (sorted.empty()) return;
    x_lo_ = column_of(sorted.front().key);
    const int64_t x_hi = column_of(sorted.back().key);
    int64_t z_hi = row_of(sorted.front().key);
    z_lo_ = z_hi;
    for (const Entry& e : sorted) {
      z_lo_ = std::min(z_lo_, row_of(e.key));
      z_hi = std::max(z_hi, row_of(e.key));
    }
    // Each side first, so that their product cannot overflow.
    const int64_t limit = kCellsPerEntry * int64_t(sorted.size()) + kSlack;
    const int64_t columns = x_hi - x_lo_ + 1, rows = z_hi - z_lo_ + 1;
    if (columns > limit || rows > limit || columns * rows > limit) return;
    columns_ = columns;
    rows_ = rows;
    starts_.resize(std::size_t(columns_ * rows_) + 1);
    std::size_t k = 0;
    for (int64_t slot = 0; slot < columns_ * rows_; ++slot) {
      const int64_t key = cell_key(x_lo_ + slot / rows_, z_lo_ + slot % rows_);
      while (k < sorted.size() && sorted[k].key < key) ++k;
      starts_[std::size_t(slot)] = uint32_t(k);
    }
    starts_.back() = uint32_t(sorted.size());
  }

  /// The entries [first, past) of `sorted` (what build() was given) in column x, rows z0 to z1.
  template <typename Entry>
  std::pair<std::size_t, std::size_t> column(std::span<const Entry> sorted, int64_t x, int64_t z0, int64_t z1) const {
    if (columns_ > 0) {
      // Outside the box the entries span there is none: the rows are clipped to it.
      if (x < x_lo_ || x >= x_lo_ + columns_) return {0, 0};
      const int64_t from = std::max(z0, z_lo_), to = std::min(z1, z_lo_ + rows_ - 1);
      if (from > to) return {0, 0};
      const int64_t base = (x - x_lo_) * rows_ - z_lo_;
      return {starts_[std::size_t(base + from)], starts_[std::size_t(base + to + 1)]};
    }
    const int64_t first = cell_key(x, z0), last = cell_key(x, z1);
    const auto begin = std::lower_bound(sorted.begin(), sorted.end(), first, [](const Entry& e, int64_t key) { return e.key < key; });
    auto end = begin;
    while (end != sorted.end() && end->key <= last) ++end;
    return {std::size_t(begin - sorted.begin()), std::size_t(end - sorted.begin())};
  }

 private:
  static int64_t column_of(int64_t key) { return key >> 32; }
  static int64_t row_of(int64_t key) { return (key & 0xffffffff) - (int64_t(1) << 31); }

  std::vector<uint32_t> starts_;  // columns_ * rows_ + 1 entries, by column then row; empty: search
  int64_t x_lo_ = 0, z_lo_ = 0, columns_ = 0, rows_ = 0;
};

}  // namespace foothold
