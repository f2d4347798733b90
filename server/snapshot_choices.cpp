#include "server/snapshot_choices.h"

#include <algorithm>
#include <utility>

namespace foothold::server {

namespace {

// What a run of choices costs: bits, the view's change, and whether it adds to the view.
struct RunCost {
  std::size_t bits = 0;
  int64_t view = 0;
  bool additions = false;

  void add(const BudgetCosts& costs, uint64_t key, uint64_t mask) {
    const std::size_t i = budget_index(key);
    bits += costs.bits[i] & uint32_t(mask);
    view += int64_t(costs.view[i]) & int64_t(mask);
    additions |= (mask != 0) & (costs.view[i] > 0);
  }
};

// Partitions [lo, hi) around the median of its first, middle and last keys: the keys below it
// first, then it. Returns where it lands, and adds the cost of [lo, it] to `run`. Without branches
// on the keys: which side a key goes is a coin toss no predictor wins. Keys alone move (8 bytes
// each, as they are read: a 16-byte item read back after two 8-byte stores waited on the store
// buffer, a third of the pass's time).
std::size_t partition(std::span<uint64_t> a, std::size_t lo, std::size_t hi, const BudgetCosts& costs, RunCost& run) {
  const std::size_t mid = lo + (hi - lo) / 2, last = hi - 1;
  if (a[mid] < a[lo]) std::swap(a[mid], a[lo]);
  if (a[last] < a[lo]) std::swap(a[last], a[lo]);
  if (a[mid] < a[last]) std::swap(a[mid], a[last]);  // the median now last
  const uint64_t pivot = a[last];
  std::size_t below = lo;
  for (std::size_t k = lo; k < last; ++k) {
    // Swapped whichever side it goes: one that does not go below lands where another that did not was.
    const uint64_t key = a[k];
    const uint64_t less = key < pivot;
    a[k] = a[below];
    a[below] = key;
    below += less;
    run.add(costs, key, 0 - less);
  }
  a[last] = a[below];
  a[below] = pivot;
  run.add(costs, pivot, ~uint64_t(0));
  return below;
}

}  // namespace

std::size_t take_within_budget(std::span<uint64_t> keys, const BudgetCosts& costs, std::size_t room,
                               std::size_t view_size, std::size_t max_view) {
  // The longest run of the best-ranked choices that fits whole, by selection: [0, lo) holds the run
  // found so far, [lo, hi) the keys still in question, [hi, end) keys ranked after all of those
  // and known not to be in the run. The pass takes every choice of a run that fits whole: each fits
  // the room its predecessors leave, and as removals rank first, every addition in the run finds
  // the view below max_view if the run as a whole leaves it at most max_view.
  std::size_t lo = 0, hi = keys.size();
  std::size_t left = room;
  int64_t view = int64_t(view_size);
  while (lo < hi) {
    RunCost run;
    const std::size_t p = partition(keys, lo, hi, costs, run);
    if (run.bits <= left && (!run.additions || view + run.view <= int64_t(max_view))) {
      left -= run.bits;
      view += run.view;
      lo = p + 1;
    } else {
      hi = p;
    }
  }
  // After the run the room only shrinks, so of the rest only the choices that fit the room left now
  // can be taken: those few go through the pass itself, in rank order.
  std::size_t candidates = lo;
  for (std::size_t k = lo; k < keys.size(); ++k)
    if (costs.bits[budget_index(keys[k])] <= left) std::swap(keys[candidates++], keys[k]);
  std::sort(keys.begin() + std::ptrdiff_t(lo), keys.begin() + std::ptrdiff_t(candidates));
  std::size_t taken = lo;
  for (std::size_t k = lo; k < candidates; ++k) {
    const std::size_t i = budget_index(keys[k]);
    if (costs.bits[i] > left || (costs.view[i] > 0 && view >= int64_t(max_view))) continue;
    left -= costs.bits[i];
    view += costs.view[i];
    std::swap(keys[taken++], keys[k]);
  }
  return taken;
}

}  // namespace foothold::server
