// glTF worlds (shared/formats/gltf_loader.h): node transforms and mirrors, primitive modes and index types,
// tags and decoration from materials and extras, every error named, the arena through .glb, and the
// OBJ polygon split the way the level's tools split it.

#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <limits>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "shared/formats/gltf_loader.h"
#include "shared/formats/obj_loader.h"
#include "support/scenario_support.h"
#include "shared/formats/world_file.h"

namespace foothold::test {
namespace {

std::string base64(const std::vector<uint8_t>& in) {
  static const char* k = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (std::size_t i = 0; i < in.size(); i += 3) {
    const uint32_t n = (uint32_t(in[i]) << 16) | (i + 1 < in.size() ? uint32_t(in[i + 1]) << 8 : 0) |
                       (i + 2 < in.size() ? uint32_t(in[i + 2]) : 0);
    out += k[(n >> 18) & 63];
    out += k[(n >> 12) & 63];
    out += i + 1 < in.size() ? k[(n >> 6) & 63] : '=';
    out += i + 2 < in.size() ? k[n & 63] : '=';
  }
  return out;
}

// Builds a glTF JSON document with one data-URI buffer.
class Doc {
 public:
  // A VEC3 float accessor of `points`; returns its index.
  int positions(const std::vector<Vec3>& points) {
    const std::size_t off = bin_.size();
    for (const Vec3& p : points) {
      const float f[3] = {float(p.x), float(p.y), float(p.z)};
      append(f, sizeof f);
    }
    return accessor(off, bin_.size() - off, "5126", points.size(), "VEC3");
  }
  // A SCALAR index accessor with components of `bytes` bytes (1, 2 or 4).
  int indices(const std::vector<uint32_t>& idx, int bytes) {
    while (bin_.size() % 4) bin_.push_back(0);
    const std::size_t off = bin_.size();
    for (uint32_t v : idx) append(&v, std::size_t(bytes));
    const char* type = bytes == 1 ? "5121" : bytes == 2 ? "5123" : "5125";
    return accessor(off, bin_.size() - off, type, idx.size(), "SCALAR");
  }
  // A float accessor of `values` read as `shape` ("SCALAR", "VEC3" or "VEC4"); returns its index.
  int floats(const std::vector<double>& values, const char* shape) {
    while (bin_.size() % 4) bin_.push_back(0);
    const std::size_t off = bin_.size();
    for (double v : values) {
      const float f = float(v);
      append(&f, sizeof f);
    }
    const std::size_t per = std::string(shape) == "VEC4" ? 4 : std::string(shape) == "VEC3" ? 3 : 1;
    return accessor(off, bin_.size() - off, "5126", values.size() / per, shape);
  }
  std::string json(const std::string& rest) const {
    std::string views, accs;
    for (const auto& v : views_) views += (views.empty() ? "" : ",") + v;
    for (const auto& a : accessors_) accs += (accs.empty() ? "" : ",") + a;
    return R"({"asset":{"version":"2.0"},"buffers":[{"byteLength":)" + std::to_string(bin_.size()) +
           R"(,"uri":"data:application/octet-stream;base64,)" + base64(bin_) + R"("}],"bufferViews":[)" + views +
           R"(],"accessors":[)" + accs + "]," + rest + "}";
  }

 private:
  void append(const void* p, std::size_t n) {
    const auto* b = static_cast<const uint8_t*>(p);
    bin_.insert(bin_.end(), b, b + n);
  }
  int accessor(std::size_t off, std::size_t len, const char* type, std::size_t count, const char* shape) {
    views_.push_back(R"({"buffer":0,"byteOffset":)" + std::to_string(off) + R"(,"byteLength":)" + std::to_string(len) + "}");
    accessors_.push_back(R"({"bufferView":)" + std::to_string(views_.size() - 1) + R"(,"componentType":)" + type +
                         R"(,"count":)" + std::to_string(count) + R"(,"type":")" + shape + R"("})");
    return int(accessors_.size() - 1);
  }
  std::vector<uint8_t> bin_;
  std::vector<std::string> views_, accessors_;
};

MeshLoad load_json(const std::string& json, const std::string& name = "test.gltf") {
  return load_gltf_memory(reinterpret_cast<const uint8_t*>(json.data()), json.size(), false, name);
}

// A 2 m square floor at y = 0 around the origin, front up, as six unindexed vertices.
const std::vector<Vec3> kFloor = {{-1, 0, -1}, {-1, 0, 1}, {1, 0, 1}, {-1, 0, -1}, {1, 0, 1}, {1, 0, -1}};

// The test level: a root node moved to x = 10 and turned 90 degrees about Y, with children: a floor;
// a mirrored floor (scale -1 in X) 5 m along the root's Z (world x = 15); a decoration floor
// (collide: false) at world x = 20 with a child of its own; a floor tagged never by the node's
// extras at world x = 5; and a floor whose material is always_ground at world x = 0.
std::string test_level() {
  Doc d;
  const int floor = d.positions(kFloor);
  const int quad = d.positions({{-1, 0, -1}, {-1, 0, 1}, {1, 0, 1}, {1, 0, -1}});
  const int quad_idx = d.indices({0, 1, 2, 0, 2, 3}, 2);
  return d.json(R"("materials":[{"name":"always_ground"}],
    "meshes":[{"primitives":[{"attributes":{"POSITION":)" + std::to_string(floor) + R"(}}]},
              {"primitives":[{"attributes":{"POSITION":)" + std::to_string(quad) + R"(},"indices":)" +
                std::to_string(quad_idx) + R"(,"material":0}]}],
    "nodes":[{"translation":[10,0,0],"rotation":[0,0.7071067811865476,0,0.7071067811865476],"children":[1,2,3,5,6]},
             {"mesh":0},
             {"mesh":0,"translation":[0,0,5],"scale":[-1,1,1]},
             {"mesh":0,"translation":[0,0,10],"children":[4],"extras":{"foothold":{"collide":false}}},
             {"mesh":0,"translation":[0,1,0]},
             {"mesh":0,"translation":[0,0,-5],"extras":{"foothold":{"ground":"never"}}},
             {"mesh":1,"translation":[0,0,-10]}],
    "scenes":[{"nodes":[0]}],"scene":0)");
}

GroundKind ground_after_drop(const World& world, double x) {
  const auto run = run_script(world, {x, rest_height() + 0.5, 0}, "60 0 0 -\n");
  return run.rows.back().state.ground;
}

TEST(Gltf, NodeTransformsMirrorsTagsAndDecorationPlaceTheLevel) {
  const MeshLoad loaded = load_json(test_level());
  ASSERT_TRUE(loaded.ok()) << loaded.error;
  EXPECT_EQ(loaded.mesh.faces.size(), 8u) << "four collidable floors of two triangles; decoration left out";
  const auto world = make_world(loaded.mesh, "level");
  // Every floor faces up wherever it went, the mirrored one included (its winding was reversed).
  for (uint32_t i = 0; i < world->triangle_count(); ++i) EXPECT_NEAR(world->triangle(i).tri.normal.y, 1, 1e-6) << i;
  EXPECT_EQ(ground_after_drop(*world, 10), GroundKind::kWalkable);
  EXPECT_EQ(ground_after_drop(*world, 15), GroundKind::kWalkable) << "the mirrored floor holds";
  EXPECT_EQ(ground_after_drop(*world, 5), GroundKind::kNone) << "tagged never by its node's extras";
  EXPECT_EQ(ground_after_drop(*world, 0), GroundKind::kTagged) << "the always_ground material";
  // The decoration floor is walked (here: fallen) through.
  const auto through = run_script(*world, {20, rest_height() + 0.5, 0}, "60 0 0 -\n");
  EXPECT_LT(pos(through.rows.back()).y, -1.0);
}

TEST(Gltf, StripsFansAndEveryIndexTypeGiveTheSameTriangles) {
  // A quad as TRIANGLES (unsigned int indices), TRIANGLE_STRIP (unsigned byte) and TRIANGLE_FAN
  // (unsigned short): the same two up-facing triangles each time.
  const std::vector<Vec3> quad = {{0, 0, 0}, {0, 0, 1}, {1, 0, 1}, {1, 0, 0}};
  auto one = [&](int mode, const std::vector<uint32_t>& idx, int bytes) {
    Doc d;
    const int p = d.positions(quad);
    const int i = d.indices(idx, bytes);
    return load_json(d.json(R"("meshes":[{"primitives":[{"attributes":{"POSITION":)" + std::to_string(p) +
                            R"(},"indices":)" + std::to_string(i) + R"(,"mode":)" + std::to_string(mode) +
                            R"(}]}],"nodes":[{"mesh":0}],"scenes":[{"nodes":[0]}])"));
  };
  for (const auto& [name, load] : {std::pair{"triangles", one(4, {0, 1, 2, 0, 2, 3}, 4)},
                                   std::pair{"strip", one(5, {1, 2, 0, 3}, 1)}, std::pair{"fan", one(6, {0, 1, 2, 3}, 2)}}) {
    SCOPED_TRACE(name);
    ASSERT_TRUE(load.ok()) << load.error;
    ASSERT_EQ(load.mesh.faces.size(), 2u);
    for (const auto& f : load.mesh.faces) {
      const Vec3 &a = load.mesh.vertices[f.v[0]], &b = load.mesh.vertices[f.v[1]], &c = load.mesh.vertices[f.v[2]];
      EXPECT_GT(cross(b - a, c - a).y, 0) << "front faces up";
    }
  }
}

TEST(Gltf, PointsAndLinesAreSkippedAndCounted) {
  Doc d;
  const int p = d.positions(kFloor);
  const auto load = load_json(d.json(R"("meshes":[{"primitives":[{"attributes":{"POSITION":)" + std::to_string(p) +
                                     R"(}},{"attributes":{"POSITION":)" + std::to_string(p) + R"(},"mode":1},
      {"attributes":{"POSITION":)" + std::to_string(p) + R"(},"mode":0}]}],"nodes":[{"mesh":0}],"scenes":[{"nodes":[0]}])"));
  ASSERT_TRUE(load.ok()) << load.error;
  EXPECT_EQ(load.mesh.faces.size(), 2u);
  ASSERT_EQ(load.warnings.size(), 1u);
  EXPECT_NE(load.warnings[0].find("skipped 2 primitive(s)"), std::string::npos) << load.warnings[0];
}

void expect_error(const MeshLoad& load, const std::string& part) {
  EXPECT_FALSE(load.ok()) << part;
  EXPECT_NE(load.error.find("bad.gltf"), std::string::npos) << load.error;
  EXPECT_NE(load.error.find(part), std::string::npos) << load.error;
  EXPECT_TRUE(load.mesh.faces.empty());
}

TEST(Gltf, EveryErrorNamesTheFileAndTheElement) {
  expect_error(load_json("{\"asset\":{\"version\":\"2.0\"", "bad.gltf"), "bad.gltf");  // bad JSON
  Doc d;
  const int p = d.positions(kFloor);
  const std::string mesh = R"("meshes":[{"primitives":[{"attributes":{"POSITION":)" + std::to_string(p) + "}}]}]";
  // An accessor reaching beyond its buffer view.
  std::string json = d.json(mesh + R"(,"nodes":[{"mesh":0}],"scenes":[{"nodes":[0]}])");
  const std::string count = "\"count\":6";
  json.replace(json.find(count), count.size(), "\"count\":600");
  expect_error(load_json(json, "bad.gltf"), "accessors[0]");
  // A missing external buffer.
  expect_error(load_json(R"({"asset":{"version":"2.0"},"buffers":[{"byteLength":72,"uri":"missing.bin"}],
    "bufferViews":[{"buffer":0,"byteLength":72}],"accessors":[{"bufferView":0,"componentType":5126,"count":6,"type":"VEC3"}],
    "meshes":[{"primitives":[{"attributes":{"POSITION":0}}]}],"nodes":[{"mesh":0}],"scenes":[{"nodes":[0]}]})",
                         "bad.gltf"),
               "missing.bin");
  // Non-finite positions.
  Doc nan;
  const int q = nan.positions({{0, 0, 0}, {0, 0, 1}, {1, 0, std::numeric_limits<double>::infinity()}});
  expect_error(load_json(nan.json(R"("meshes":[{"primitives":[{"attributes":{"POSITION":)" + std::to_string(q) +
                                  R"(}}]}],"nodes":[{"mesh":0}],"scenes":[{"nodes":[0]}])"),
                         "bad.gltf"),
               "not finite");
  // An index beyond the vertices; a node that is its own ancestor; a mesh that does not exist.
  Doc idx;
  const int ip = idx.positions(kFloor);
  const int ii = idx.indices({0, 1, 9}, 2);
  expect_error(load_json(idx.json(R"("meshes":[{"primitives":[{"attributes":{"POSITION":)" + std::to_string(ip) +
                                  R"(},"indices":)" + std::to_string(ii) + R"(}]}],"nodes":[{"mesh":0}],"scenes":[{"nodes":[0]}])"),
                         "bad.gltf"),
               "refers to vertex 9 of 6");
  expect_error(load_json(d.json(mesh + R"(,"nodes":[{"mesh":0,"children":[1]},{"children":[0]}],"scenes":[{"nodes":[0]}])"),
                         "bad.gltf"),
               "nodes[0] is its own ancestor");
  expect_error(load_json(d.json(mesh + R"(,"nodes":[{"mesh":7}],"scenes":[{"nodes":[0]}])"), "bad.gltf"), "nodes[0].mesh");
  expect_error(load_json(d.json(mesh + R"(,"nodes":[{"mesh":0,"extras":{"foothold":{"ground":"sometimes"}}}],"scenes":[{"nodes":[0]}])"),
                         "bad.gltf"),
               "extras.foothold.ground");
}

TEST(Gltf, ExternalBuffersAreReadBesideTheFile) {
  // level.gltf with its positions in level.bin, loaded by path as every tool loads worlds.
  const std::string dir = ::testing::TempDir();
  std::ofstream bin(dir + "level.bin", std::ios::binary);
  for (const Vec3& p : kFloor) {
    const float f[3] = {float(p.x), float(p.y), float(p.z)};
    bin.write(reinterpret_cast<const char*>(f), sizeof f);
  }
  bin.close();
  std::ofstream(dir + "level.gltf") << R"({"asset":{"version":"2.0"},"buffers":[{"byteLength":72,"uri":"level.bin"}],
    "bufferViews":[{"buffer":0,"byteLength":72}],"accessors":[{"bufferView":0,"componentType":5126,"count":6,"type":"VEC3"}],
    "meshes":[{"primitives":[{"attributes":{"POSITION":0}}]}],"nodes":[{"mesh":0}],"scenes":[{"nodes":[0]}]})";
  const WorldLoad w = load_world(dir + "level.gltf");
  ASSERT_TRUE(w.world) << w.error;
  EXPECT_EQ(w.world->triangle_count(), 2u);
  EXPECT_EQ(ground_after_drop(*w.world, 0), GroundKind::kWalkable);
}

TEST(Gltf, CoordinatesOutsideTheFixedPointRangeAreRefusedByTheWorld) {
  Doc d;
  const int p = d.positions(kFloor);
  const std::string json = d.json(R"("meshes":[{"primitives":[{"attributes":{"POSITION":)" + std::to_string(p) +
                                  R"(}}]}],"nodes":[{"mesh":0,"translation":[3000000,0,0]}],"scenes":[{"nodes":[0]}])");
  const std::string path = ::testing::TempDir() + "far.gltf";
  std::ofstream(path) << json;
  const WorldLoad w = load_world(path);
  EXPECT_FALSE(w.world);
  EXPECT_NE(w.error.find("far.gltf"), std::string::npos) << w.error;
}

TEST(Gltf, TheSameLevelAsObjAndAsGlbIsTheSameWorld) {
  // The arena exported as .glb (positions are float32 in glTF) and written as OBJ with those same
  // float32 coordinates and tags: the two files give the same triangles, so the same world hash,
  // and every walk over stairs, the crevice, the pit and the tagged slopes is the same to the bit.
  const std::string glb_path = ::testing::TempDir() + "arena.glb", obj_path = ::testing::TempDir() + "arena.obj";
  // (The export writes one primitive per tag, so the OBJ lists its faces grouped by tag too: the
  // hash covers the triangles in order, and order decides ties.)
  TriangleMesh mesh;
  std::ofstream obj(obj_path);
  for (int tag = 0; tag < 3; ++tag)
  for (uint32_t i = 0; i < arena_world().triangle_count(); ++i) {
    const auto& t = arena_world().triangle(i);
    if (int(t.tag) != tag) continue;
    const uint32_t base = uint32_t(mesh.vertices.size());
    mesh.vertices.insert(mesh.vertices.end(), {t.tri.a, t.tri.b, t.tri.c});
    mesh.faces.push_back({{base, base + 1, base + 2}, t.tag});
    for (const Vec3* p : {&t.tri.a, &t.tri.b, &t.tri.c}) {
      char line[96];
      std::snprintf(line, sizeof line, "v %.17g %.17g %.17g\n", double(float(p->x)), double(float(p->y)), double(float(p->z)));
      obj << line;
    }
    obj << "usemtl " << (t.tag == SurfaceTag::kAlwaysGround ? "always_ground" : t.tag == SurfaceTag::kNeverGround ? "never_ground" : "stone")
        << "\nf " << base + 1 << " " << base + 2 << " " << base + 3 << "\n";
  }
  obj.close();
  ASSERT_EQ(write_glb(mesh, glb_path), "");
  const WorldLoad glb = load_world(glb_path);
  const WorldLoad from_obj = load_world(obj_path);
  ASSERT_TRUE(glb.world) << glb.error;
  ASSERT_TRUE(from_obj.world) << from_obj.error;
  EXPECT_EQ(glb.world->triangle_count(), arena_world().triangle_count());
  EXPECT_EQ(glb.world->hash(), from_obj.world->hash());
  EXPECT_NE(glb.world->hash(), arena_world().hash()) << "float32 coordinates are another level, and the hash says so";
  const std::string tour = "30 0 0 -\n90 1 0 -\n40 0 1 -\n60 -1 0.3 jump\n";
  for (const Vec3& spawn : {Vec3{arena::kStairX0 - 2, 1.5, -14}, Vec3{arena::kCreviceX, 4, 15}, Vec3{arena::kPitX, 4, arena::kPitZ},
                            Vec3{4.5, 3, -26}, Vec3{14, 1, -26}}) {
    SCOPED_TRACE(std::to_string(spawn.x) + "," + std::to_string(spawn.z));
    const auto a = run_script(*from_obj.world, spawn, tour);
    const auto b = run_script(*glb.world, spawn, tour);
    ASSERT_EQ(a.rows.size(), b.rows.size());
    for (std::size_t i = 0; i < a.rows.size(); ++i) ASSERT_EQ(a.rows[i].state, b.rows[i].state) << "tick " << i;
  }
}

TEST(ObjPolygons, AConvexPolygonIsAFanFromItsFirstVertex) {
  // A non-planar (saddle) quad: corners 1 and 3 low, 2 and 4 raised. The fan from corner 1 splits it
  // along the low diagonal, as the level's tools do; the other split would make a ridge.
  const MeshLoad obj = parse_obj("v 0 0 0\nv 0 0.3 2\nv 2 0 2\nv 2 0.3 0\nf 1 2 3 4\n", "saddle.obj");
  ASSERT_TRUE(obj.ok()) << obj.error;
  ASSERT_EQ(obj.mesh.faces.size(), 2u);
  EXPECT_EQ(obj.mesh.faces[0].v, (std::array<uint32_t, 3>{0, 1, 2}));
  EXPECT_EQ(obj.mesh.faces[1].v, (std::array<uint32_t, 3>{0, 2, 3}));
  // A character at the middle stands in the valley, below where the ridge would hold it.
  const auto world = make_world(obj.mesh, "saddle");
  const auto run = run_script(*world, {1, rest_height() + 0.5, 1}, "60 0 0 -\n");
  EXPECT_TRUE(is_grounded(run.rows.back().state.ground));
  EXPECT_LT(pos(run.rows.back()).y, 0.3 + rest_height() - 0.05);
  // A concave polygon (an L) is still ear-clipped: no triangle covers the notch.
  const MeshLoad l = parse_obj("v 0 0 0\nv 0 0 2\nv 2 0 2\nv 2 0 1\nv 1 0 1\nv 1 0 0\nf 1 2 3 4 5 6\n", "l.obj");
  ASSERT_TRUE(l.ok()) << l.error;
  EXPECT_EQ(l.mesh.faces.size(), 4u);
  for (const auto& f : l.mesh.faces) {
    Vec3 c{};
    for (uint32_t i : f.v) c += l.mesh.vertices[i] / 3;
    EXPECT_FALSE(c.x > 1 && c.z < 1) << "a triangle covers the notch";
  }
}

// A level with a static floor (node 0) and an animated platform (node 1, with a child floor of its
// own at node 2) whose channels are `channels` (JSON, samplers given by `samplers`), `times` and
// `values` the sampler accessors the caller made with `d`.
std::string animated_level(Doc& d, const std::string& platform_extra, const std::string& samplers,
                           const std::string& channels) {
  const int floor = d.positions(kFloor);
  return d.json(R"("meshes":[{"primitives":[{"attributes":{"POSITION":)" + std::to_string(floor) + R"(}}]}],
    "nodes":[{"mesh":0,"scale":[20,1,20]},
             {"mesh":0,"translation":[0,1,0])" + platform_extra + R"(,"children":[2]},
             {"mesh":0,"translation":[0,0,3]}],
    "animations":[{"samplers":[)" + samplers + R"(],"channels":[)" + channels + R"(]}],
    "scenes":[{"nodes":[0,1]}],"scene":0)");
}

std::string sampler(int in, int out, const char* interpolation) {
  return R"({"input":)" + std::to_string(in) + R"(,"output":)" + std::to_string(out) + R"(,"interpolation":")" +
         interpolation + R"("})";
}
std::string channel(int sampler, int node, const char* path) {
  return R"({"sampler":)" + std::to_string(sampler) + R"(,"target":{"node":)" + std::to_string(node) + R"(,"path":")" +
         path + R"("}})";
}

TEST(GltfMovers, AnAnimatedNodeAndItsChildrenBecomeOneMoverPosedByTick) {
  Doc d;
  const int t = d.floats({0, 2, 4}, "SCALAR");
  const int v = d.floats({0, 1, 0, 4, 1, 0, 0, 1, 0}, "VEC3");
  const MeshLoad loaded = load_json(animated_level(d, "", sampler(t, v, "LINEAR"), channel(0, 1, "translation")));
  ASSERT_TRUE(loaded.ok()) << loaded.error;
  ASSERT_EQ(loaded.mesh.movers.size(), 1u);
  EXPECT_EQ(loaded.mesh.movers[0].mesh.faces.size(), 4u) << "the node's floor and its child's";
  EXPECT_EQ(loaded.mesh.faces.size(), 2u) << "the static floor only";
  const auto world = make_world(loaded.mesh, "animated");
  const auto& chain = world->movers()[0].chain;
  // LINEAR: at 1 s (tick 60 at 60 Hz) a quarter of the way to x = 4, at 3 s half way back; a loop of 4 s.
  EXPECT_NEAR(chain_pose(chain, 60, 60).translation.x, 2, 1e-6);
  EXPECT_NEAR(chain_pose(chain, 180, 60).translation.x, 2, 1e-6);
  EXPECT_EQ(chain_pose(chain, 60, 60), chain_pose(chain, 60 + 240, 60));
  // The child's floor rides along: placed at the pose, 3 m along Z from the node.
  MoverFrame frame;
  frame.build(*world, 60, 60);
  bool child_seen = false;
  for (std::size_t i = 0; i < frame.triangle_count(); ++i) child_seen |= frame.triangle(i).lo.z >= 2 - 1e-6;
  EXPECT_TRUE(child_seen);
  // A character dropped on it at rest rides it.
  const auto run = run_script(*world, {0, 1 + rest_height() + 0.1, 0}, "120 0 0 -\n");
  EXPECT_EQ(run.rows.back().state.platform, 1);
  // Where it landed (the platform had moved on while it fell), carried to x = 4 at 2 s.
  const double offset_x = to_position(run.rows.back().state.platform_offset).x;
  EXPECT_LT(std::fabs(offset_x), 0.3);
  EXPECT_NEAR(to_position(run.rows.back().state.position).x, chain_pose(chain, 120, 60).translation.x + offset_x, 0.001);
}

// extras.foothold.driven on the animated node: a mover the game drives (shared/mover_clock.h),
// still at its animation's start until told; the mark changes the world's hash, and only an animated
// node takes it.
TEST(GltfMovers, ADrivenMoverStartsStillAndOnlyAnAnimatedNodeIsDriven) {
  auto load = [](const std::string& extra, int animated_node) {
    Doc d;
    const int t = d.floats({0, 2, 4}, "SCALAR");
    const int v = d.floats({0, 1, 0, 4, 1, 0, 0, 1, 0}, "VEC3");
    return load_json(animated_level(d, extra, sampler(t, v, "LINEAR"), channel(0, animated_node, "translation")));
  };
  const MeshLoad driven = load(R"(,"extras":{"foothold":{"driven":true}})", 1);
  ASSERT_TRUE(driven.ok()) << driven.error;
  ASSERT_EQ(driven.mesh.movers.size(), 1u);
  EXPECT_TRUE(driven.mesh.movers[0].driven);
  const MeshLoad running = load(R"(,"extras":{"foothold":{"driven":false}})", 1);
  ASSERT_TRUE(running.ok()) << running.error;
  EXPECT_FALSE(running.mesh.movers[0].driven);
  const auto a = make_world(driven.mesh, "driven"), b = make_world(running.mesh, "running");
  EXPECT_NE(a->hash(), b->hash());
  EXPECT_EQ(b->hash(), make_world(load("", 1).mesh, "plain")->hash()) << "driven: false is no mark at all";
  MoverFrame still, moving;
  still.build(*a, 60, 60);
  moving.build(*b, 60, 60);
  EXPECT_EQ(still.pose(0).translation.x, 0.0);
  EXPECT_NEAR(moving.pose(0).translation.x, 2, 1e-6);
  // Not a bool; on a node that is not animated (its child is the mover here).
  const MeshLoad not_bool = load(R"(,"extras":{"foothold":{"driven":"yes"}})", 1);
  EXPECT_NE(not_bool.error.find("nodes[1].extras.foothold.driven must be true or false"), std::string::npos) << not_bool.error;
  const MeshLoad not_animated = load(R"(,"extras":{"foothold":{"driven":true}})", 2);
  EXPECT_NE(not_animated.error.find("nodes[1].extras.foothold.driven: only an animated node"), std::string::npos)
      << not_animated.error;
}

TEST(GltfMovers, StepHoldsAndCubicSplineFollowsItsTangents) {
  Doc d;
  const int t = d.floats({0, 1, 2}, "SCALAR");
  const int step_v = d.floats({0, 1, 0, 2, 1, 0, 0, 1, 0}, "VEC3");
  // CUBICSPLINE: in-tangent, value, out-tangent per key; zero tangents make a smoothstep.
  const int cubic_v = d.floats({0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 4, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0}, "VEC3");
  for (const char* kind : {"STEP", "CUBICSPLINE"}) {
    Doc dd = d;
    const MeshLoad loaded = load_json(
        animated_level(dd, "", sampler(t, std::string(kind) == "STEP" ? step_v : cubic_v, kind), channel(0, 1, "translation")));
    ASSERT_TRUE(loaded.ok()) << kind << ": " << loaded.error;
    const auto& chain = loaded.mesh.movers.at(0).chain;
    if (std::string(kind) == "STEP") {
      EXPECT_EQ(chain_pose(chain, 59, 60).translation.x, 0);  // holds the first key until the second
      EXPECT_EQ(chain_pose(chain, 60, 60).translation.z, 0);
      EXPECT_EQ(chain_pose(chain, 60, 60).translation.x, 2);
    } else {
      // Half way from key 0 (z = 0) to key 1 (z = 4) with zero tangents: smoothstep(0.5) = 0.5.
      EXPECT_NEAR(chain_pose(chain, 30, 60).translation.z, 2, 1e-6);
      // A quarter of the way: 3u^2 - 2u^3 = 0.15625.
      EXPECT_NEAR(chain_pose(chain, 15, 60).translation.z, 4 * 0.15625, 1e-6);
    }
  }
}

TEST(GltfMovers, RotationChannelsSlerpAlongTheShorterArc) {
  Doc d;
  const int t = d.floats({0, 2}, "SCALAR");
  const double h = std::sqrt(0.5);
  const int v = d.floats({0, 0, 0, 1, 0, h, 0, h}, "VEC4");  // 0 to 90 degrees about Y
  const MeshLoad loaded = load_json(animated_level(d, "", sampler(t, v, "LINEAR"), channel(0, 1, "rotation")));
  ASSERT_TRUE(loaded.ok()) << loaded.error;
  const Pose half = chain_pose(loaded.mesh.movers.at(0).chain, 60, 60);
  const Vec3 x = rotate(half.rotation, {1, 0, 0});
  EXPECT_NEAR(x.x, std::cos(3.14159265358979 / 4), 1e-6);  // 45 degrees after 1 s
  EXPECT_NEAR(x.z, -std::sin(3.14159265358979 / 4), 1e-6);
  EXPECT_NEAR(half.translation.y, 1, 1e-12) << "the node's own translation stays";
}

TEST(GltfMovers, WhatAMoverCannotBeIsAnErrorNamingIt) {
  struct Case {
    std::string platform_extra, path, want;
  };
  const Case cases[] = {
      {"", "scale", "scale is animated"},
      {R"(,"matrix":[1,0,0,0,0,1,0,0,0,0,1,0,0,1,0,1])", "translation", "may not have a matrix"},
  };
  for (const Case& c : cases) {
    Doc d;
    const int t = d.floats({0, 1}, "SCALAR");
    const int v = d.floats({0, 0, 0, 1, 1, 1}, "VEC3");
    const MeshLoad loaded = load_json(animated_level(d, c.platform_extra, sampler(t, v, "LINEAR"), channel(0, 1, c.path.c_str())));
    EXPECT_FALSE(loaded.ok()) << c.want;
    EXPECT_NE(loaded.error.find(c.want), std::string::npos) << loaded.error;
  }
  {
    // Key times that do not increase.
    Doc d;
    const int t = d.floats({0, 1, 1}, "SCALAR");
    const int v = d.floats({0, 0, 0, 1, 1, 1, 2, 2, 2}, "VEC3");
    const MeshLoad loaded = load_json(animated_level(d, "", sampler(t, v, "LINEAR"), channel(0, 1, "translation")));
    EXPECT_NE(loaded.error.find("increase strictly"), std::string::npos) << loaded.error;
  }
  {
    // An animated child of a scaled node: it would not move rigidly.
    Doc d;
    const int t = d.floats({0, 1}, "SCALAR");
    const int v = d.floats({0, 0, 0, 1, 1, 1}, "VEC3");
    const MeshLoad loaded = load_json(animated_level(d, R"(,"scale":[2,2,2])", sampler(t, v, "LINEAR"), channel(0, 2, "translation")));
    EXPECT_NE(loaded.error.find("ancestor of it scales"), std::string::npos) << loaded.error;
  }
}


TEST(GltfLoader, AGlbWhoseChunksBreakTheContainerIsRefusedBeforeTinygltfReadsIt) {
  // The JSON chunk of fuzz_gltf's crash input, 1,033 bytes (not a multiple of 4), then a BIN chunk
  // that ends a byte past the file: Debian's tinygltf read past it.
  std::ifstream in(std::string(FOOTHOLD_SOURCE_DIR) + "/tests/fuzz/corpus/gltf/glb-unaligned-json-chunk", std::ios::binary);
  const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_EQ(bytes.size(), 1636u);
  const MeshLoad bad = load_gltf_memory(bytes.data(), bytes.size(), true, "crash.glb", "");
  EXPECT_EQ(bad.error, "crash.glb: GLB chunk 0 is 1033 bytes, not a multiple of 4");
  std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + 16);
  EXPECT_NE(load_gltf_memory(cut.data(), cut.size(), true, "cut.glb", "").error.find("shorter than its header"), std::string::npos);
  std::vector<uint8_t> lying = bytes;
  lying[8] = 0x65;  // the header's total length, one more than the file
  EXPECT_NE(load_gltf_memory(lying.data(), lying.size(), true, "l.glb", "").error.find("the GLB header says 1637 bytes"),
            std::string::npos);
}

}  // namespace
}  // namespace foothold::test

namespace foothold::test {
namespace {

// Issue #66: tests/fuzz/corpus/gltf/triggers.gltf, a 40 m floor and three triggers: "pad" (a cube
// scaled to 2 x 0.5 x 2 m at x = 5), "hill" (a node turned 90 degrees about Y over a child cube of
// 6 x 2 x 4 m, at x = -5) and "east" (the half x > 0, 10 m high).
MeshLoad trigger_level() { return load_gltf_file(std::string(FOOTHOLD_SOURCE_DIR) + "/tests/fuzz/corpus/gltf/triggers.gltf"); }

void expect_box(const TriggerBox& t, const Vec3& lo, const Vec3& hi) {
  EXPECT_NEAR(t.lo.x, lo.x, 1e-12) << t.name;
  EXPECT_NEAR(t.lo.y, lo.y, 1e-12) << t.name;
  EXPECT_NEAR(t.lo.z, lo.z, 1e-12) << t.name;
  EXPECT_NEAR(t.hi.x, hi.x, 1e-12) << t.name;
  EXPECT_NEAR(t.hi.y, hi.y, 1e-12) << t.name;
  EXPECT_NEAR(t.hi.z, hi.z, 1e-12) << t.name;
}

TEST(GltfTriggers, ATriggerNodeIsTheWorldBoxOfItsMeshesInFileOrder) {
  const MeshLoad loaded = trigger_level();
  ASSERT_TRUE(loaded.ok()) << loaded.error;
  EXPECT_EQ(loaded.mesh.faces.size(), 2u) << "the floor's two triangles: no trigger's cube collides";
  ASSERT_EQ(loaded.mesh.triggers.size(), 3u);
  EXPECT_EQ(loaded.mesh.triggers[0].name, "pad");
  EXPECT_EQ(loaded.mesh.triggers[1].name, "hill");
  EXPECT_EQ(loaded.mesh.triggers[2].name, "east");
  expect_box(loaded.mesh.triggers[0], {4, 0, -1}, {6, 0.5, 1});
  // The child's 6 x 4 m turned by its parent: 4 m along X, 6 m along Z.
  expect_box(loaded.mesh.triggers[1], {-7, 0, -3}, {-3, 2, 3});
  expect_box(loaded.mesh.triggers[2], {0, 0, -20}, {20, 10, 20});
  const auto world = make_world(loaded.mesh, "triggers");
  ASSERT_EQ(world->triggers().size(), 3u);
  EXPECT_EQ(world->trigger_index("hill"), 1);
  EXPECT_EQ(world->trigger_index("nowhere"), -1);
}

TEST(GltfTriggers, ACharacterWalksThroughATriggersMesh) {
  const MeshLoad loaded = trigger_level();
  ASSERT_TRUE(loaded.ok()) << loaded.error;
  const auto world = make_world(loaded.mesh, "triggers");
  // From x = -10 along +X for 3 s (about 12 m at the default walk speed): through the hill's 2 m cube.
  const auto run = run_script(*world, {-10, rest_height(), 0}, "180 1 0 -\n");
  EXPECT_GT(pos(run.rows.back()).x, -1.0) << "the hill's cube would have stopped it at x = -7";
  EXPECT_NEAR(pos(run.rows.back()).y, rest_height(), 1e-9) << "on the floor, not on a cube";
}

// A floor (node 0) and the level's node 1 (JSON) with the nodes after it (`more`, each with a
// leading comma); node `animated` (-1: none) slides 1 m along X and back.
std::string trigger_doc(const std::string& node1, const std::string& more = "", int animated = -1) {
  Doc d;
  const int floor = d.positions(kFloor);
  const int t = d.floats({0, 1}, "SCALAR");
  const int v = d.floats({0, 0, 0, 1, 0, 0}, "VEC3");
  const std::string animations =
      animated < 0 ? "" : R"("animations":[{"samplers":[)" + sampler(t, v, "LINEAR") + R"(],"channels":[)" + channel(0, animated, "translation") + "]}],";
  return d.json(R"("meshes":[{"primitives":[{"attributes":{"POSITION":)" + std::to_string(floor) + R"(}}]}],
    "nodes":[{"mesh":0,"scale":[20,1,20]},)" + node1 + more + "]," + animations + R"("scenes":[{"nodes":[0,1]}],"scene":0)");
}

// Node 1 as a cube 1 m up with extras.foothold `extra` and more JSON members `rest`.
std::string trigger_node(const std::string& extra, const std::string& rest = "") {
  return R"({"mesh":0,"translation":[0,1,0],"extras":{"foothold":)" + extra + "}" + rest + "}";
}

TEST(GltfTriggers, WhatATriggerCannotBeIsAnErrorNamingTheNode) {
  for (const std::string& value : std::vector<std::string>{"7", "\"\"", "\"a b\"", "\"" + std::string(33, 'x') + "\"", "true", "[\"a\"]", "{\"a\":1}"}) {
    SCOPED_TRACE(value);
    expect_error(load_json(trigger_doc(trigger_node(R"({"trigger":)" + value + "}")), "bad.gltf"),
                 "nodes[1].extras.foothold.trigger must be a string of 1-32 characters");
  }
  EXPECT_TRUE(load_json(trigger_doc(trigger_node(R"({"trigger":")" + std::string(32, 'x') + "\"}"))).ok())
      << "32 characters are allowed";
  const std::string a = R"({"trigger":"a"})";
  EXPECT_TRUE(load_json(trigger_doc(trigger_node(R"({"trigger":"a","shape":"box"})"))).ok());
  expect_error(load_json(trigger_doc(trigger_node(R"({"trigger":"a","shape":"convex"})")), "bad.gltf"),
               "nodes[1].extras.foothold.shape must be \"box\"");
  // A child's mesh is part of the volume.
  const MeshLoad child = load_json(trigger_doc(trigger_node(a, R"(,"children":[2])"), R"(,{"mesh":0,"translation":[0,0,3]})"));
  ASSERT_TRUE(child.ok()) << child.error;
  expect_box(child.mesh.triggers.at(0), {-1, 1, -1}, {1, 1, 4});
  expect_error(load_json(trigger_doc(trigger_node(a, R"(,"children":[2])"), R"(,{"mesh":0,"extras":{"foothold":{"trigger":"b"}}})"),
                         "bad.gltf"),
               "nodes[2] is a trigger inside the trigger nodes[1]");
  // Two of one name: the second in the scene's order is named.
  expect_error(load_json(trigger_doc(R"({"children":[2,3]})", R"(,{"mesh":0,"extras":{"foothold":{"trigger":"a"}}},
                                        {"mesh":0,"extras":{"foothold":{"trigger":"a"}}})"),
                         "bad.gltf"),
               "nodes[3].extras.foothold.trigger 'a' is also nodes[2]'s");
  expect_error(load_json(trigger_doc(R"({"extras":{"foothold":{"trigger":"a"}}})"), "bad.gltf"),
               "nodes[1] is a trigger without a triangle mesh");
  // Movers: a trigger under an animated node rides it (its box in the mover's axes); the animated
  // node itself, or an animated node inside a trigger, is refused.
  const MeshLoad rides = load_json(
      trigger_doc(R"({"mesh":0,"translation":[0,1,0],"children":[2]})", R"(,{"mesh":0,"translation":[0,0.5,0],"extras":{"foothold":{"trigger":"a"}}})", 1));
  ASSERT_TRUE(rides.ok()) << rides.error;
  ASSERT_EQ(rides.mesh.triggers.size(), 1u);
  EXPECT_EQ(rides.mesh.triggers[0].mover, 1u);
  expect_box(rides.mesh.triggers[0], {-1, 0.5, -1}, {1, 0.5, 1});
  EXPECT_EQ(rides.mesh.movers.at(0).mesh.faces.size(), 2u) << "the mover's own floor, not the trigger's";
  expect_error(load_json(trigger_doc(trigger_node(a), "", 1), "bad.gltf"), "nodes[1] is an animated trigger");
  expect_error(load_json(trigger_doc(trigger_node(a, R"(,"children":[2])"), R"(,{"mesh":0})", 2), "bad.gltf"),
               "nodes[2] is animated inside the trigger nodes[1]");
}

}  // namespace
}  // namespace foothold::test
