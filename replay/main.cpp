// foothold-replay: run scenarios, re-simulate recordings, verify them and diff trajectories.
//
// Exit codes: 0 success, 1 a check failed (verify/diff), 2 bad usage or unreadable input.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "replay/input_script.h"
#include "replay/report.h"
#include "replay/resimulate.h"
#include "replay/trace_diff.h"
#include "replay/scenario.h"
#include "shared/formats/gltf_loader.h"
#include "shared/mover_clock.h"
#include "shared/settings.h"
#include "shared/simulation_version.h"
#include "shared/formats/text_fields.h"
#include "shared/world.h"
#include "shared/formats/world_file.h"
#include "shared/formats/settings_file.h"
#include "version/version.h"

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
    const auto value = parse_finite(std::string_view(text).substr(pos, i < 2 ? comma - pos : std::string::npos));
    if (!value || std::fabs(*value) > kWorldLimit) return false;
    v[i] = *value;
    pos = comma + 1;
  }
  out = {v[0], v[1], v[2]};
  return true;
}

// More characters than this in one scenario is a mistake, not a test: the runner is quadratic nowhere,
// but the trace grows with every one.
constexpr std::size_t kMaxScenarioCharacters = 4096;

struct RunOptions {
  std::string world = "arena";
  std::string settings_path;
  std::vector<std::string> spawns;
  std::vector<std::string> inputs;
  std::string out;
};

int run_scenario_command(const RunOptions& o) {
  std::vector<Vec3> spawns(o.spawns.size());
  for (std::size_t i = 0; i < o.spawns.size(); ++i)
    if (!parse_vec3(o.spawns[i], spawns[i]))
      return usage_error("--spawn '" + o.spawns[i] + "' must be X,Y,Z in metres (three finite numbers)");
  if (o.inputs.size() != 1 && o.inputs.size() != o.spawns.size())
    return usage_error("give one --inputs for every character, or one for all (" + std::to_string(o.spawns.size()) +
                       " --spawn, " + std::to_string(o.inputs.size()) + " --inputs)");
  if (spawns.size() > kMaxScenarioCharacters)
    return usage_error("at most " + std::to_string(kMaxScenarioCharacters) + " characters (--spawn)");
  MoveSettings settings;
  if (!o.settings_path.empty()) {
    auto loaded = load_settings_file(o.settings_path);
    if (!loaded.ok()) {
      for (const auto& e : loaded.errors) std::fprintf(stderr, "foothold-replay: %s\n", e.c_str());
      return kExitUsage;
    }
    settings = loaded.settings;
  }
  std::vector<replay::InputScript> scripts;
  for (const auto& path : o.inputs) {
    auto script = replay::load_input_script(path);
    if (!script.ok()) return usage_error(script.error);
    scripts.push_back(std::move(script));
  }
  auto world = load_world(o.world);
  if (!world.world) return usage_error(world.error);
  for (const auto& w : world.warnings) std::fprintf(stderr, "foothold-replay: warning: %s\n", w.c_str());

  std::ofstream out(o.out, std::ios::binary | std::ios::trunc);
  if (!out) return usage_error("cannot write trace file '" + o.out + "'");

  const auto t0 = std::chrono::steady_clock::now();
  const auto runs = replay::run_scenarios(*world.world, settings, spawns, scripts);
  const auto t1 = std::chrono::steady_clock::now();

  // Tick by tick, characters in spawn order within a tick.
  TraceWriter writer(out);
  for (std::size_t t = 0; t < runs[0].rows.size(); ++t)
    for (const auto& run : runs) writer.write(run.rows[t]);
  out.flush();
  if (!out) return usage_error("writing trace file '" + o.out + "' failed");

  // Summary: the first character's path, every character's steps and ground.
  const replay::ScenarioRun& run = runs[0];
  int counts[kGroundKindCount] = {};
  double travelled = 0, max_y = -1e300;
  for (size_t i = 1; i < run.rows.size(); ++i) {
    const Vec3 a = to_position(run.rows[i - 1].state.position);
    const Vec3 b = to_position(run.rows[i].state.position);
    travelled += length(b - a);
    max_y = std::max(max_y, b.y);
  }
  for (const auto& r : runs)
    for (size_t i = 1; i < r.rows.size(); ++i) ++counts[static_cast<int>(r.rows[i].state.ground)];
  const size_t ticks = run.rows.size() - 1;
  const size_t steps = ticks * runs.size();
  const Vec3 first = to_position(run.rows.front().state.position);
  const Vec3 last = to_position(run.rows.back().state.position);
  const double us = std::chrono::duration<double, std::micro>(t1 - t0).count();
  std::printf("world %s: %zu triangles, hash %016llx\n", o.world.c_str(), world.world->triangle_count(),
              static_cast<unsigned long long>(world.world->hash()));
  std::printf("settings hash %016llx\n", static_cast<unsigned long long>(settings.hash()));
  std::printf("%zu ticks at %d Hz (%.2f s of play), %zu character(s), in %.1f ms (%.2f us per step)\n", ticks,
              settings.tick_rate, double(ticks) / settings.tick_rate, runs.size(), us / 1000, steps ? us / double(steps) : 0.0);
  std::printf("character 0 from (%.3f, %.3f, %.3f) to (%.3f, %.3f, %.3f): travelled %.2f m, highest y %.3f m\n", first.x,
              first.y, first.z, last.x, last.y, last.z, travelled, max_y);
  std::printf("ground:");
  for (int k = 0; k < kGroundKindCount; ++k)
    std::printf(" %s %.1f%%", std::string(to_string(GroundKind(k))).c_str(), steps ? 100.0 * counts[k] / double(steps) : 0.0);
  std::printf("\ntrace: %s (%zu rows)\n", o.out.c_str(), run.rows.size() * runs.size());
  return 0;
}

// The world a recording was made in: its own name, or --world; the hash must match.
std::unique_ptr<World> recording_world(const replay::LoadedRecording& rec, const std::string& override_world, std::string& error) {
  const std::string name = override_world.empty() ? rec.header.world : override_world;
  auto loaded = load_world(name);
  if (!loaded.world) {
    error = loaded.error + (override_world.empty() ? " (give the world with --world)" : "");
    return nullptr;
  }
  if (loaded.world->hash() != rec.header.world_hash) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "world '%s' has hash %016llx, but the recording was made in one with hash %016llx", name.c_str(),
                  static_cast<unsigned long long>(loaded.world->hash()), static_cast<unsigned long long>(rec.header.world_hash));
    error = buf;
    return nullptr;
  }
  return std::move(loaded.world);
}

struct ReplayOptions {
  std::string recording;
  std::string world;
  std::string out;
  uint32_t from_tick = 0;
  int threads = 2;
};

int replay_command(const ReplayOptions& o) {
  replay::LoadedRecording rec;
  std::string err;
  if (!replay::load_recording(o.recording, rec, err)) return usage_error(err);
  if (!rec.problem.empty()) std::fprintf(stderr, "foothold-replay: warning: %s; replaying what came before\n", rec.problem.c_str());
  auto world = recording_world(rec, o.world, err);
  if (!world) return usage_error(err);
  std::ofstream out(o.out, std::ios::binary | std::ios::trunc);
  if (!out) return usage_error("cannot write trace file '" + o.out + "'");
  replay::ResimOptions ro;
  ro.keep_states = true;
  ro.from_tick = o.from_tick;
  ro.threads = o.threads;
  const auto result = replay::resimulate(rec, *world, ro);
  replay::write_trace(rec, result, out);
  out.flush();
  if (!out) return usage_error("writing trace file '" + o.out + "' failed");
  std::printf("replayed %s: ticks %u..%u, %zu character(s), %llu steps in %.3f s; trace: %s\n", o.recording.c_str(),
              result.start_tick, rec.last_tick, rec.characters.size(), static_cast<unsigned long long>(result.steps),
              result.seconds, o.out.c_str());
  if (!result.ok)
    std::printf("warning: %llu checksum mismatch(es); the first at tick %u, character %u (run 'verify' for details)\n",
                static_cast<unsigned long long>(result.mismatches), result.first.tick, result.first.id);
  return 0;
}

int verify_command(const ReplayOptions& o) {
  replay::LoadedRecording rec;
  std::string err;
  if (!replay::load_recording(o.recording, rec, err)) return usage_error(err);
  auto world = recording_world(rec, o.world, err);
  if (!world) return usage_error(err);
  replay::ResimOptions ro;
  ro.threads = o.threads;
  const auto result = replay::resimulate(rec, *world, ro);
  const double played = double(rec.ticks) / rec.header.settings.tick_rate;
  std::printf("verify %s: %llu ticks (%.1f s of play), %zu character(s), %llu steps re-simulated in %.3f s (%.0fx real time)\n",
              o.recording.c_str(), static_cast<unsigned long long>(rec.ticks), played, rec.characters.size(),
              static_cast<unsigned long long>(result.steps), result.seconds, result.seconds > 0 ? played / result.seconds : 0.0);
  if (!rec.problem.empty()) std::printf("note: %s; verified what came before\n", rec.problem.c_str());
  // Which step made it (docs/compatibility.md): a mismatch under another step is that step's change.
  const replay::RecordingHeader& h = rec.header;
  const bool same_step = h.simulation_version == kSimulationVersion;
  const std::string made_by =
      h.format_version < 7 ? "an unknown simulation version (recording format " + std::to_string(h.format_version) + ")"
                           : "simulation version " + std::to_string(h.simulation_version) +
                                 (h.recorded_by.empty() ? "" : " (" + h.recorded_by + ")");
  std::printf("recorded with %s; this build's simulation version is %u\n", made_by.c_str(), kSimulationVersion);
  if (!result.ok) {
    std::printf("MISMATCH: tick %u, character %u: recorded checksum %08x, re-simulated %08x (%llu mismatch(es) in all)\n",
                result.first.tick, result.first.id, result.first.expected, result.first.actual,
                static_cast<unsigned long long>(result.mismatches));
    if (same_step) {
      std::printf("cause: the same simulation version re-simulated otherwise: a desync (a determinism bug, or an "
                  "altered file)\n");
    } else {
      std::printf("cause: the recording was made with %s, not this build's step (version %u): the step changed "
                  "between them, so its results may differ; this is not a desync. Verify it with the build that "
                  "recorded it\n",
                  made_by.c_str(), kSimulationVersion);
    }
  } else {
    std::printf("OK: every checksum matches\n");
  }
  // The last line, for scripts: key=value fields that stay (new ones are appended).
  std::printf("verified=%d ticks=%llu characters=%zu steps=%llu mismatches=%llu same_simulation=%d\n", result.ok ? 1 : 0,
              static_cast<unsigned long long>(rec.ticks), rec.characters.size(),
              static_cast<unsigned long long>(result.steps), static_cast<unsigned long long>(result.mismatches),
              same_step ? 1 : 0);
  return result.ok ? 0 : 1;
}

struct WorldOptions {
  std::string world = "arena";
  std::string export_path;
};

// Loads a world and describes it; with --export, writes it as binary glTF (tags as materials).
int world_command(const WorldOptions& o) {
  auto loaded = load_world(o.world);
  if (!loaded.world) return usage_error(loaded.error);
  for (const auto& w : loaded.warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
  const World& w = *loaded.world;
  const Aabb& b = w.bounds();
  std::printf("world %s: %zu triangles, hash %016llx, bounds (%g, %g, %g) to (%g, %g, %g) m\n", o.world.c_str(),
              w.triangle_count(), static_cast<unsigned long long>(w.hash()), b.lo.x, b.lo.y, b.lo.z, b.hi.x, b.hi.y, b.hi.z);
  // Movers (movement.md §15.1): each with its triangles and the loop of its longest channel.
  for (std::size_t m = 0; m < w.movers().size(); ++m) {
    const Mover& mover = w.movers()[m];
    double loop = 0;
    for (const Link& link : mover.chain)
      for (const Channel& c : link.channels) loop = std::max(loop, c.period);
    // A driven one (movement.md §15.4): its keys, which GameControl::mover's go-to names by index.
    std::string driven;
    if (mover.driven) {
      driven = ", driven by the game, keys";
      for (double k : mover_keys(mover)) {
        char key[32];
        std::snprintf(key, sizeof key, " %g", k);
        driven += key;
      }
      driven += " s";
    }
    std::printf("mover %zu (platform %zu) '%s': %zu triangles, loops every %g s%s\n", m, m + 1, mover.name.c_str(),
                mover.local.size(), loop, driven.c_str());
  }
  // Trigger volumes (glTF extras.foothold.trigger): each with its index, as the game API names it.
  for (std::size_t t = 0; t < w.triggers().size(); ++t) {
    const TriggerBox& box = w.triggers()[t];
    std::printf("trigger %zu '%s': (%g, %g, %g) to (%g, %g, %g) m%s\n", t, box.name.c_str(), box.lo.x, box.lo.y, box.lo.z,
                box.hi.x, box.hi.y, box.hi.z,
                box.mover == 0 ? "" : (", riding mover " + std::to_string(box.mover - 1) + " (in its axes)").c_str());
  }
  if (o.export_path.empty()) return 0;
  if (!w.movers().empty()) std::fprintf(stderr, "warning: --export writes the static triangles only, not the movers\n");
  if (!w.triggers().empty()) std::fprintf(stderr, "warning: --export writes the static triangles only, not the triggers\n");
  TriangleMesh mesh;
  mesh.vertices.reserve(w.triangle_count() * 3);
  for (uint32_t i = 0; i < w.triangle_count(); ++i) {
    const WorldTriangle& t = w.triangle(i);
    const uint32_t base = uint32_t(mesh.vertices.size());
    mesh.vertices.insert(mesh.vertices.end(), {t.tri.a, t.tri.b, t.tri.c});
    mesh.faces.push_back({{base, base + 1, base + 2}, t.tag});
  }
  if (const std::string err = write_glb(mesh, o.export_path); !err.empty()) return usage_error(err);
  std::printf("exported: %s\n", o.export_path.c_str());
  return 0;
}

int info_command(const ReplayOptions& o) {
  replay::LoadedRecording rec;
  std::string err;
  if (!replay::load_recording(o.recording, rec, err)) return usage_error(err);
  const auto& h = rec.header;
  std::printf("recording: %s (%llu bytes)\n", o.recording.c_str(), static_cast<unsigned long long>(rec.file_size));
  std::printf("format: %u; source: %s%s\n", h.format_version, h.source.c_str(),
              h.source == "bot" ? (" (character " + std::to_string(h.character_id) + ")").c_str() : "");
  std::printf("world: %s (hash %016llx)\n", h.world.c_str(), static_cast<unsigned long long>(h.world_hash));
  std::printf("settings hash: %016llx; tick rate: %d Hz; keyframes every %u ticks (%zu in the file)\n",
              static_cast<unsigned long long>(h.settings_hash), h.settings.tick_rate, h.keyframe_interval, rec.keyframes.size());
  std::printf("ticks: %u..%u (%llu ticks, %.1f s)\n", rec.first_tick, rec.last_tick, static_cast<unsigned long long>(rec.ticks),
              double(rec.ticks) / h.settings.tick_rate);
  std::printf("characters: %zu (at most %zu at once)\n", rec.characters.size(), rec.max_concurrent);
  if (rec.clean) {
    std::printf("ends: cleanly (footer present)\n");
  } else if (!rec.problem.empty()) {
    std::printf("ends: NOT cleanly: %s\n", rec.problem.c_str());
  } else {
    std::printf("ends: without a footer (the writer stopped before closing it)\n");
  }
  // The messages handed to the game (format 4), then those the game sent (format 6), for scripts;
  // appended so the lines above stay.
  std::printf("messages=%llu message_bytes=%llu message_ticks=%zu messages_sent=%llu sent_bytes=%llu\n",
              static_cast<unsigned long long>(rec.message_count), static_cast<unsigned long long>(rec.message_bytes),
              rec.messages.size(), static_cast<unsigned long long>(rec.sent_count),
              static_cast<unsigned long long>(rec.sent_bytes));
  // The game's commands (format 5): what a replay applies without the game's code.
  std::printf("commands=%llu command_ticks=%zu\n", static_cast<unsigned long long>(rec.command_count), rec.commands.size());
  // The game that ran (format 6; "none" before or without one), and what its replay needs
  // (foothold-server --verify-game).
  // The rewind window in milliseconds, as every flag gives it, and in the ticks recorded.
  std::printf("game=%s snapshot_interval=%u rewind_window_ms=%.4g rewind_window_ticks=%u\n", h.game.empty() ? "none" : h.game.c_str(),
              h.snapshot_interval, h.settings.tick_rate > 0 ? 1000.0 * h.rewind_window / h.settings.tick_rate : 0.0, h.rewind_window);
  // The seed of the game's random source (format 11; 0 before): `--game-seed` repeats the match's luck.
  std::printf("game_seed=%llu\n", static_cast<unsigned long long>(h.game_seed));
  // The commands among them that drove the movers (format 12; 0 before): doors and lifts the game moved.
  std::size_t mover_commands = 0;
  for (const auto& t : rec.commands)
    for (const GameCommand& c : t.commands) mover_commands += c.kind == GameCommandKind::kMover;
  std::printf("mover_commands=%zu\n", mover_commands);
  // The characters the game drove (format 13; 0 before): NPCs spawned, and how many were asked for (--npcs).
  std::size_t spawns = 0;
  for (const auto& t : rec.commands)
    for (const GameCommand& c : t.commands) spawns += c.kind == GameCommandKind::kSpawn;
  std::printf("npcs=%u spawns=%zu\n", h.npcs, spawns);
  return 0;
}

struct DiffOptions {
  std::string a, b;
  double tolerance = 0;
  std::string inputs_a, inputs_b, plot, html, world;
};

// Rows of a re-simulated recording, as a trace would hold them.
std::vector<TraceRow> recording_rows(const replay::LoadedRecording& rec, const World& world) {
  replay::ResimOptions ro;
  ro.keep_states = true;
  const auto result = replay::resimulate(rec, world, ro);
  std::vector<TraceRow> rows;
  for (std::size_t c = 0; c < result.states.size(); ++c)
    for (std::size_t i = 0; i < result.states[c].size(); ++i)
      rows.push_back({result.start_of[c] + uint32_t(i), rec.characters[c].id, result.states[c][i]});
  return rows;
}

// Writes the HTML report and says so (before the last line, which scripts read).
int write_report(const std::string& path, const World& world, const MoveSettings& settings,
                 const std::vector<replay::ReportSide>& sides, const std::string& title, const std::string& world_name) {
  replay::ReportOptions ro;
  ro.title = title;
  ro.world_name = world_name;
  const std::string html = replay::render_report_html(replay::report_json(world, settings, sides, ro));
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << html;
  out.flush();
  if (!out) return usage_error("cannot write report '" + path + "'");
  std::printf("report: %s (%zu bytes)\n", path.c_str(), html.size());
  return 0;
}

// The world and settings a report is drawn in: --world, else the first recording's, else the arena.
std::unique_ptr<World> report_world(const std::string& override_world, const replay::LoadedRecording* rec,
                                    std::string& name, std::string& error) {
  if (override_world.empty() && rec) {
    name = rec->header.world;
    return recording_world(*rec, "", error);
  }
  name = override_world.empty() ? "arena" : override_world;
  auto loaded = load_world(name);
  if (!loaded.world) error = loaded.error;
  return std::move(loaded.world);
}

int diff_command(const DiffOptions& o) {
  if (!(o.tolerance >= 0) || !std::isfinite(o.tolerance)) return usage_error("--tolerance must be a distance of 0 or more metres");
  if (o.inputs_a.empty() && !o.inputs_b.empty()) return usage_error("--inputs-b needs --inputs-a");
  replay::Trace a, b;
  std::string err;
  if (!replay::read_trace(o.a, a, err) || !replay::read_trace(o.b, b, err)) return usage_error(err);
  auto diff = replay::diff_traces(a, b, o.tolerance);
  if (!o.inputs_a.empty()) {
    // Without the second side's inputs, both sides are taken to have consumed the first side's (a
    // client predicts with the inputs it sent): the causes told apart are then interaction and
    // determinism.
    replay::LoadedRecording ra, rb;
    if (!replay::load_recording(o.inputs_a, ra, err)) return usage_error(err);
    if (!o.inputs_b.empty() && !replay::load_recording(o.inputs_b, rb, err)) return usage_error(err);
    replay::explain_divergences(diff, ra, o.inputs_b.empty() ? ra : rb);
    if (!o.html.empty()) {
      std::string world_name;
      auto world = report_world(o.world, &ra, world_name, err);
      if (!world) return usage_error(err);
      std::vector<replay::ReportSide> sides = {{o.a, a.rows, &ra}, {o.b, b.rows, o.inputs_b.empty() ? nullptr : &rb}};
      if (const int rc = write_report(o.html, *world, ra.header.settings, sides, "diff " + o.a + " " + o.b, world_name))
        return rc;
    }
  } else if (!o.html.empty()) {
    std::string world_name;
    auto world = report_world(o.world, nullptr, world_name, err);
    if (!world) return usage_error(err);
    std::vector<replay::ReportSide> sides = {{o.a, a.rows, nullptr}, {o.b, b.rows, nullptr}};
    if (const int rc = write_report(o.html, *world, MoveSettings{}, sides, "diff " + o.a + " " + o.b, world_name)) return rc;
  }
  std::printf("diff %s %s (tolerance %s)\n", o.a.c_str(), o.b.c_str(),
              o.tolerance == 0 ? "0: bit-exact" : (std::to_string(o.tolerance) + " m").c_str());
  std::printf("%8s %9s %14s %12s %12s %10s  %s\n", "id", "ticks", "first_diverge", "max_err_m", "mean_err_m", "ground_diff", "cause");
  for (const auto& d : diff.characters) {
    std::printf("%8u %9llu %14s %12.6f %12.6f %10llu  %s\n", d.id, static_cast<unsigned long long>(d.compared),
                d.diverged ? std::to_string(d.first_divergent_tick).c_str() : "-", d.max_error, d.mean_error,
                static_cast<unsigned long long>(d.ground_mismatches), d.diverged ? d.explanation.c_str() : "");
  }
  std::size_t diverged = 0, by_interaction = 0, by_server = 0;
  for (const auto& d : diff.characters) {
    diverged += d.diverged;
    by_interaction += d.diverged && d.cause == replay::CharacterDiff::Cause::kInteraction;
    by_server += d.diverged && d.cause == replay::CharacterDiff::Cause::kServer;
  }
  if (diff.characters.empty()) std::printf("no (tick, id) appears in both traces\n");
  if (!o.plot.empty()) {
    std::ofstream svg(o.plot, std::ios::binary | std::ios::trunc);
    svg << replay::render_svg(diff, o.a, o.b, o.tolerance);
    if (!svg) return usage_error("cannot write plot '" + o.plot + "'");
    std::printf("plot: %s\n", o.plot.c_str());
  }
  // The last line, for scripts.
  std::printf("characters=%zu diverged=%zu rows_only_in_a=%llu rows_only_in_b=%llu within_tolerance=%s by_interaction=%zu "
              "by_server=%zu\n",
              diff.characters.size(), diverged, static_cast<unsigned long long>(diff.rows_only_in_a),
              static_cast<unsigned long long>(diff.rows_only_in_b), diff.within_tolerance ? "yes" : "no", by_interaction,
              by_server);
  return diff.within_tolerance && !diff.characters.empty() ? 0 : 1;
}

struct ViewOptions {
  std::vector<std::string> files;
  std::string html, world;
};

// One side made of every file: traces as they are, recordings re-simulated (their inputs known).
int view_command(const ViewOptions& o) {
  if (o.html.empty()) return usage_error("view: --html REPORT.html is required");
  std::vector<replay::LoadedRecording> recordings;
  recordings.reserve(o.files.size());
  std::vector<replay::Trace> traces;
  std::string err;
  for (const std::string& f : o.files) {
    replay::LoadedRecording rec;
    std::string rec_err;
    if (replay::load_recording(f, rec, rec_err)) {
      recordings.push_back(std::move(rec));
      continue;
    }
    replay::Trace t;
    std::string trace_err;
    if (!replay::read_trace(f, t, trace_err))
      return usage_error(f + " is neither a recording (" + rec_err + ") nor a trace (" + trace_err + ")");
    traces.push_back(std::move(t));
  }
  std::string world_name;
  auto world = report_world(o.world, recordings.empty() ? nullptr : &recordings.front(), world_name, err);
  if (!world) return usage_error(err);
  replay::ReportSide side;
  side.name = o.files.size() == 1 ? o.files.front() : std::to_string(o.files.size()) + " files";
  for (const auto& rec : recordings) {
    if (rec.header.world_hash != world->hash()) return usage_error("the recordings were made in different worlds");
    const auto rows = recording_rows(rec, *world);
    side.rows.insert(side.rows.end(), rows.begin(), rows.end());
  }
  for (const auto& t : traces) side.rows.insert(side.rows.end(), t.rows.begin(), t.rows.end());
  side.inputs = recordings.empty() ? nullptr : &recordings.front();
  const MoveSettings settings = recordings.empty() ? MoveSettings{} : recordings.front().header.settings;
  return write_report(o.html, *world, settings, {side}, "view " + side.name, world_name);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"foothold-replay: run movement scenarios, replay recordings, verify determinism, diff trajectories"};
  // The same options on every system: on Windows CLI11 would also read "/name" as an option, and
  // take an absolute path given as an argument ("/levels/a.glb") for one.
  app.allow_windows_style_options(false);
  app.require_subcommand(1);

  RunOptions run_opts;
  auto* run = app.add_subcommand("run", "Simulate a character through an input script and write its trace");
  run->add_option("--world", run_opts.world, "'arena' (embedded), an OBJ file, or a glTF file (.gltf, .glb)")->capture_default_str();
  run->add_option("--settings", run_opts.settings_path, "movement settings (TOML)");
  run->add_option("--spawn", run_opts.spawns, "spawn position X,Y,Z (capsule centre, metres); repeat for more characters")
      ->allow_extra_args(false);
  run->add_option("--inputs", run_opts.inputs,
                  "input script: lines of 'TICKS MOVE_X MOVE_Z BUTTONS'; repeat for one per character, or one for all")
      ->allow_extra_args(false);
  run->add_option("--out", run_opts.out, "trace CSV to write")->required();
  ReplayOptions replay_opts;
  run->add_option("--replay", replay_opts.recording, "re-simulate this recording instead of a script");
  run->add_option("--from", replay_opts.from_tick, "with --replay: start at the last keyframe before this tick");
  run->add_option("--threads", replay_opts.threads, "with --replay: threads to re-simulate with (default 2)");

  auto* verify = app.add_subcommand("verify", "Re-simulate a recording and check every tick's checksums (exit 1 on a mismatch)");
  ReplayOptions verify_opts;
  verify->add_option("recording", verify_opts.recording, "the recording")->required();
  verify->add_option("--world", verify_opts.world, "the world, when the recording's own name does not reach it");
  verify->add_option("--threads", verify_opts.threads, "threads to re-simulate with (default 2)");

  auto* info = app.add_subcommand("info", "Describe a recording: header, duration, characters, size, whether it ends cleanly, messages");
  ReplayOptions info_opts;
  info->add_option("recording", info_opts.recording, "the recording")->required();

  auto* world_cmd = app.add_subcommand("world", "Describe a world (triangles, hash, bounds); --export writes it as glTF");
  WorldOptions world_opts;
  world_cmd->add_option("--world", world_opts.world, "'arena', an OBJ file, or a glTF file (.gltf, .glb)")->capture_default_str();
  world_cmd->add_option("--export", world_opts.export_path, "write the world as binary glTF (.glb), tags as materials");

  auto* diff = app.add_subcommand("diff", "Compare two traces (exit 0 within tolerance, 1 beyond)");
  DiffOptions diff_opts;
  diff->add_option("a", diff_opts.a, "first trace (e.g. the server's)")->required();
  diff->add_option("b", diff_opts.b, "second trace (e.g. a client's)")->required();
  diff->add_option("--tolerance", diff_opts.tolerance, "metres of position error allowed; 0 (default) means bit-exact");
  diff->add_option("--inputs-a", diff_opts.inputs_a, "the first side's input stream (a recording), to explain divergences");
  diff->add_option("--inputs-b", diff_opts.inputs_b,
                   "the second side's input stream (without it, the first side's inputs are taken for both)");
  diff->add_option("--plot", diff_opts.plot, "write an SVG of both paths and the error over time");
  diff->add_option("--html", diff_opts.html, "write a self-contained 3D report: both sides, the world, a timeline per character");
  diff->add_option("--world", diff_opts.world, "with --html: the world to draw (default: --inputs-a's, else the arena)");
  auto* view = app.add_subcommand("view", "Write a self-contained 3D report of recordings and traces (--html)");
  ViewOptions view_opts;
  view->add_option("files", view_opts.files, "recordings and traces, drawn together")->required();
  view->add_option("--html", view_opts.html, "the report to write")->required();
  view->add_option("--world", view_opts.world, "the world to draw (default: the first recording's, else the arena)");

  if (argc >= 2 && argv[1][0] != '-') {
    const auto known = app.get_subcommands([&](const CLI::App* sub) { return sub->get_name() == argv[1]; });
    if (known.empty()) return usage_error(std::string("unknown command '") + argv[1] + "' (see --help)");
  }
  app.set_version_flag("--version", version_line("foothold-replay"), "print the version and exit");

  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {  // --help, --version
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kExitUsage;
  }
  if (*run) {
    if (!replay_opts.recording.empty()) {
      if (!run_opts.spawns.empty() || !run_opts.inputs.empty()) return usage_error("run: give either --replay or --spawn with --inputs");
      replay_opts.world = run_opts.world == "arena" ? "" : run_opts.world;
      replay_opts.out = run_opts.out;
      if (replay_opts.threads < 1 || replay_opts.threads > 64) return usage_error("--threads must be in [1, 64]");
      return replay_command(replay_opts);
    }
    if (run_opts.spawns.empty() || run_opts.inputs.empty())
      return usage_error("run: --spawn and --inputs are required (or --replay FILE)");
    return run_scenario_command(run_opts);
  }
  if (*world_cmd) return world_command(world_opts);
  if (*verify) {
    if (verify_opts.threads < 1 || verify_opts.threads > 64) return usage_error("--threads must be in [1, 64]");
    return verify_command(verify_opts);
  }
  if (*info) return info_command(info_opts);
  if (*diff) return diff_command(diff_opts);
  if (*view) return view_command(view_opts);
  return kExitUsage;
}
