// The shared tick (shared/tick.h): the one place a multi-character tick's determinism contract lives.
// The same set of characters gives the same bytes for every thread count, every order the characters
// come in and every order the chunks run in, and each character's step is the one it would take
// against every other character as it was at the start of the tick.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <random>
#include <vector>

#include "shared/arena.h"
#include "shared/tick.h"
#include "shared/workers/worker_pool.h"
#include "support/scenario_support.h"
#include "support/test_seed.h"

namespace foothold::test {
namespace {

bool same_bits(double a, double b) { return std::bit_cast<uint64_t>(a) == std::bit_cast<uint64_t>(b); }
bool same_bits(const Vec3& a, const Vec3& b) { return same_bits(a.x, b.x) && same_bits(a.y, b.y) && same_bits(a.z, b.z); }

// One character's step as the tick reports it: its result and its touches.
struct Stepped {
  TickResult result;
  std::vector<Touch> touches;
  int dropped = 0;
};
Stepped stepped(const TickRunner& runner, std::size_t k) {
  const auto t = runner.touches(k);
  return {runner.results()[k], {t.begin(), t.end()}, runner.touches_dropped(k)};
}
Stepped stepped(const StepResult& r) {
  Stepped s{{r.state, r.diagnostics}, {}, r.touches.dropped()};
  for (int i = 0; i < r.touches.size(); ++i) s.touches.push_back(r.touches[i]);
  return s;
}

// Everything a step returns, bit for bit.
::testing::AssertionResult same_result(const Stepped& a, const Stepped& b) {
  if (!(a.result.state == b.result.state)) return ::testing::AssertionFailure() << "states differ";
  if (a.touches.size() != b.touches.size() || a.dropped != b.dropped)
    return ::testing::AssertionFailure() << "touch counts differ";
  for (std::size_t i = 0; i < a.touches.size(); ++i) {
    const Touch &x = a.touches[i], &y = b.touches[i];
    if (x.kind != y.kind || x.triangle != y.triangle || x.mover != y.mover || x.character != y.character ||
        x.tag != y.tag || !same_bits(x.normal, y.normal) || x.floor != y.floor || x.blocked != y.blocked)
      return ::testing::AssertionFailure() << "touch " << i << " differs";
  }
  const StepDiagnostics &p = a.result.diagnostics, &q = b.result.diagnostics;
  if (p.characters_near != q.characters_near || p.pushed_apart != q.pushed_apart || p.pushed_by_mover != q.pushed_by_mover ||
      p.slide_iterations != q.slide_iterations || p.pushout_iterations != q.pushout_iterations || p.jumped != q.jumped ||
      !same_bits(p.position, q.position))
    return ::testing::AssertionFailure() << "diagnostics differ";
  return ::testing::AssertionSuccess();
}

// A crowd in the arena: half riding the movers, half packed on the floor around them, with random
// walks and jumps; ids sparse and out of order, as a server's are after joins and leaves.
struct Crowd {
  std::vector<TickCharacter> characters;
  std::vector<std::vector<InputCmd>> inputs;  // per character, per tick (from tick 1)
};

Crowd make_crowd(uint64_t seed, int count, uint32_t ticks) {
  std::mt19937_64 rng(seed);
  auto uni = [&](double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng); };
  Crowd crowd;
  for (int i = 0; i < count; ++i) {
    const Vec3 centre = i % 2 ? Vec3{arena::kShuttleX0, 0, arena::kShuttleZ} : Vec3{arena::kTurntableX, 0, arena::kTurntableZ};
    const uint32_t id = uint32_t(1 + 7 * ((i * 37) % count));  // unique, not ascending
    crowd.characters.push_back({id, spawn_state(centre + Vec3{uni(-3, 3), 0.2 + rest_height() + uni(0, 1), uni(-3, 3)}), {}, nullptr});
    std::vector<InputCmd> in;
    for (uint32_t t = 1; t <= ticks; ++t) {
      const double r = uni(0, 1);
      in.push_back(encode_move(uni(-1, 1), uni(-1, 1), uint8_t((r < 0.03 ? kButtonJump : 0) | (r > 0.92 ? kButtonCrouch : 0)), 0));
    }
    crowd.inputs.push_back(std::move(in));
  }
  return crowd;
}

// Runs `ticks` ticks; returns every tick's results in id order. `order` permutes the characters as
// they are handed in (the same permutation every tick).
std::vector<std::vector<Stepped>> run(Crowd crowd, uint32_t ticks, ParallelFor* threads, const std::vector<std::size_t>& order,
                                         bool with_caches) {
  const World& w = arena_world();
  const DerivedSettings s = derive(MoveSettings{});
  TickRunner runner;
  std::vector<CandidateCache> caches(crowd.characters.size());
  std::vector<std::vector<Stepped>> out;
  std::vector<TickCharacter> given(crowd.characters.size());
  for (uint32_t t = 1; t <= ticks; ++t) {
    for (std::size_t k = 0; k < order.size(); ++k) {
      const std::size_t i = order[k];
      given[k] = crowd.characters[i];
      given[k].input = crowd.inputs[i][t - 1];
      given[k].cache = with_caches ? &caches[i] : nullptr;
    }
    runner.run(t, given, w, s, threads);
    EXPECT_TRUE(std::is_sorted(runner.ids().begin(), runner.ids().end())) << "tick " << t;
    out.emplace_back();
    for (std::size_t k = 0; k < runner.results().size(); ++k) out.back().push_back(stepped(runner, k));
    for (std::size_t k = 0; k < runner.ids().size(); ++k) {
      const std::size_t i = order[runner.given_at(k)];
      EXPECT_EQ(crowd.characters[i].id, runner.ids()[k]);
      crowd.characters[i].state = runner.results()[k].state;
    }
  }
  return out;
}

std::vector<std::size_t> identity(std::size_t n) {
  std::vector<std::size_t> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = i;
  return v;
}

void expect_same(const std::vector<std::vector<Stepped>>& a, const std::vector<std::vector<Stepped>>& b, const char* what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (std::size_t t = 0; t < a.size(); ++t) {
    ASSERT_EQ(a[t].size(), b[t].size()) << what << ", tick " << t + 1;
    for (std::size_t k = 0; k < a[t].size(); ++k) ASSERT_TRUE(same_result(a[t][k], b[t][k])) << what << ", tick " << t + 1 << ", entry " << k;
  }
}

// A ParallelFor that runs the range in chunks of three, last chunk first, naming a different worker
// for each (on the calling thread): an order no real pool is likely to produce.
class BackwardChunks final : public ParallelFor {
 public:
  int threads() const override { return 4; }
  void run(std::size_t count, std::size_t, RangeFn fn) override {
    std::vector<std::pair<std::size_t, std::size_t>> chunks;
    for (std::size_t b = 0; b < count; b += 3) chunks.push_back({b, std::min(count, b + 3)});
    int worker = 0;
    for (auto it = chunks.rbegin(); it != chunks.rend(); ++it) fn(it->first, it->second, worker++ % 4);
  }
};

TEST(Tick, EveryThreadCountEveryArrivalOrderAndEveryChunkOrderGiveTheSameBytes) {
  const uint64_t seed = test_seed(34);
  constexpr uint32_t kTicks = 150;
  const Crowd crowd = make_crowd(seed, 40, kTicks);
  const auto order = identity(crowd.characters.size());
  const auto reference = run(crowd, kTicks, nullptr, order, false);
  bool met = false;
  for (const auto& tick : reference)
    for (const auto& r : tick) met |= r.result.diagnostics.characters_near > 0;
  ASSERT_TRUE(met) << "the crowd never met: the test would not see an order dependence";
  for (int threads : {1, 2, 3, 4}) {
    WorkerPool pool(threads);
    expect_same(reference, run(crowd, kTicks, &pool, order, threads % 2 == 0), "a pool of threads");
  }
  BackwardChunks backward;
  expect_same(reference, run(crowd, kTicks, &backward, order, true), "chunks run backward");
  std::mt19937_64 rng(seed);
  for (int shuffle = 0; shuffle < 3; ++shuffle) {
    auto permuted = order;
    std::shuffle(permuted.begin(), permuted.end(), rng);
    WorkerPool pool(2);
    expect_same(reference, run(crowd, kTicks, &pool, permuted, false), "characters given in another order");
  }
}

TEST(Tick, EachStepIsTheOneAgainstEveryOtherCharacterAsTheTickBegan) {
  // The reference builds nothing the tick builds: each character against all the others (ascending
  // id, as Surroundings asks), published as they stood before the tick, and a movers' frame the step
  // makes for itself.
  const uint64_t seed = test_seed(3434);
  constexpr uint32_t kTicks = 120;
  Crowd crowd = make_crowd(seed, 24, kTicks);
  const World& w = arena_world();
  const DerivedSettings s = derive(MoveSettings{});
  TickRunner runner;
  StepScratch scratch;
  std::vector<OtherCharacter> others;
  int meetings = 0;
  for (uint32_t t = 1; t <= kTicks; ++t) {
    for (std::size_t i = 0; i < crowd.characters.size(); ++i) crowd.characters[i].input = crowd.inputs[i][t - 1];
    runner.run(t, crowd.characters, w, s);
    for (std::size_t k = 0; k < runner.ids().size(); ++k) {
      const TickCharacter& c = crowd.characters[runner.given_at(k)];
      others.clear();
      for (const auto& o : crowd.characters)
        if (o.id != c.id) others.push_back(as_other(o.id, o.state));
      std::sort(others.begin(), others.end(), [](const OtherCharacter& a, const OtherCharacter& b) { return a.id < b.id; });
      InputCmd in = c.input;
      in.tick = t;
      const StepResult alone = step(c.state, in, w, s, scratch, {nullptr, others, c.id});
      ASSERT_TRUE(same_result(stepped(alone), stepped(runner, k))) << "tick " << t << ", character " << c.id;
      meetings += alone.diagnostics.characters_near > 0;
    }
    for (std::size_t k = 0; k < runner.ids().size(); ++k) crowd.characters[runner.given_at(k)].state = runner.results()[k].state;
  }
  EXPECT_GT(meetings, 0) << "no character ever met another: the start-of-tick view went untested";
}

TEST(Tick, NoCharactersIsATickOfNothing) {
  TickRunner runner;
  WorkerPool pool(2);
  runner.run(1, {}, arena_world(), derive(MoveSettings{}), &pool);
  EXPECT_TRUE(runner.results().empty());
  EXPECT_TRUE(runner.ids().empty());
}

}  // namespace
}  // namespace foothold::test
