#include "shared/tick.h"

#include <algorithm>

namespace foothold {

namespace {

void prefetch_cache(const CandidateCache* cache) {
  if (!cache) return;
  __builtin_prefetch(cache);
  __builtin_prefetch(reinterpret_cast<const char*>(cache) + sizeof(CandidateCache) - 1);
}

void prefetch_candidates(const CandidateCache* cache) {
  if (!cache || cache->candidates.empty()) return;
  // The first few lines: a walking character's list is a few dozen triangles.
  const char* p = reinterpret_cast<const char*>(cache->candidates.data());
  const std::size_t bytes = std::min<std::size_t>(cache->candidates.size() * sizeof(uint32_t), 256);
  for (std::size_t b = 0; b < bytes; b += 64) __builtin_prefetch(p + b);
}

}  // namespace

void TickRunner::run(uint32_t tick, std::span<const TickCharacter> characters, const World& world,
                     const DerivedSettings& settings, ParallelFor* threads, const MoverClocks* clocks) {
  const std::size_t n = characters.size();
  // By ascending id: the order the Crowd's tie-breaks and every result are defined in. Callers that
  // keep their characters sorted (the server does) pay one pass.
  order_.resize(n);
  for (std::size_t i = 0; i < n; ++i) order_[i] = uint32_t(i);
  const auto by_id = [&](uint32_t a, uint32_t b) {
    return characters[a].id != characters[b].id ? characters[a].id < characters[b].id : a < b;
  };
  if (!std::is_sorted(order_.begin(), order_.end(), by_id)) std::sort(order_.begin(), order_.end(), by_id);
  ids_.resize(n);
  seen_.resize(n);
  for (std::size_t k = 0; k < n; ++k) {
    const TickCharacter& c = characters[order_[k]];
    ids_[k] = c.id;
    seen_[k] = as_other(c.id, c.state);
  }
  results_.resize(n);
  touched_.resize(n);
  // The movers at this tick: placed once, read by every step (§15.1); the others as they were at the
  // start of the tick (§16).
  movers_.build(world, tick, settings.tick_rate, clocks);
  crowd_.build(seen_, &movers_);
  workers_.resize(std::size_t(threads ? std::max(1, threads->threads()) : 1));
  for (Worker& w : workers_) w.touches.clear();
  // The steps go in the crowd's order, by cell, so neighbours (who query the same triangles) run one
  // after the other on the same thread while those triangles are still in its cache. The order
  // changes nothing else: every step reads the start-of-tick view and writes its own slot.
  auto steps = [&](std::size_t begin, std::size_t end, int w) {
    Worker& ws = workers_[std::size_t(w)];
    for (std::size_t j = begin; j < end; ++j) {
      // A character's candidate cache lives with its owner (on the server, in a client of its own):
      // cold by now. Asked for two steps ahead, and its triangle list one step ahead. The character
      // itself, where the cache's address is read, four steps ahead: in cell order the characters
      // lie scattered, and reading that address two steps ahead waited on the load (this loop's
      // own time fell from 2.7% to 1.9% of a 4,000-client tick's samples).
      if (j + 4 < end) __builtin_prefetch(&characters[order_[crowd_.in_cell_order(j + 4)]].cache);
      if (j + 2 < end) prefetch_cache(characters[order_[crowd_.in_cell_order(j + 2)]].cache);
      if (j + 1 < end) prefetch_candidates(characters[order_[crowd_.in_cell_order(j + 1)]].cache);
      const uint32_t k = crowd_.in_cell_order(j);
      const TickCharacter& c = characters[order_[k]];
      InputCmd input = c.input;
      input.tick = tick;
      ws.scratch.cache = c.cache;
      StepResult& r = ws.result;
      step(c.state, input, world, settings, ws.scratch, {&movers_, {}, c.id, &crowd_, k}, r);
      ws.scratch.cache = nullptr;
      results_[k] = {r.state, r.diagnostics};
      touched_[k] = {uint32_t(w), uint32_t(ws.touches.size()), uint16_t(r.touches.size()), int16_t(r.touches.dropped())};
      for (int t = 0; t < r.touches.size(); ++t) ws.touches.push_back(r.touches[t]);
    }
  };
  if (threads) {
    threads->run(n, kMinStepsPerThread, steps);
  } else if (n > 0) {
    steps(0, n, 0);
  }
}

std::span<const Touch> TickRunner::touches(std::size_t k) const {
  const Touched& t = touched_[k];
  return {workers_[t.worker].touches.data() + t.offset, t.count};
}

}  // namespace foothold
