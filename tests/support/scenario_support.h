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
