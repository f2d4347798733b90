// The movement step on terrain128 with the standard walk (tests/bench/scenes/README.md), for 1, 64
// and 512 characters, beside Bullet's own btKinematicCharacterController on the same walk.
//
//   build/release/tests/step_bench [--scene PATH] [google-benchmark flags]
//
// The figure is the median, over all ticks, of the time per character step (one tick's time for
// all characters divided by their number). BM_FootholdStepKinds times each step on its own instead,
// by kind, so that N=1 and N=512 can be compared step for step. This benchmark alone links
// BulletDynamics, for the comparison; the product never does.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>
#include <BulletCollision/CollisionDispatch/btGhostObject.h>
#include <BulletDynamics/Character/btKinematicCharacterController.h>
#include <btBulletCollisionCommon.h>

#include "shared/step.h"
#include "shared/tick.h"
#include "shared/world.h"
#include "shared/formats/world_file.h"

namespace {

using namespace foothold;

std::string g_scene = FOOTHOLD_DEFAULT_SCENE;
constexpr int kTicks = 600;
constexpr double kPi = 3.14159265358979323846;

const World& scene() {
  static std::unique_ptr<World> world = [] {
    auto loaded = load_world(g_scene);
    if (!loaded.world) {
      std::fprintf(stderr, "step_bench: %s\n", loaded.error.c_str());
      std::exit(2);
    }
    return std::move(loaded.world);
  }();
  return *world;
}

// The standard walk's spawn point and per-character generator.
Vec3 spawn_point(int i, int n) {
  const int k = int(std::ceil(std::sqrt(double(n))));
  const double cell = 96.0 / k;
  return {-48 + (i % k + 0.5) * cell, 12, -48 + (i / k + 0.5) * cell};
}
struct Walker {
  uint64_t rng;
  double angle = 0;
  double next() {  // splitmix64 -> [0, 1)
    uint64_t z = (rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return double((z ^ (z >> 31)) >> 11) / double(1ull << 53);
  }
  void tick(int t) {
    if (t % 120 == 0) angle = next() * 2 * kPi;
  }
  bool jump(int t) const { return t % 180 == 179; }
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// N characters on the standard walk, stepped as the server steps them: in order of their 4 m cell,
// so that neighbours, who query the same triangles, step one after the other while those are in
// the cache.
struct StandardWalk {
  std::vector<CharacterState> chars;
  std::vector<CandidateCache> caches;
  std::vector<Walker> walkers;
  std::vector<std::pair<int64_t, int>> order;

  explicit StandardWalk(int n) : caches(static_cast<size_t>(n)), order(static_cast<size_t>(n)) {
    for (int i = 0; i < n; ++i) {
      chars.push_back(spawn_state(spawn_point(i, n)));
      walkers.push_back({uint64_t(i)});
    }
  }
  void sort_by_cell() {
    for (size_t i = 0; i < chars.size(); ++i) {
      const auto& p = chars[i].position;
      const int64_t cx = int64_t(std::floor(p.x * kPositionQuantum / 4)), cz = int64_t(std::floor(p.z * kPositionQuantum / 4));
      order[i] = {(cx << 32) ^ (cz & 0xffffffff), int(i)};
    }
    std::sort(order.begin(), order.end());
  }
  InputCmd input(int i, int t) {
    Walker& w = walkers[size_t(i)];
    w.tick(t);
    return encode_move(std::cos(w.angle), std::sin(w.angle), w.jump(t) ? kButtonJump : 0, uint32_t(t));
  }
  StepResult step_one(int i, int t, const World& world, const DerivedSettings& s, StepScratch& scratch) {
    const InputCmd in = input(i, t);
    scratch.cache = &caches[size_t(i)];
    StepResult r = step(chars[size_t(i)], in, world, s, scratch);
    chars[size_t(i)] = r.state;
    return r;
  }
};

std::map<int, double> g_foothold_us, g_bullet_us;

void BM_FootholdStep(benchmark::State& bstate) {
  const int n = int(bstate.range(0));
  const World& world = scene();
  const DerivedSettings s = derive(MoveSettings{});
  StepScratch scratch;
  std::vector<double> per_step_us;
  for (auto _ : bstate) {
    StandardWalk walk(n);
    per_step_us.clear();
    for (int t = 0; t < kTicks; ++t) {
      const auto t0 = std::chrono::steady_clock::now();
      walk.sort_by_cell();  // timed: it is part of the tick's cost
      for (const auto& entry : walk.order) walk.step_one(entry.second, t, world, s, scratch);
      const auto t1 = std::chrono::steady_clock::now();
      per_step_us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / n);
    }
    benchmark::DoNotOptimize(walk.chars.data());
  }
  const double med = median(per_step_us);
  g_foothold_us[n] = med;
  bstate.counters["us_per_char_step_median"] = med;
  // The mean as well: one character's steps cost from 0.3 us (in the air) to several (a wall, a
  // stair), so the median over ticks of N=1 is its typical step while that of N=512 (each tick an
  // average of 512 steps) is close to the mean step. Comparing means compares the same thing;
  // BM_FootholdStepKinds compares each kind of step.
  double sum = 0;
  for (double us : per_step_us) sum += us;
  bstate.counters["us_per_char_step_mean"] = per_step_us.empty() ? 0 : sum / double(per_step_us.size());
  bstate.counters["characters"] = n;
}

// The same walk with every step (and its input) timed on its own and sorted by what it did: on the
// ground, moving freely (free) or meeting something (slide: a box, a steeper face, with the stair
// attempt that makes); in the air (jumps included), moving freely (air) or meeting something
// (air_hit: mostly landing). A free step is much the same work at N=1 and N=512, so their ratio is
// what the cache and the characters' order cost, apart from how the kinds mix in a tick (which the
// per-tick figures of BM_FootholdStep fold in). The other kinds compare less well: N=1's few slides
// are one character against one obstacle. Kinds count from tick 60, when everyone has landed from
// the spawn; the clock read around each step adds a few tens of ns.
//
// From the same steps, BM_FootholdStep's figure (tick_median_us: the median over all ticks of a
// tick's steps divided by N) and what it would be if every step that meets something (slide,
// air_hit) took a fifth of its time (tick_median_us_if_meetings_cost_a_fifth): at N=1 the median
// tick is one step, at N=512 a mix of kinds, so N=512's over N=1's is bound by that mix as much as
// by the cost of any one kind of step.
void BM_FootholdStepKinds(benchmark::State& bstate) {
  const int n = int(bstate.range(0));
  const World& world = scene();
  const DerivedSettings s = derive(MoveSettings{});
  StepScratch scratch;
  enum Kind { kFree, kSlide, kAir, kAirHit, kKinds };
  std::vector<double> us[kKinds];
  std::vector<double> tick_us(kTicks), tick_us_fifth(kTicks);
  for (auto _ : bstate) {
    StandardWalk walk(n);
    for (auto& v : us) v.clear();
    for (int t = 0; t < kTicks; ++t) {
      walk.sort_by_cell();
      double sum = 0, sum_fifth = 0;
      for (const auto& entry : walk.order) {
        const auto t0 = std::chrono::steady_clock::now();
        const StepResult r = walk.step_one(entry.second, t, world, s, scratch);
        const auto t1 = std::chrono::steady_clock::now();
        const double step_us = std::chrono::duration<double, std::micro>(t1 - t0).count();
        const StepDiagnostics& d = r.diagnostics;
        const bool air = !is_grounded(d.ground_at_start) || d.jumped, hit = d.slide_iterations > 0;
        const Kind kind = air ? (hit ? kAirHit : kAir) : (hit ? kSlide : kFree);
        sum += step_us;
        sum_fifth += hit ? step_us / 5 : step_us;
        if (t >= 60) us[kind].push_back(step_us);
      }
      tick_us[size_t(t)] = sum / n;
      tick_us_fifth[size_t(t)] = sum_fifth / n;
    }
    benchmark::DoNotOptimize(walk.chars.data());
  }
  const char* names[kKinds] = {"free", "slide", "air", "air_hit"};
  double total = 0;
  for (const auto& v : us) total += double(v.size());
  for (int k = 0; k < kKinds; ++k) {
    bstate.counters[std::string(names[k]) + "_us_median"] = median(us[k]);
    bstate.counters[std::string(names[k]) + "_share"] = total > 0 ? double(us[k].size()) / total : 0;
  }
  bstate.counters["tick_median_us"] = median(tick_us);
  bstate.counters["tick_median_us_if_meetings_cost_a_fifth"] = median(tick_us_fifth);
  bstate.counters["characters"] = n;
}

void BM_BulletKinematicController(benchmark::State& bstate) {
  const int n = int(bstate.range(0));
  const World& world = scene();
  btCollisionWorld& cw = world.collision_world();
  const MoveSettings ms;
  const double dt = 1.0 / ms.tick_rate;
  static btGhostPairCallback ghost_cb;
  cw.getBroadphase()->getOverlappingPairCache()->setInternalGhostPairCallback(&ghost_cb);
  std::vector<double> per_step_us;
  for (auto _ : bstate) {
    btCapsuleShape shape(ms.radius, ms.height - 2 * ms.radius);
    std::vector<std::unique_ptr<btPairCachingGhostObject>> ghosts;
    std::vector<std::unique_ptr<btKinematicCharacterController>> ctrls;
    std::vector<Walker> walkers;
    for (int i = 0; i < n; ++i) {
      auto g = std::make_unique<btPairCachingGhostObject>();
      const Vec3 p = spawn_point(i, n);
      g->setWorldTransform(btTransform(btQuaternion::getIdentity(), btVector3(p.x, p.y, p.z)));
      g->setCollisionShape(&shape);
      g->setCollisionFlags(btCollisionObject::CF_CHARACTER_OBJECT);
      // Characters do not collide with each other, as in Foothold: only with the static world.
      cw.addCollisionObject(g.get(), btBroadphaseProxy::CharacterFilter,
                            btBroadphaseProxy::StaticFilter | btBroadphaseProxy::DefaultFilter);
      auto c = std::make_unique<btKinematicCharacterController>(g.get(), &shape, ms.step_height, btVector3(0, 1, 0));
      c->setGravity(btVector3(0, -ms.gravity, 0));
      c->setJumpSpeed(ms.jump_speed);
      c->setMaxSlope(btRadians(ms.max_slope_deg));
      ghosts.push_back(std::move(g));
      ctrls.push_back(std::move(c));
      walkers.push_back({uint64_t(i)});
    }
    per_step_us.clear();
    for (int t = 0; t < kTicks; ++t) {
      const auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < n; ++i) {
        walkers[size_t(i)].tick(t);
        const double a = walkers[size_t(i)].angle;
        ctrls[size_t(i)]->setWalkDirection(btVector3(std::cos(a), 0, std::sin(a)) * (ms.walk_speed * dt));
        if (walkers[size_t(i)].jump(t) && ctrls[size_t(i)]->onGround()) ctrls[size_t(i)]->jump();
        ctrls[size_t(i)]->updateAction(&cw, dt);
      }
      const auto t1 = std::chrono::steady_clock::now();
      per_step_us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / n);
    }
    for (auto& g : ghosts) cw.removeCollisionObject(g.get());
  }
  const double med = median(per_step_us);
  g_bullet_us[n] = med;
  bstate.counters["us_per_char_step_median"] = med;
  bstate.counters["characters"] = n;
}

// Movement.md §15, §16: 64 characters on a 40 m floor, either packed into contact range (a 8 x 8 block
// 0.85 m apart, all pushing toward its middle) or spread 5 m apart (none within reach), in a world
// without movers or with 8 (slabs shuttling under the block at 2 m/s). Every character steps against
// the others through the shared tick (shared/tick.h), as the server runs it.
std::unique_ptr<World> crowd_world(int movers) {
  MeshBuilder b;
  b.floor_grid(-20, -20, 20, 20, 0, 2);
  TriangleMesh mesh = b.take();
  for (int m = 0; m < movers; ++m) {
    MoverMesh slab;
    slab.name = "slab" + std::to_string(m);
    MeshBuilder sb;
    sb.box({-1, 0, -1}, {1, 0.2, 1});
    slab.mesh = sb.take();
    Channel c;
    const double z = -3.5 + m;
    c.times = {0, 2, 4};
    c.values = {-4, 0, z, 4, 0, z, -4, 0, z};
    c.period = 4;
    slab.chain.push_back(Link{Pose{}, {c}});
    mesh.movers.push_back(std::move(slab));
  }
  auto built = World::create(mesh, "crowd");
  return std::move(built.world);
}

std::map<std::pair<int, int>, double> g_crowd_us;

void BM_FootholdCrowd(benchmark::State& bstate) {
  const bool contact = bstate.range(0) != 0;
  const int movers = int(bstate.range(1));
  const auto world = crowd_world(movers);
  const DerivedSettings s = derive(MoveSettings{});
  constexpr int n = 64;
  TickRunner runner;
  std::vector<TickCharacter> given(n);
  std::vector<double> per_step_us;
  for (auto _ : bstate) {
    std::vector<CharacterState> chars;
    std::vector<CandidateCache> caches(n);
    for (int i = 0; i < n; ++i) {
      const double spacing = contact ? 0.85 : 5;
      chars.push_back(spawn_state({(i % 8 - 3.5) * spacing, 1.5, (i / 8 - 3.5) * spacing}));
    }
    per_step_us.clear();
    for (int t = 1; t <= kTicks; ++t) {
      const auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < n; ++i) {
        const Vec3 p = to_position(chars[size_t(i)].position);
        const InputCmd in = contact ? encode_move(-p.x, -p.z, 0, uint32_t(t)) : encode_move(0.5, 0.5, t % 180 == 179 ? kButtonJump : 0, uint32_t(t));
        given[size_t(i)] = {uint32_t(i), chars[size_t(i)], in, &caches[size_t(i)]};
      }
      runner.run(uint32_t(t), given, *world, s);
      for (int i = 0; i < n; ++i) chars[size_t(i)] = runner.results()[size_t(i)].state;
      const auto t1 = std::chrono::steady_clock::now();
      per_step_us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / n);
    }
    benchmark::DoNotOptimize(chars.data());
  }
  const double med = median(per_step_us);
  g_crowd_us[{contact ? 1 : 0, movers}] = med;
  bstate.counters["us_per_char_step_median"] = med;
}

BENCHMARK(BM_FootholdStep)->Arg(1)->Arg(64)->Arg(512)->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_FootholdStepKinds)->Arg(1)->Arg(512)->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_FootholdCrowd)
    ->ArgNames({"contact", "movers"})
    ->ArgsProduct({{0, 1}, {0, 8}})
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_BulletKinematicController)->Arg(1)->Arg(64)->Arg(512)->Iterations(1)->Unit(benchmark::kMillisecond);

}  // namespace

int main(int argc, char** argv) {
  // Our own flag first; the rest belongs to Google Benchmark.
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) {
    if (std::strcmp(argv[i], "--scene") == 0 && i + 1 < argc) {
      g_scene = argv[++i];
      continue;
    }
    args.push_back(argv[i]);
  }
  int n = int(args.size());
  benchmark::Initialize(&n, args.data());
  if (benchmark::ReportUnrecognizedArguments(n, args.data())) return 2;
  std::printf("scene: %s (%zu triangles)\n", g_scene.c_str(), scene().triangle_count());
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  if (!g_crowd_us.empty()) {
    std::printf("\nmedian us per character step, 64 characters, %d ticks\n", kTicks);
    std::printf("%16s %10s %10s\n", "", "no movers", "8 movers");
    for (int contact : {0, 1}) {
      auto at = [&](int m) { const auto it = g_crowd_us.find({contact, m}); return it == g_crowd_us.end() ? 0.0 : it->second; };
      std::printf("%16s %10.2f %10.2f\n", contact ? "in contact" : "apart", at(0), at(8));
    }
  }
  std::printf("\nmedian us per character step (standard walk, %d ticks)\n", kTicks);
  std::printf("%10s %12s %12s %8s\n", "characters", "foothold", "bullet_kcc", "ratio");
  for (const auto& [count, us] : g_foothold_us) {
    const auto b = g_bullet_us.find(count);
    if (b == g_bullet_us.end()) {
      std::printf("%10d %12.2f %12s %8s\n", count, us, "-", "-");
    } else {
      std::printf("%10d %12.2f %12.2f %7.1fx\n", count, us, b->second, b->second / us);
    }
  }
  return 0;
}
