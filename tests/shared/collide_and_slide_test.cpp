// Collide-and-slide (docs/movement.md §6, §7) on small built worlds, called directly.

#include <gtest/gtest.h>

#include "shared/collide_and_slide.h"
#include "support/scenario_support.h"

namespace foothold::test {
namespace {

struct Slider {
  explicit Slider(TriangleMesh mesh) : world(make_world(std::move(mesh))), s(derive(MoveSettings{})) {}
  SlideResult run(const Vec3& from, const Vec3& velocity, bool grounded = false, double support_y = 0) {
    ContactQueries q(*world, s, candidates);
    touches = TouchList{};
    SlideInput in;
    in.position = from;
    in.velocity = velocity;
    in.time = s.dt;
    in.grounded = grounded;
    in.support_y = support_y;
    return collide_and_slide(q, in, touches);
  }
  std::unique_ptr<World> world;
  DerivedSettings s;
  std::vector<uint32_t> candidates;
  TouchList touches;
};

// A wall facing -X with its face at x = 1.
TriangleMesh wall_at_x1() {
  MeshBuilder b;
  b.quad_facing({1, -5, -5}, {1, -5, 5}, {1, 5, 5}, {1, 5, -5}, {-1, 0, 0});
  return b.take();
}

TEST(CollideAndSlide, FreeMotionIsExact) {
  Slider sl(wall_at_x1());
  const SlideResult r = sl.run({-5, 0, 0}, {6, 0, 0});
  EXPECT_EQ(r.position, (Vec3{-5 + 6 * sl.s.dt, 0, 0}));
  EXPECT_EQ(r.velocity, (Vec3{6, 0, 0}));
  EXPECT_EQ(sl.touches.size(), 0);
}

TEST(CollideAndSlide, StopsSafetyMarginShortOfAWallAndSlidesAlongIt) {
  Slider sl(wall_at_x1());
  // Into the wall at 45 degrees, fast enough to reach it this tick.
  const Vec3 start{1 - sl.s.radius - 0.05, 0, 0};
  const SlideResult r = sl.run(start, {60, 0, 60});
  EXPECT_NEAR(r.position.x, 1 - sl.s.radius - sl.s.safety_margin, 1e-9);
  EXPECT_GT(r.position.z, 0.5) << "the rest of the motion slid along the wall";
  EXPECT_NEAR(r.velocity.x, 0, 1e-9);
  EXPECT_NEAR(r.velocity.z, 60, 1e-9);
  ASSERT_EQ(sl.touches.size(), 1);
  EXPECT_TRUE(sl.touches[0].blocked);
  EXPECT_NEAR(sl.touches[0].normal.x, -1, 1e-9);
}

TEST(CollideAndSlide, AnAcuteCornerLeavesOnlyItsCrease) {
  // Two walls meeting at 90 degrees (acute by §6.2's rule): pushed into the corner, the character
  // stops in it, with no horizontal velocity left, and never passes either wall.
  MeshBuilder b;
  b.quad_facing({1, -5, -5}, {1, -5, 5}, {1, 5, 5}, {1, 5, -5}, {-1, 0, 0});
  b.quad_facing({-5, -5, 1}, {5, -5, 1}, {5, 5, 1}, {-5, 5, 1}, {0, 0, -1});
  Slider sl(b.take());
  const SlideResult r = sl.run({0, 0, 0}, {60, 0, 50});
  EXPECT_LE(r.position.x, 1 - sl.s.radius - sl.s.safety_margin + 1e-9);
  EXPECT_LE(r.position.z, 1 - sl.s.radius - sl.s.safety_margin + 1e-9);
  EXPECT_NEAR(r.velocity.x, 0, 1e-12);
  EXPECT_NEAR(r.velocity.z, 0, 1e-12);
  EXPECT_EQ(sl.touches.size(), 2);
}

TEST(CollideAndSlide, AGroundedCharacterClimbsAStairButNotAWall) {
  // A 0.25 m stair at x = 1 (riser facing -X, tread on top), on a floor at y = 0.
  MeshBuilder b;
  b.quad({-5, 0, -5}, {-5, 0, 5}, {1, 0, 5}, {1, 0, -5});
  b.box({1, 0, -5}, {5, 0.25, 5});
  Slider sl(b.take());
  const double rest_y = sl.s.half_segment + sl.s.radius + sl.s.rest_gap;
  const SlideResult r = sl.run({1 - sl.s.radius - 0.02, rest_y, 0}, {5, 0, 0}, true, 0.0);
  EXPECT_TRUE(r.stepped_up);
  // Up onto the stair's nosing (a tick's walk does not reach the tread's middle), never higher
  // than a stair allows.
  EXPECT_GT(r.position.y, rest_y + 0.1);
  EXPECT_LE(r.position.y, rest_y + sl.s.step_height + sl.s.contact_distance);
  // The same as a 0.5 m wall: no step, the character stays below.
  MeshBuilder w;
  w.quad({-5, 0, -5}, {-5, 0, 5}, {1, 0, 5}, {1, 0, -5});
  w.box({1, 0, -5}, {5, 0.5, 5});
  Slider wall(w.take());
  const SlideResult blocked = wall.run({1 - wall.s.radius - 0.02, rest_y, 0}, {5, 0, 0}, true, 0.0);
  EXPECT_FALSE(blocked.stepped_up);
  EXPECT_NEAR(blocked.position.y, rest_y, 1e-9);
  EXPECT_LE(blocked.position.x, 1 - wall.s.radius - wall.s.safety_margin + 1e-9);
}

TEST(CollideAndSlide, WallsNeverLift) {
  // §6.3: a non-walkable plane never raises speed: grounded keeps its vertical speed exactly,
  // airborne never gains upward speed, walkable planes just reject.
  const Vec3 leaning = normalized_or_zero(Vec3{-1, 0.3, 0});  // a steep face leaning back
  const Vec3 v{5, 0, 1};
  EXPECT_EQ(slide_along_plane(v, leaning, false, true).y, 0);
  EXPECT_LE(slide_along_plane(v, leaning, false, false).y, 0);
  const Vec3 rising{5, 2, 0};
  EXPECT_LE(slide_along_plane(rising, leaning, false, false).y, 2);
  const Vec3 ramp = normalized_or_zero(Vec3{-0.5, 1, 0});
  const Vec3 up_ramp = slide_along_plane(v, ramp, true, true);
  EXPECT_GT(up_ramp.y, 0) << "a walkable plane lifts: walking up a ramp";
  EXPECT_NEAR(dot(up_ramp, ramp), 0, 1e-12);
  // Moving away from a plane leaves the velocity alone.
  EXPECT_EQ(slide_along_plane(Vec3{-5, 0, 0}, leaning, false, true), (Vec3{-5, 0, 0}));
}

}  // namespace
}  // namespace foothold::test
