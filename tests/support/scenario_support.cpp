#include "support/scenario_support.h"

namespace foothold::test {

const World& arena_world() {
  static const std::unique_ptr<World> world = [] {
    auto built = World::create(build_arena_mesh(), "arena");
    if (!built.world) throw std::runtime_error(built.error);
    return std::move(built.world);
  }();
  return *world;
}

std::unique_ptr<World> make_world(TriangleMesh mesh, const std::string& name) {
  auto built = World::create(mesh, name);
  EXPECT_TRUE(built.world) << built.error;
  return std::move(built.world);
}

replay::ScenarioRun run_script(const World& world, const Vec3& spawn, const std::string& script, const MoveSettings& settings) {
  const auto parsed = replay::parse_input_script(script, "test-script");
  EXPECT_TRUE(parsed.ok()) << parsed.error;
  return replay::run_scenario(world, settings, spawn, parsed);
}

double rest_height(const MoveSettings& s) {
  return to_position(quantize_position({0, s.height / 2 + s.contact_distance / 2, 0})).y;
}

int first_grounded(const replay::ScenarioRun& run, int from) {
  for (size_t i = size_t(from); i < run.rows.size(); ++i)
    if (is_grounded(run.rows[i].state.ground)) return int(i);
  return -1;
}

}  // namespace foothold::test
