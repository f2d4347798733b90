#include "support/scenario_support.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>

#include "shared/formats/trace.h"

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

MoverMesh driven_mover(const std::string& name, const Vec3& lo, const Vec3& hi, const std::vector<double>& times,
                       const std::vector<Vec3>& offsets) {
  MeshBuilder b;
  b.box(lo, hi);
  MoverMesh m;
  m.name = name;
  m.mesh = b.take();
  m.driven = true;
  Channel c;
  c.times = times;
  for (const Vec3& v : offsets) c.values.insert(c.values.end(), {v.x, v.y, v.z});
  c.period = times.back();
  m.chain.push_back(Link{Pose{}, {c}});
  return m;
}

const World& lift_and_door_world() {
  static const std::unique_ptr<World> world = [] {
    MeshBuilder b;
    b.floor_grid(-10, -10, 10, 10, 0, 2);
    TriangleMesh mesh = b.take();
    mesh.movers.push_back(driven_mover("lift", {-5.5, 0, -1.5}, {-2.5, 0.2, 1.5}, {0, 2, 4}, {{0, 0, 0}, {0, 3, 0}, {0, 0, 0}}));
    mesh.movers.push_back(driven_mover("door", {3.85, 0, -1.5}, {4.15, 2.5, 1.5}, {0, 1, 2}, {{0, 0, 0}, {0, 0, 3}, {0, 0, 0}}));
    mesh.triggers.push_back(TriggerBox{"switch", {1, 0, -1.5}, {3, 1, 1.5}, 0});
    return make_world(std::move(mesh), "lift_and_door");
  }();
  return *world;
}

replay::ScenarioRun run_script(const World& world, const Vec3& spawn, const std::string& script, const MoveSettings& settings) {
  const auto parsed = replay::parse_input_script(script, "test-script");
  EXPECT_TRUE(parsed.ok()) << parsed.error;
  replay::ScenarioRun run = replay::run_scenario(world, settings, spawn, parsed);
  // FOOTHOLD_TRACE_DIR: every scenario's trace goes to DIR/<suite>.<test>.<n>.csv, with the world and
  // settings hashes in a line of its own, so that builds on other machines and architectures can be
  // compared byte for byte (tests/determinism/cross_arch.sh).
  if (const char* dir = std::getenv("FOOTHOLD_TRACE_DIR"); dir && *dir) {
    static std::map<std::string, int> runs;
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    const std::string name = info ? std::string(info->test_suite_name()) + "." + info->name() : "no-test";
    std::ofstream out(std::string(dir) + "/" + name + "." + std::to_string(runs[name]++) + ".csv", std::ios::binary);
    char hashes[96];
    std::snprintf(hashes, sizeof hashes, "# world %016llx settings %016llx\n", static_cast<unsigned long long>(world.hash()),
                  static_cast<unsigned long long>(settings.hash()));
    out << hashes;
    TraceWriter writer(out);
    for (const auto& row : run.rows) writer.write(row);
  }
  return run;
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
