// foothold-replay: run scenarios, re-simulate recordings, verify them and diff trajectories.
//
// Exit codes: 0 success, 1 a check failed (verify/diff), 2 bad usage or unreadable input.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "replay/input_script.h"
#include "replay/scenario.h"
#include "shared/settings.h"
#include "shared/world.h"

namespace {

using namespace foothold;

constexpr int kExitUsage = 2;

int usage_error(const std::string& message) {
  std::fprintf(stderr, "foothold-replay: %s\n", message.c_str());
  return kExitUsage;
}

// "X,Y,Z" in metres.
bool parse_vec3(const std::string& text, Vec3& out) {
  double v[3];
  size_t pos = 0;
  for (int i = 0; i < 3; ++i) {
    const size_t comma = text.find(',', pos);
    if ((i < 2) != (comma != std::string::npos)) return false;
    const std::string part = text.substr(pos, i < 2 ? comma - pos : std::string::npos);
    char* end = nullptr;
    v[i] = std::strtod(part.c_str(), &end);
    if (part.empty() || end != part.c_str() + part.size() || !std::isfinite(v[i]) || std::fabs(v[i]) > kWorldLimit)
      return false;
    pos = comma + 1;
  }
  out = {v[0], v[1], v[2]};
  return true;
}

struct RunOptions {
  std::string world = "arena";
  std::string settings_path;
  std::string spawn;
  std::string inputs;
  std::string out;
};

int run_scenario_command(const RunOptions& o) {
  Vec3 spawn;
  if (!parse_vec3(o.spawn, spawn)) return usage_error("--spawn '" + o.spawn + "' must be X,Y,Z in metres (three finite numbers)");
  MoveSettings settings;
  if (!o.settings_path.empty()) {
    auto loaded = load_settings_file(o.settings_path);
    if (!loaded.ok()) {
      for (const auto& e : loaded.errors) std::fprintf(stderr, "foothold-replay: %s\n", e.c_str());
      return kExitUsage;
    }
    settings = loaded.settings;
  }
  auto script = replay::load_input_script(o.inputs);
  if (!script.ok()) return usage_error(script.error);
  auto world = load_world(o.world);
  if (!world.world) return usage_error(world.error);
  for (const auto& w : world.warnings) std::fprintf(stderr, "foothold-replay: warning: %s\n", w.c_str());

  std::ofstream out(o.out, std::ios::binary | std::ios::trunc);
  if (!out) return usage_error("cannot write trace file '" + o.out + "'");

  const auto t0 = std::chrono::steady_clock::now();
  const auto run = replay::run_scenario(*world.world, settings, spawn, script);
  const auto t1 = std::chrono::steady_clock::now();

  TraceWriter writer(out);
  for (const auto& row : run.rows) writer.write(row);
  out.flush();
  if (!out) return usage_error("writing trace file '" + o.out + "' failed");

  // Summary.
  int counts[kGroundKindCount] = {};
  double travelled = 0, max_y = -1e300;
  for (size_t i = 1; i < run.rows.size(); ++i) {
    const Vec3 a = to_position(run.rows[i - 1].state.position);
    const Vec3 b = to_position(run.rows[i].state.position);
    travelled += length(b - a);
    max_y = std::max(max_y, b.y);
    ++counts[static_cast<int>(run.rows[i].state.ground)];
  }
  const size_t ticks = run.rows.size() - 1;
  const Vec3 first = to_position(run.rows.front().state.position);
  const Vec3 last = to_position(run.rows.back().state.position);
  const double us = std::chrono::duration<double, std::micro>(t1 - t0).count();
  std::printf("world %s: %zu triangles, hash %016llx\n", o.world.c_str(), world.world->triangle_count(),
              static_cast<unsigned long long>(world.world->hash()));
  std::printf("%zu ticks at %d Hz (%.2f s of play) in %.1f ms (%.2f us per step)\n", ticks, settings.tick_rate,
              double(ticks) / settings.tick_rate, us / 1000, ticks ? us / double(ticks) : 0.0);
  std::printf("from (%.3f, %.3f, %.3f) to (%.3f, %.3f, %.3f): travelled %.2f m, highest y %.3f m\n", first.x, first.y,
              first.z, last.x, last.y, last.z, travelled, max_y);
  std::printf("ground:");
  for (int k = 0; k < kGroundKindCount; ++k)
    std::printf(" %s %.1f%%", std::string(to_string(GroundKind(k))).c_str(), ticks ? 100.0 * counts[k] / double(ticks) : 0.0);
  std::printf("\ntrace: %s (%zu rows)\n", o.out.c_str(), run.rows.size());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"foothold-replay: run movement scenarios, replay recordings, verify determinism, diff trajectories"};
  app.require_subcommand(1);

  RunOptions run_opts;
  auto* run = app.add_subcommand("run", "Simulate a character through an input script and write its trace");
  run->add_option("--world", run_opts.world, "OBJ file, or 'arena' for the embedded arena")->capture_default_str();
  run->add_option("--settings", run_opts.settings_path, "movement settings (TOML)");
  run->add_option("--spawn", run_opts.spawn, "spawn position X,Y,Z (capsule centre, metres)")->required();
  run->add_option("--inputs", run_opts.inputs, "input script: lines of 'TICKS MOVE_X MOVE_Z BUTTONS'")->required();
  run->add_option("--out", run_opts.out, "trace CSV to write")->required();

  if (argc >= 2 && argv[1][0] != '-') {
    const auto known = app.get_subcommands([&](const CLI::App* sub) { return sub->get_name() == argv[1]; });
    if (known.empty()) return usage_error(std::string("unknown command '") + argv[1] + "' (see --help)");
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kExitUsage;
  }
  if (*run) return run_scenario_command(run_opts);
  return kExitUsage;
}
