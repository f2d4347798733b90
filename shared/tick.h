#pragma once
// One tick of every character: the one place the determinism contract of a multi-character tick
// lives (movement.md §15.1, §16). The server, re-simulation, the scenario runner, the benchmarks and
// the tests all advance their characters through it; none of them builds a movers' frame or a Crowd.
//
// The contract: the movers are placed once for the tick; every character steps against the others
// as they all were at the start of the tick (their published positions), never as some were already
// moved; each step is a pure function of its character, its input and that start-of-tick view. So
// the results depend on the set of (id, state, input) only: not on the order the characters are
// given in, not on how many threads step them, not on which thread steps which (tests/shared/
// tick_test.cpp checks each).

#include <cstdint>
#include <span>
#include <vector>

#include "shared/character_contacts.h"
#include "shared/contact_queries.h"
#include "shared/mover_frame.h"
#include "shared/parallel_for.h"
#include "shared/step.h"

namespace foothold {

/// One character as a tick takes it.
struct TickCharacter {
  uint32_t id = 0;        ///< unique within the tick
  CharacterState state;   ///< at the start of the tick
  InputCmd input;         ///< its input for the tick (the tick number is set by the tick)
  /// Optional: the character's own candidate cache, kept from tick to tick (speed only; the same
  /// results without).
  CandidateCache* cache = nullptr;
};

/// One character's step in a tick: its state after the tick and how it got there (what it touched:
/// TickRunner::touches()).
struct TickResult {
  CharacterState state;
  StepDiagnostics diagnostics;
};

/// Advances a set of characters by one tick. Keeps its working memory between ticks (the steady
/// state allocates nothing); one tick at a time.
class TickRunner {
 public:
  /// Steps every character of `characters` by tick `tick` against `world` and `settings`, spread
  /// over `threads` when given (else on the calling thread). Afterwards ids()[k] and results()[k]
  /// are the k-th smallest id's, whatever order `characters` came in. `characters` need only stay
  /// valid during the call; each `cache` is used by one thread at a time.
  /// The movers run on `clocks` (sized for `world`; null: all on the world's clock).
  void run(uint32_t tick, std::span<const TickCharacter> characters, const World& world, const DerivedSettings& settings,
           ParallelFor* threads = nullptr, const MoverClocks* clocks = nullptr);

  /// The characters of the last run(), ascending id.
  std::span<const uint32_t> ids() const { return ids_; }
  /// Each one's step (its state after the tick and how it got there), by ids().
  std::span<const TickResult> results() const { return results_; }
  /// What results()[k]'s character touched (StepResult::touches, in its order), valid until the
  /// next run().
  std::span<const Touch> touches(std::size_t k) const;
  /// How many touches results()[k]'s step had to drop (TouchList::dropped(); 0 almost always).
  int touches_dropped(std::size_t k) const { return touched_[k].dropped; }
  /// Where results()[k]'s character was in run()'s `characters`.
  uint32_t given_at(std::size_t k) const { return order_[k]; }
  /// The movers as this tick placed them (valid until the next run()).
  const MoverFrame& movers() const { return movers_; }

 private:
  /// Below this many characters per thread, fewer threads are woken (waking one costs microseconds).
  static constexpr std::size_t kMinStepsPerThread = 64;
  struct Worker {
    StepScratch scratch;
    StepResult result;           // the step just run (one kept: a new one clears its touch list, 1 KB)
    std::vector<Touch> touches;  // this tick's touches of the steps this worker ran, one after another
  };
  // Where a character's touches are: kept apart from the results, so that a step writes its few
  // touches rather than a whole TouchList (about 1 KB, the tick's largest memory traffic).
  struct Touched {
    uint32_t worker = 0, offset = 0;
    uint16_t count = 0;
    int16_t dropped = 0;
  };
  std::vector<uint32_t> order_;  // indices into `characters`, by ascending id
  std::vector<uint32_t> ids_;
  std::vector<OtherCharacter> seen_;  // every character as the others see it at the start, by ids_
  MoverFrame movers_;
  Crowd crowd_;
  std::vector<TickResult> results_;
  std::vector<Touched> touched_;
  std::vector<Worker> workers_;
};

}  // namespace foothold
