#pragma once
// Helpers for scenario tests: worlds, scripts and trace queries.

#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "replay/scenario.h"
#include "shared/arena.h"
#include "shared/world.h"

namespace foothold::test {

/// The embedded arena, built once per test binary.
const World& arena_world();

/// A world from a builder mesh; fails the test on error.
std::unique_ptr<World> make_world(TriangleMesh mesh, const std::string& name = "test");

/// A room for game-driven movers (shared/mover_clock.h), built once: a 20 m floor at y = 0; mover 0
/// "lift", a 3 m deck 0.2 m thick centred at (-4, 0.1, 0), driven, rising 3 m (keys 0 s, 2 s, 4 s:
/// down, up, down); mover 1 "door", a slab 0.3 x 2.5 x 3 m centred at (4, 1.25, 0), driven, sliding
/// 3 m towards +z (keys 0 s, 1 s, 2 s: shut, open, shut); trigger "switch", a box on the floor from
/// (1, 0, -1.5) to (3, 1, 1.5), before the door.
const World& lift_and_door_world();
/// A mover the game drives (extras.foothold.driven): a box from `lo` to `hi` whose one translation
/// channel goes through `offsets` at `times` (seconds), looping over the last time.
MoverMesh driven_mover(const std::string& name, const Vec3& lo, const Vec3& hi, const std::vector<double>& times,
                       const std::vector<Vec3>& offsets);

/// Runs a script (text, as in a script file) from `spawn`.
replay::ScenarioRun run_script(const World& world, const Vec3& spawn, const std::string& script,
                               const MoveSettings& settings = {});

inline Vec3 pos(const TraceRow& row) { return to_position(row.state.position); }
inline Vec3 vel(const TraceRow& row) { return to_velocity(row.state.velocity); }

/// The resting height of the capsule centre above a flat floor at y = 0 with default settings,
/// rounded to the grid as the step leaves it.
double rest_height(const MoveSettings& s = {});

/// The first tick (row index) at or after `from` where the character is grounded; -1 if never.
int first_grounded(const replay::ScenarioRun& run, int from = 0);

}  // namespace foothold::test
