#pragma once
// Runs characters through input scripts: the scenario runner behind `foothold-replay run`, and the
// harness of the scenario tests.

#include <vector>

#include "replay/input_script.h"
#include "shared/settings.h"
#include "shared/step.h"
#include "shared/formats/trace.h"
#include "shared/world.h"

namespace foothold::replay {

/// One character's run through a script: its states and what each step found.
struct ScenarioRun {
  std::vector<TraceRow> rows;                 ///< row 0 is the spawn state, row t the state after tick t
  std::vector<StepDiagnostics> diagnostics;   ///< diagnostics[t - 1] belongs to row t
};

/// Simulates character `id` from `spawn` (metres, rounded to the grid) through every line of the
/// script. Tick t consumes the script's t-th input (ticks from 1). `id` only labels the rows.
/// Nothing is kept: `world` and `settings` are used during the call only.
ScenarioRun run_scenario(const World& world, const MoveSettings& settings, const Vec3& spawn, const InputScript& script,
                         uint32_t id = 0);

/// Simulates several characters together, as the server would (movement.md §16: each steps against
/// the others as they were at the start of the tick; movers and all): character i starts at
/// spawns[i] and follows scripts[i], or scripts[0] when there is only one script. Its id is i. The
/// run lasts as long as the longest script; a character whose script has ended stands still.
/// Precondition: scripts.size() is 1 or spawns.size(); spawns is not empty.
std::vector<ScenarioRun> run_scenarios(const World& world, const MoveSettings& settings, const std::vector<Vec3>& spawns,
                                       const std::vector<InputScript>& scripts);

}  // namespace foothold::replay
