#include "replay/scenario.h"

#include <algorithm>

#include "shared/tick.h"

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

std::vector<ScenarioRun> run_scenarios(const World& world, const MoveSettings& settings, const std::vector<Vec3>& spawns,
                                       const std::vector<InputScript>& scripts) {
  const DerivedSettings derived = derive(settings);
  const std::size_t n = spawns.size();
  auto script_of = [&](std::size_t i) -> const InputScript& { return scripts.size() == 1 ? scripts[0] : scripts[i]; };
  // Every script flattened to one command per tick.
  std::vector<std::vector<InputCmd>> commands(n);
  uint64_t ticks = 0;
  for (std::size_t i = 0; i < n; ++i) {
    for (const auto& line : script_of(i).lines) commands[i].insert(commands[i].end(), line.ticks, line.command);
    ticks = std::max<uint64_t>(ticks, commands[i].size());
  }
  std::vector<ScenarioRun> runs(n);
  std::vector<CharacterState> state(n);
  for (std::size_t i = 0; i < n; ++i) {
    state[i] = spawn_state(spawns[i]);
    runs[i].rows.reserve(ticks + 1);
    runs[i].diagnostics.reserve(ticks);
    runs[i].rows.push_back({0, uint32_t(i), state[i]});
  }
  TickRunner runner;
  std::vector<TickCharacter> characters(n);
  for (uint32_t tick = 1; tick <= ticks; ++tick) {
    for (std::size_t i = 0; i < n; ++i)
      characters[i] = {uint32_t(i), state[i], tick <= commands[i].size() ? commands[i][tick - 1] : InputCmd{}, nullptr};
    runner.run(tick, characters, world, derived);
    for (std::size_t i = 0; i < n; ++i) {
      const TickResult& r = runner.results()[i];  // ids are the indices, so already in order
      state[i] = r.state;
      runs[i].rows.push_back({tick, uint32_t(i), r.state});
      runs[i].diagnostics.push_back(r.diagnostics);
    }
  }
  return runs;
}

}  // namespace foothold::replay
