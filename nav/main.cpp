// foothold-nav: navigation meshes ahead of time (issue #67).
//   foothold-nav bake WORLD [--settings F] [--threads N] --out FILE
// prints one line: baked WORLD: tiles=T polys=P links=L bake_ms=B bytes=N
// (and, for a bake that takes over a second, progress lines on stderr).
//
// Exit codes: 0 success, 1 the bake or the write failed, 2 bad usage or unreadable input.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

#include <CLI/CLI.hpp>

#include "nav/navmesh.h"
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

int bake_command(const BakeCommand& o) {
  WorldLoad world = load_world(o.world);
  if (!world.world) return usage_error(world.error);
  for (const std::string& w : world.warnings) std::fprintf(stderr, "foothold-nav: %s\n", w.c_str());
  MoveSettings settings;
  if (!o.settings_path.empty()) {
    const SettingsLoad loaded = load_settings_file(o.settings_path);
    if (!loaded.ok()) {
      for (const std::string& e : loaded.errors) std::fprintf(stderr, "foothold-nav: %s\n", e.c_str());
      return kExitUsage;
    }
    settings = loaded.settings;
  }
  const int threads = o.threads > 0 ? o.threads : int(std::max(1u, std::thread::hardware_concurrency()));
  WorkerPool pool(threads);
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
  return kExitUsage;
}
