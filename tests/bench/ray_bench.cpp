// What one lag-compensated query costs (#39): a ray through terrain128 among N characters on the
// standard walk's grid (96 x 96 m), as GameControl::ray asks it: the characters placed where the
// viewer drew them (RewindHistory::capsules_at, interpolating between two snapshot ticks of the
// window), then the first thing met (cast_ray: Bullet's BVH for the terrain's candidate triangles,
// every capsule tested). BM_CastRay is the second half alone.
//
//   build/release/tests/ray_bench [--scene PATH] [google-benchmark flags]
//
// Each iteration is one ray, from a character's centre toward another's (most meet the terrain or
// a capsule on the way; the rest run their 100 m): the figure is the time per ray.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "server/rewind.h"
#include "server/roster.h"
#include "shared/formats/world_file.h"
#include "shared/ray_query.h"
#include "shared/settings.h"

namespace {

using namespace foothold;

std::string g_scene = FOOTHOLD_DEFAULT_SCENE;

const World& scene() {
  static std::unique_ptr<World> world = [] {
    auto loaded = load_world(g_scene);
    if (!loaded.world) {
      std::fprintf(stderr, "ray_bench: %s\n", loaded.error.c_str());
      std::exit(2);
    }
    return std::move(loaded.world);
  }();
  return *world;
}

// N characters on a grid over the scene, standing on it (a ray down finds the ground), each moved
// a little from tick to tick so that interpolation has something to do.
struct Crowd {
  std::vector<Vec3> at;
  explicit Crowd(int n) {
    QueryScratch scratch;
    const int k = int(std::ceil(std::sqrt(double(std::max(n, 1)))));
    const double cell = 96.0 / k;
    for (int i = 0; i < n; ++i) {
      const Vec3 top{-48 + (i % k + 0.5) * cell, 60, -48 + (i / k + 0.5) * cell};
      const RayHit ground = cast_ray(scene(), nullptr, {}, top, {0, -1, 0}, 200, 0, scratch);
      at.push_back({top.x, (ground.kind == RayHit::Kind::kNone ? 0 : ground.point.y) + 0.9, top.z});
    }
  }
};

void fill_roster(server::Roster& roster, const Crowd& crowd, uint32_t tick) {
  for (std::size_t i = 0; i < crowd.at.size(); ++i) {
    const Vec3 p = crowd.at[i] + Vec3{0.05 * (tick % 7), 0, 0};
    roster[i].character.state.position = quantize_position(p);
  }
}

void BM_CastRay(benchmark::State& state) {
  const Crowd crowd(int(state.range(0)));
  std::vector<QueryCapsule> capsules;
  for (std::size_t i = 0; i < crowd.at.size(); ++i) capsules.push_back({uint32_t(i + 1), crowd.at[i], 0.5, 0.4});
  QueryScratch scratch;
  std::size_t i = 0, hits = 0;
  for (auto _ : state) {
    const std::size_t n = crowd.at.size();
    const Vec3 from = n ? crowd.at[i % n] : Vec3{0, 20, 0};
    const Vec3 to = n ? crowd.at[(i * 7919 + 13) % n] : Vec3{10, 0, 10};
    const RayHit h = cast_ray(scene(), nullptr, capsules, from, to - from, 100, uint32_t(i % std::max<std::size_t>(n, 1) + 1), scratch);
    hits += h.kind == RayHit::Kind::kCharacter;
    benchmark::DoNotOptimize(h);
    ++i;
  }
  state.counters["character_hit_share"] = double(hits) / double(std::max<std::size_t>(i, 1));
}
BENCHMARK(BM_CastRay)->Arg(0)->Arg(1000)->ArgNames({"characters"})->Unit(benchmark::kMicrosecond);

void BM_RewindRay(benchmark::State& state) {
  const int n = int(state.range(0));
  const Crowd crowd(n);
  const DerivedSettings settings = derive(MoveSettings{});
  // The default window (250 ms: 15 ticks at 60 Hz), snapshots every tick.
  server::RewindHistory history(15, server::SnapshotSchedule{1}, settings);
  server::Roster roster(std::size_t(n) + 1);
  for (int i = 0; i < n; ++i) roster.add(std::make_unique<server::Client>());
  for (uint32_t tick = 1; tick <= 20; ++tick) {
    fill_roster(roster, crowd, tick);
    history.record(tick, roster);
  }
  std::vector<QueryCapsule> capsules;
  QueryScratch scratch;
  std::size_t i = 0;
  for (auto _ : state) {
    const double view = 10.25 + double(i % 8);  // inside the window, between two ticks
    history.capsules_at(view, 0, capsules);
    const Vec3 from = crowd.at[i % crowd.at.size()];
    const Vec3 to = crowd.at[(i * 7919 + 13) % crowd.at.size()];
    benchmark::DoNotOptimize(cast_ray(scene(), nullptr, capsules, from, to - from, 100, uint32_t(i % crowd.at.size() + 1), scratch));
    ++i;
  }
  state.counters["window_bytes_per_character"] = double(server::RewindHistory::kBytesPerEntry * (15 + 1 + 1));
}
BENCHMARK(BM_RewindRay)->Arg(1000)->ArgNames({"characters"})->Unit(benchmark::kMicrosecond);

}  // namespace

int main(int argc, char** argv) {
  // --scene PATH is ours; everything else is Google Benchmark's.
  std::vector<char*> rest{argv[0]};
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--scene") == 0 && i + 1 < argc) {
      g_scene = argv[++i];
    } else {
      rest.push_back(argv[i]);
    }
  }
  int count = int(rest.size());
  benchmark::Initialize(&count, rest.data());
  if (benchmark::ReportUnrecognizedArguments(count, rest.data())) return 2;
  scene();
  benchmark::RunSpecifiedBenchmarks();
  return 0;
}
