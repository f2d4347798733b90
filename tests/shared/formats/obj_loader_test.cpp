#include <algorithm>
#include <fstream>

#include <gtest/gtest.h>

#include "shared/arena.h"
#include "shared/formats/obj_loader.h"
#include "shared/world.h"
#include "shared/formats/world_file.h"

namespace foothold {
namespace {

TEST(ObjLoader, LoadsWeldedTrianglesAndTagsFromMaterialNames) {
  const auto r = parse_obj(
      "# two quads\n"
      "v 0 0 0\nv 0 0 1\nv 1 0 1\nv 1 0 0\nv 2 0 1\nv 2 0 0\n"
      "usemtl stone\n"
      "f 1 2 3\nf 1 3 4\n"
      "usemtl always_ground\n"
      "f 4 3 5\n"
      "usemtl never_ground\n"
      "f 4 5 6\n",
      "t.obj");
  ASSERT_TRUE(r.ok()) << r.error;
  ASSERT_EQ(r.mesh.faces.size(), 4u);
  EXPECT_EQ(r.mesh.vertices.size(), 6u);
  EXPECT_EQ(r.mesh.faces[0].tag, SurfaceTag::kByNormal);
  EXPECT_EQ(r.mesh.faces[2].tag, SurfaceTag::kAlwaysGround);
  EXPECT_EQ(r.mesh.faces[3].tag, SurfaceTag::kNeverGround);
  const auto w = World::create(r.mesh, "t");
  ASSERT_TRUE(w.world);
  for (uint32_t i = 0; i < w.world->triangle_count(); ++i)
    EXPECT_NEAR(w.world->triangle(i).tri.normal.y, 1.0, 1e-12) << "counter-clockwise from above faces up";
}

TEST(ObjLoader, TriangulatesPolygonsIncludingConcaveOnes) {
  // An L-shaped hexagon (concave) and a quad with negative (relative) indices.
  const auto r = parse_obj(
      "v 0 0 0\nv 0 0 2\nv 2 0 2\nv 2 0 1\nv 1 0 1\nv 1 0 0\n"
      "f 1 2 3 4 5 6\n"
      "v 5 0 0\nv 5 0 1\nv 6 0 1\nv 6 0 0\n"
      "f -4/1 -3/2/3 -2//4 -1\n",
      "poly.obj");
  ASSERT_TRUE(r.ok()) << r.error;
  ASSERT_EQ(r.mesh.faces.size(), 4u + 2u);
  double area = 0;
  for (size_t i = 0; i < 4; ++i) {
    const auto& f = r.mesh.faces[i];
    const Vec3 n = cross(r.mesh.vertices[f.v[1]] - r.mesh.vertices[f.v[0]], r.mesh.vertices[f.v[2]] - r.mesh.vertices[f.v[0]]);
    EXPECT_GT(n.y, 0) << "every ear keeps the polygon's winding";
    area += n.y / 2;
  }
  EXPECT_NEAR(area, 3.0, 1e-12) << "the L covers 3 square metres, no more";
}

TEST(ObjLoader, SkipsAndCountsDegenerateTriangles) {
  const auto r = parse_obj("v 0 0 0\nv 1 0 0\nv 2 0 0\nv 0 0 1\nf 1 2 3\nf 1 1 4\nf 1 4 2\n", "d.obj");
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.degenerate_skipped, 2u);
  EXPECT_EQ(r.mesh.faces.size(), 1u);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.warnings[0].find("2 degenerate"), std::string::npos);
}

struct BadCase {
  const char* text;
  const char* expect;
};

TEST(ObjLoader, BadFilesGetErrorsNamingFileAndLine) {
  const BadCase cases[] = {
      {"v 0 0 0\nv 1 0 0\nv 0 zero 1\n", "bad.obj:3: vertex coordinate 'zero'"},
      {"v 0 0\n", "bad.obj:1: a vertex needs three coordinates"},
      {"v 0 0 0\nv 1 0 0\nv 0 0 1\n\nf 1 2 9\n", "bad.obj:5: face vertex index 9 refers to no vertex"},
      {"v 0 0 0\nv 1 0 0\nf 1 2\n", "bad.obj:3: a face needs at least three vertices"},
      {"v 0 0 0\nf a b c\n", "bad.obj:2: face vertex 'a'"},
      {"v 0 0 0\nv 1 0 0\nv 0 0 1\nf 0 1 2\n", "bad.obj:4"},
      {"v 3000000 0 0\n", "bad.obj:1: vertex coordinate 3000000 is outside the fixed-point range"},
      {"v inf 0 0\n", "bad.obj:1: vertex coordinate 'inf' is not a finite number"},
      {"# nothing\n", "bad.obj: the file has no usable triangle"},
      {"v 0 0 0\nv 1 0 0\nv 2 0 0\nf 1 2 3\n", "bad.obj: the file has no usable triangle"},
  };
  for (const auto& c : cases) {
    const auto r = parse_obj(c.text, "bad.obj");
    EXPECT_FALSE(r.ok()) << c.text;
    EXPECT_NE(r.error.find(c.expect), std::string::npos) << "got: " << r.error;
  }
  const auto nul = parse_obj(std::string_view("v 0 0 0\n\0\n", 10), "bad.obj");
  EXPECT_NE(nul.error.find("bad.obj:2: unexpected control character 0x00"), std::string::npos) << nul.error;
  // Found by fuzzing: a control character inside a face line made the parser read other indices.
  const auto ctrl = parse_obj("v 0 0 0\nv 0 0 1\nv 1 0 1\nf 1/1/1\x19" "1/1/1 2 3\n", "ctrl.obj");
  EXPECT_NE(ctrl.error.find("ctrl.obj:4: unexpected control character 0x19"), std::string::npos) << ctrl.error;
}

TEST(ObjLoader, LoneCarriageReturnsEndLinesAsTheParserSeesThem) {
  // Found by fuzzing: "f 1 3\r 2 3" is two lines to tinyobjloader, and so to the line check.
  const auto r = parse_obj("v 0 0 0\nv 0 0 1\nv 1 0 1\nf 1 3\r\r  2 3\n", "cr.obj");
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.error.find("cr.obj:4: a face needs at least three vertices"), std::string::npos) << r.error;
  const auto crlf = parse_obj("v 0 0 0\r\nv 0 0 1\r\nv 1 0 1\r\nf 1 2 3\r\nv 0 bad 0\r\n", "crlf.obj");
  EXPECT_NE(crlf.error.find("crlf.obj:5:"), std::string::npos) << crlf.error;
}

TEST(ObjLoader, MissingFileNamesThePath) {
  const auto r = load_world("/nonexistent/level.obj");
  EXPECT_FALSE(r.world);
  EXPECT_NE(r.error.find("/nonexistent/level.obj"), std::string::npos);
}

TEST(World, CollectReturnsExactlyTheOverlappingTrianglesInOrder) {
  const auto loaded = load_world("arena");
  ASSERT_TRUE(loaded.world) << loaded.error;
  const World& w = *loaded.world;
  std::vector<uint32_t> got;
  const Aabb boxes[] = {{{-1, -1, -1}, {1, 2, 1}}, {{-30, -1, -30}, {-20, 4, -20}}, {{100, 0, 100}, {101, 1, 101}}};
  for (const auto& box : boxes) {
    w.collect(box, got);
    EXPECT_TRUE(std::is_sorted(got.begin(), got.end()));
    std::vector<uint32_t> expected;
    for (uint32_t i = 0; i < w.triangle_count(); ++i) {
      const auto& t = w.triangle(i);
      if (t.lo.x <= box.hi.x && t.hi.x >= box.lo.x && t.lo.y <= box.hi.y && t.hi.y >= box.lo.y && t.lo.z <= box.hi.z &&
          t.hi.z >= box.lo.z)
        expected.push_back(i);
    }
    EXPECT_EQ(got, expected);
  }
}

TEST(World, HashDependsOnEveryCoordinateAndTag) {
  MeshBuilder b;
  b.quad({0, 0, 0}, {0, 0, 1}, {1, 0, 1}, {1, 0, 0});
  TriangleMesh m = b.take();
  const auto base = World::create(m, "a").world->hash();
  EXPECT_EQ(World::create(m, "b").world->hash(), base) << "the name is not content";
  TriangleMesh moved = m;
  moved.vertices[2].y = 1e-9;
  EXPECT_NE(World::create(moved, "a").world->hash(), base);
  TriangleMesh tagged = m;
  tagged.faces[1].tag = SurfaceTag::kNeverGround;
  EXPECT_NE(World::create(tagged, "a").world->hash(), base);
}

TEST(World, RefusesCoordinatesBeyondTheFixedPointRange) {
  MeshBuilder b;
  b.triangle({0, 0, 0}, {0, 0, 1}, {2e6, 0, 0});
  const auto w = World::create(b.take(), "far");
  EXPECT_FALSE(w.world);
  EXPECT_NE(w.error.find("fixed-point range"), std::string::npos);
}

TEST(Arena, HasNoDegenerateTrianglesAndEveryFeature) {
  const auto built = World::create(build_arena_mesh(), "arena");
  ASSERT_TRUE(built.world);
  EXPECT_EQ(built.degenerate_skipped, 0u);
  int tagged_always = 0, tagged_never = 0;
  for (uint32_t i = 0; i < built.world->triangle_count(); ++i) {
    tagged_always += built.world->triangle(i).tag == SurfaceTag::kAlwaysGround;
    tagged_never += built.world->triangle(i).tag == SurfaceTag::kNeverGround;
  }
  EXPECT_EQ(tagged_always, 2);
  EXPECT_EQ(tagged_never, 2);
}

}  // namespace
}  // namespace foothold
