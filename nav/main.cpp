// foothold-nav: navigation meshes ahead of time, and a headless check of a level (issue #67).
//   foothold-nav bake WORLD [--settings F] [--threads N] --out FILE
// prints one line: baked WORLD: tiles=T polys=P links=L bake_ms=B bytes=N
// (and, for a bake that takes over a second, progress lines on stderr).
//   foothold-nav walk WORLD [--settings F] [--threads N] --agents N --seconds S --seed K
// sends N characters to random reachable goals, one after another (nav/walk.h), and prints, last:
//   agents=N goals=G arrived=A stuck=S give_ups=U mean_time_ratio=R bake_ms=B polys=P us_per_npc_tick=T
// (each goal given up is a line on stderr).
//
// Exit codes: 0 success, 1 the bake or the write failed, 2 bad usage or unreadable input.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdint>
#include <string>
#include <thread>

#include <CLI/CLI.hpp>

#include "nav/navmesh.h"
#include "nav/walk.h"
#include "shared/formats/settings_file.h"
#include "shared/formats/world_file.h"
#include "shared/workers/worker_pool.h"
#include "version/version.h"

namespace {

using namespace foothold;
using Clock = std::chrono::steady_clock;

constexpr int kExitFailed = 1;
constexpr int kExitUsage = 2;

int usage_error(const std::string& message) {
  std::fprintf(stderr, "foothold-nav: %s\n", message.c_str());
  return kExitUsage;
}

struct BakeCommand {
  std::string world;
  std::string settings_path;
  std::string out;
  int threads = 0;  // 0: every core
};

// The world and the settings a command names; an exit code when either cannot be read.
int read_inputs(const std::string& world_path, const std::string& settings_path, WorldLoad& world, MoveSettings& settings) {
  world = load_world(world_path);
  if (!world.world) return usage_error(world.error);
  for (const std::string& w : world.warnings) std::fprintf(stderr, "foothold-nav: %s\n", w.c_str());
  if (settings_path.empty()) return 0;
  const SettingsLoad loaded = load_settings_file(settings_path);
  if (!loaded.ok()) {
    for (const std::string& e : loaded.errors) std::fprintf(stderr, "foothold-nav: %s\n", e.c_str());
    return kExitUsage;
  }
  settings = loaded.settings;
  return 0;
}

int thread_count(int asked) { return asked > 0 ? asked : int(std::max(1u, std::thread::hardware_concurrency())); }

int bake_command(const BakeCommand& o) {
  WorldLoad world;
  MoveSettings settings;
  if (const int exit = read_inputs(o.world, o.settings_path, world, settings); exit != 0) return exit;
  WorkerPool pool(thread_count(o.threads));
  nav::BakeOptions options;
  options.threads = &pool;
  const auto start = Clock::now();
  auto last_line = start;
  // A progress line once a bake has taken a second, then at most one a second.
  options.progress = [&](std::size_t done, std::size_t total) {
    const auto now = Clock::now();
    if (now - start < std::chrono::seconds(1) || now - last_line < std::chrono::seconds(1) || done == total) return;
    last_line = now;
    std::fprintf(stderr, "baking %s: %zu/%zu tiles\n", o.world.c_str(), done, total);
  };
  const nav::NavMeshResult baked = nav::NavMesh::bake(*world.world, settings, options);
  const double bake_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  if (!baked.mesh) {
    std::fprintf(stderr, "foothold-nav: %s\n", baked.error.c_str());
    return kExitFailed;
  }
  const std::size_t bytes = baked.mesh->to_bytes().size();
  const std::string error = baked.mesh->save(o.out);
  if (!error.empty()) {
    std::fprintf(stderr, "foothold-nav: %s\n", error.c_str());
    return kExitFailed;
  }
  const nav::NavStats stats = baked.mesh->stats();
  std::printf("baked %s: tiles=%zu polys=%zu links=%zu bake_ms=%.0f bytes=%zu\n", o.world.c_str(), stats.tiles,
              stats.polygons, stats.links, bake_ms, bytes);
  return 0;
}

struct WalkCommand {
  std::string world;
  std::string settings_path;
  int agents = 0;
  double seconds = 0;
  uint64_t seed = 0;
  int threads = 0;  // 0: every core
};

int walk_command(const WalkCommand& o) {
  WorldLoad world;
  MoveSettings settings;
  if (const int exit = read_inputs(o.world, o.settings_path, world, settings); exit != 0) return exit;
  WorkerPool pool(thread_count(o.threads));
  nav::BakeOptions bake;
  bake.threads = &pool;
  const auto start = Clock::now();
  const nav::NavMeshResult baked = nav::NavMesh::bake(*world.world, settings, bake);
  const double bake_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  if (!baked.mesh) {
    std::fprintf(stderr, "foothold-nav: %s\n", baked.error.c_str());
    return kExitFailed;
  }
  nav::WalkOptions options;
  options.agents = o.agents;
  options.seconds = o.seconds;
  options.seed = o.seed;
  options.threads = &pool;
  options.note = [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); };
  const nav::WalkResult r = nav::walk(*world.world, settings, *baked.mesh, options);
  if (!r.error.empty()) {
    std::fprintf(stderr, "foothold-nav: %s: %s\n", o.world.c_str(), r.error.c_str());
    return kExitFailed;
  }
  std::fprintf(stderr, "walk %s: %u paths (%u for characters off theirs), %u jumps, %u waits at narrow places\n",
               o.world.c_str(), r.paths, r.off_path, r.jumps, r.gave_way);
  std::printf("agents=%d goals=%u arrived=%u stuck=%u give_ups=%u mean_time_ratio=%.3f bake_ms=%.0f polys=%zu "
              "us_per_npc_tick=%.3f\n",
              r.agents, r.goals, r.arrived, r.stuck, r.give_ups, r.mean_time_ratio, bake_ms,
              baked.mesh->stats().polygons, r.us_per_npc_tick);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"foothold-nav: navigation meshes of worlds for the characters the server drives"};
  app.allow_windows_style_options(false);
  app.require_subcommand(1);
  BakeCommand bake_opts;
  auto* bake = app.add_subcommand("bake", "Bake a world's navigation mesh into a file the server loads (--navmesh)");
  bake->add_option("world", bake_opts.world, "'arena' (embedded), an OBJ file, or a glTF file (.gltf, .glb)")->required();
  bake->add_option("--settings", bake_opts.settings_path, "movement settings (TOML): the character the mesh is for");
  bake->add_option("--out", bake_opts.out, "the navmesh file to write")->required();
  bake->add_option("--threads", bake_opts.threads, "threads to bake on (default: every core); the file is the same");

  WalkCommand walk_opts;
  auto* walk = app.add_subcommand("walk", "Send characters to random reachable goals on a world through the real tick, and "
                                          "print what they did");
  walk->add_option("world", walk_opts.world, "'arena' (embedded), an OBJ file, or a glTF file (.gltf, .glb)")->required();
  walk->add_option("--settings", walk_opts.settings_path, "movement settings (TOML): the characters'");
  walk->add_option("--agents", walk_opts.agents, "characters, [1, 4096]")->required();
  walk->add_option("--seconds", walk_opts.seconds, "simulated seconds, (0, 3600]")->required();
  walk->add_option("--seed", walk_opts.seed, "seed of the spawns and goals (the same seed, the same walk)")->required();
  walk->add_option("--threads", walk_opts.threads, "threads to bake and step on (default: every core); the walk is the same");

  if (argc >= 2 && argv[1][0] != '-') {
    const auto known = app.get_subcommands([&](const CLI::App* sub) { return sub->get_name() == argv[1]; });
    if (known.empty()) return usage_error(std::string("unknown command '") + argv[1] + "' (see --help)");
  }
  app.set_version_flag("--version", version_line("foothold-nav"), "print the version and exit");
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {  // --help, --version
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kExitUsage;
  }
  if (*bake) {
    if (bake_opts.threads < 0 || bake_opts.threads > 64) return usage_error("--threads must be in [0, 64]");
    return bake_command(bake_opts);
  }
  if (*walk) {
    if (walk_opts.threads < 0 || walk_opts.threads > 64) return usage_error("--threads must be in [0, 64]");
    if (walk_opts.agents < 1 || walk_opts.agents > 4096) return usage_error("--agents must be in [1, 4096]");
    if (!(walk_opts.seconds > 0 && walk_opts.seconds <= 3600)) return usage_error("--seconds must be in (0, 3600]");
    return walk_command(walk_opts);
  }
  return kExitUsage;
}
