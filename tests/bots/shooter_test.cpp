// The shooting bots' aim (bots/shooter.h): a shot aimed beside a target passes its upright axis, and
// so all of its capsule's core segment, exactly that far to the side, from any height; at the
// centre with no offset; and none is aimed where no ray could pass that far aside.

#include <cmath>

#include <gtest/gtest.h>

#include "bots/shooter.h"
#include "shared/ray_query.h"

namespace foothold::bots {
namespace {

// The distance, seen from above, between the ray's line from `from` through `aim` and `center`.
double passes_at(const Vec3& from, const Vec3& aim, const Vec3& center) {
  const double dx = aim.x - from.x, dz = aim.z - from.z;
  const double cx = center.x - from.x, cz = center.z - from.z;
  return std::abs(dx * cz - dz * cx) / std::sqrt(dx * dx + dz * dz);
}

TEST(Shooter, AShotBesideATargetPassesItsAxisThatFarAsideFromAnyHeight) {
  const Vec3 center{3, 0.9, -2};
  for (const Vec3 from : {Vec3{0, 0.9, 0}, Vec3{2.5, 2.9, -1.6}, Vec3{-6, -3, 5}, Vec3{3.7, 0.9, -2}}) {
    const auto at_centre = Shooter::aim_beside(from, center, 0);
    ASSERT_TRUE(at_centre);
    EXPECT_EQ(*at_centre, center);
    for (const double offset : {0.3, 0.6}) {
      const auto aim = Shooter::aim_beside(from, center, offset);
      ASSERT_TRUE(aim) << "from " << from.x << "," << from.y << "," << from.z;
      EXPECT_NEAR(passes_at(from, *aim, center), offset, 1e-9);
      // So the capsule (radius 0.4, core 0.5 each way) is missed by a ray beside it by more than
      // its radius, and hit by one beside it by less.
      const QueryCapsule capsule{7, center, 0.5, 0.4};
      EXPECT_EQ(ray_capsule(from, normalized_or_zero(*aim - from), capsule) >= 0, offset < 0.4);
    }
  }
  // Nearly straight above (0.5 m aside seen from above): no ray from there passes 0.6 m aside.
  EXPECT_FALSE(Shooter::aim_beside({3.5, 2.9, -2}, center, 0.6));
  EXPECT_TRUE(Shooter::aim_beside({3.5, 2.9, -2}, center, 0.3));
}

}  // namespace
}  // namespace foothold::bots
