#include "replay/scenario.h"

namespace foothold::replay {

ScenarioRun run_scenario(const World& world, const MoveSettings& settings, const Vec3& spawn, const InputScript& script,
                         uint32_t id) {
  const DerivedSettings derived = derive(settings);
  StepScratch scratch;
  ScenarioRun run;
  const uint64_t ticks = script.total_ticks();
  run.rows.reserve(ticks + 1);
  run.diagnostics.reserve(ticks);
  CharacterState state = spawn_state(spawn);
  run.rows.push_back({0, id, state});
  uint32_t tick = 0;
  for (const auto& line : script.lines) {
    for (uint32_t i = 0; i < line.ticks; ++i) {
      ++tick;
      InputCmd input = line.command;
      input.tick = tick;
      const StepResult r = step(state, input, world, derived, scratch);
      state = r.state;
      run.rows.push_back({tick, id, state});
      run.diagnostics.push_back(r.diagnostics);
    }
  }
  return run;
}

}  // namespace foothold::replay
