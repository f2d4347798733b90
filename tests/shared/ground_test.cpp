// Grounding (docs/movement.md §3) on small built worlds: what supports a character and why.

#include <gtest/gtest.h>

#include "shared/ground.h"
#include "support/scenario_support.h"

namespace foothold::test {
namespace {

struct Probe {
  explicit Probe(TriangleMesh mesh, MoveSettings m = {}) : world(make_world(std::move(mesh))), s(derive(m)) {}
  GroundResult at(const Vec3& center) {
    ContactQueries q(*world, s, candidates);
    return evaluate_ground(q, center);
  }
  std::unique_ptr<World> world;
  DerivedSettings s;
  std::vector<uint32_t> candidates;
};

TriangleMesh flat(SurfaceTag tag = SurfaceTag::kByNormal) {
  MeshBuilder b;
  b.quad({-5, 0, -5}, {-5, 0, 5}, {5, 0, 5}, {5, 0, -5}, tag);
  return b.take();
}

// A plane through the origin rising toward +X at `degrees`.
TriangleMesh slope(double degrees, SurfaceTag tag = SurfaceTag::kByNormal) {
  const double t = std::tan(degrees * 3.14159265358979323846 / 180);
  MeshBuilder b;
  b.quad({-5, -5 * t, -5}, {-5, -5 * t, 5}, {5, 5 * t, 5}, {5, 5 * t, -5}, tag);
  return b.take();
}

TEST(Ground, AFlatFloorWithinContactDistanceIsWalkableAndOutsideItIsNot) {
  Probe p(flat());
  const double hs = p.s.half_segment + p.s.radius;
  const GroundResult on = p.at({0, hs + p.s.rest_gap, 0});
  EXPECT_EQ(on.kind, GroundKind::kWalkable);
  ASSERT_TRUE(on.on_floor());
  EXPECT_NEAR(on.floor_contact().gap, p.s.rest_gap, 1e-12);
  EXPECT_EQ(on.floor_contact().normal, (Vec3{0, 1, 0}));
  EXPECT_EQ(on.penetration, 0);
  const GroundResult above = p.at({0, hs + p.s.contact_distance * 1.01, 0});
  EXPECT_EQ(above.kind, GroundKind::kNone);
  EXPECT_EQ(above.contacts.size(), 0);
}

TEST(Ground, PenetrationIsTheDeepestOverlap) {
  Probe p(flat());
  const GroundResult g = p.at({0, p.s.half_segment + p.s.radius - 0.1, 0});
  EXPECT_NEAR(g.penetration, 0.1, 1e-12);
  EXPECT_TRUE(g.grounded());
}

TEST(Ground, TheSlopeLimitDecidesWalkable) {
  for (const double deg : {30.0, 44.0, 46.0, 60.0}) {
    SCOPED_TRACE(deg);
    Probe p(slope(deg));
    // The lower sphere's centre straight above the origin, rest_gap off the plane.
    const double c = std::cos(deg * 3.14159265358979323846 / 180);
    const GroundResult g = p.at({0, p.s.half_segment + (p.s.radius + p.s.rest_gap) / c, 0});
    EXPECT_EQ(g.kind, deg < 45 ? GroundKind::kWalkable : GroundKind::kNone);
    EXPECT_EQ(g.contacts.size(), 1);
  }
}

TEST(Ground, TagsOverrideTheSlope) {
  Probe steep(slope(60, SurfaceTag::kAlwaysGround));
  const double c60 = 0.5;
  EXPECT_EQ(steep.at({0, steep.s.half_segment + (steep.s.radius + steep.s.rest_gap) / c60, 0}).kind, GroundKind::kTagged);
  Probe never(flat(SurfaceTag::kNeverGround));
  // (Off the quad's diagonal, so that one triangle is under the capsule.)
  const GroundResult g = never.at({2, never.s.half_segment + never.s.radius + never.s.rest_gap, -1});
  EXPECT_EQ(g.kind, GroundKind::kNone);
  EXPECT_EQ(g.contacts.size(), 1) << "the contact is there; it just does not support";
}

TEST(Ground, SupportsNeedsAnUpwardNormal) {
  const DerivedSettings s = derive(MoveSettings{});
  Contact c;
  c.normal = {0, 1, 0};
  EXPECT_TRUE(supports(c, s));
  c.normal = {0, -1, 0};
  c.tag = SurfaceTag::kAlwaysGround;
  EXPECT_FALSE(supports(c, s)) << "a ceiling never supports, tagged or not";
  c.normal = normalized_or_zero(Vec3{1, 0.2, 0});
  EXPECT_TRUE(supports(c, s)) << "a steep face tagged always_ground does";
  c.tag = SurfaceTag::kByNormal;
  EXPECT_FALSE(supports(c, s));
}

TEST(Ground, ACreviceBetweenTwoSteepFacesGrounds) {
  // A V of two 70-degree faces running along Z: the crease is level, so the character is held.
  MeshBuilder b;
  const double t = std::tan(70 * 3.14159265358979323846 / 180), w = 4 / t;
  b.quad_facing({0, 0, -5}, {0, 0, 5}, {-w, 4, 5}, {-w, 4, -5}, {1, 0.1, 0});
  b.quad_facing({0, 0, -5}, {0, 0, 5}, {w, 4, 5}, {w, 4, -5}, {-1, 0.1, 0});
  Probe p(b.take());
  // Wedged: the lower sphere's centre on the axis, rest_gap from both faces (normals (+-sin, cos)).
  const double c70 = std::cos(70 * 3.14159265358979323846 / 180);
  const GroundResult g = p.at({0, p.s.half_segment + (p.s.radius + p.s.rest_gap) / c70, 0});
  EXPECT_EQ(g.kind, GroundKind::kCrevice);
  EXPECT_FALSE(g.on_floor());
  EXPECT_EQ(g.contacts.size(), 2);
}

TEST(Ground, AnInnerPointBehindTheFloorIsPruned) {
  // A floor over a lower one (movement.md §3.3's figure), with a never_ground floor on top so that
  // the nearest contact does not support and the pruning runs: the lower floor's point is hidden.
  MeshBuilder b;
  b.quad({-5, 0, -5}, {-5, 0, 5}, {5, 0, 5}, {5, 0, -5}, SurfaceTag::kNeverGround);
  b.quad({-5, -0.03, -5}, {-5, -0.03, 5}, {5, -0.03, 5}, {5, -0.03, -5});
  MoveSettings m;
  m.contact_distance = 0.08;
  Probe p(b.take(), m);
  const GroundResult g = p.at({2, p.s.half_segment + p.s.radius + 0.02, -1});
  ASSERT_EQ(g.contacts.size(), 1) << "the lower floor lies within reach but behind the upper one";
  EXPECT_EQ(g.kind, GroundKind::kNone) << "only the never_ground floor remains, so airborne";
}

}  // namespace
}  // namespace foothold::test
