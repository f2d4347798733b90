// The exact capsule-triangle queries, checked against brute-force sampling on random cases.

#include <cmath>
#include <cstdint>
#include <optional>
#include <random>

#include <gtest/gtest.h>

#include "shared/character_contacts.h"
#include "shared/geometry.h"
#include "support/test_seed.h"

namespace foothold {
namespace {

Triangle make_triangle(const Vec3& a, const Vec3& b, const Vec3& c) {
  return {a, b, c, normalized_or_zero(cross(b - a, c - a))};
}

struct Rng {
  // Each test's default seed, or FOOTHOLD_TEST_SEED (printed either way).
  explicit Rng(uint32_t seed) : gen(uint32_t(test::test_seed(seed))) {}
  double uniform(double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(gen); }
  Vec3 point(double r) { return {uniform(-r, r), uniform(-r, r), uniform(-r, r)}; }
  std::mt19937 gen;
};

double brute_segment_triangle(const Vec3& p0, const Vec3& p1, const Triangle& t, int n) {
  double best = 1e300;
  for (int i = 0; i <= n; ++i) {
    const Vec3 s = p0 + (p1 - p0) * (double(i) / n);
    for (int u = 0; u <= n; ++u)
      for (int v = 0; u + v <= n; ++v) {
        const Vec3 q = t.a + (t.b - t.a) * (double(u) / n) + (t.c - t.a) * (double(v) / n);
        best = std::min(best, length(s - q));
      }
  }
  return best;
}

TEST(Geometry, ClosestPointOnTriangleBeatsEverySample) {
  Rng rng(7);
  for (int k = 0; k < 200; ++k) {
    const Triangle t = make_triangle(rng.point(2), rng.point(2), rng.point(2));
    const Vec3 p = rng.point(3);
    const Vec3 c = closest_point_on_triangle(p, t.a, t.b, t.c);
    const double d = length(p - c);
    for (int u = 0; u <= 20; ++u)
      for (int v = 0; u + v <= 20; ++v) {
        const Vec3 q = t.a + (t.b - t.a) * (u / 20.0) + (t.c - t.a) * (v / 20.0);
        ASSERT_LE(d, length(p - q) + 1e-9) << "case " << k;
      }
  }
}

TEST(Geometry, SegmentTriangleDistanceMatchesSampling) {
  Rng rng(11);
  for (int k = 0; k < 150; ++k) {
    const Triangle t = make_triangle(rng.point(2), rng.point(2), rng.point(2));
    const Vec3 p0 = rng.point(3), p1 = rng.point(3);
    const auto r = closest_segment_triangle(p0, p1, t);
    const double brute = brute_segment_triangle(p0, p1, t, 24);
    // Exact answer: never above the sampled minimum, and at most the sampling resolution below.
    EXPECT_LE(r.distance, brute + 1e-9) << "case " << k;
    EXPECT_GE(r.distance, brute - 0.5) << "case " << k;
    EXPECT_NEAR(length(r.on_segment - r.on_triangle), r.distance, 1e-9);
  }
}

TEST(Geometry, UprightSegmentTriangleDistanceMatchesSampling) {
  // The capsule's core is always upright, and has its own fast path.
  Rng rng(13);
  for (int k = 0; k < 300; ++k) {
    const Triangle t = make_triangle(rng.point(2), rng.point(2), rng.point(2));
    const Vec3 base = rng.point(3);
    const Vec3 top = base + Vec3{0, rng.uniform(0.01, 2), 0};
    const auto r = closest_segment_triangle(base, top, t);
    const double brute = brute_segment_triangle(base, top, t, 30);
    EXPECT_LE(r.distance, brute + 1e-9) << "case " << k;
    EXPECT_GE(r.distance, brute - 0.4) << "case " << k;
    EXPECT_NEAR(length(r.on_segment - r.on_triangle), r.distance, 1e-9);
    EXPECT_EQ(r.on_segment.x, base.x);
    EXPECT_GE(r.on_segment.y, base.y);
    EXPECT_LE(r.on_segment.y, top.y);
    // The same segment given top-down, and the general path via a hair of tilt, agree.
    EXPECT_NEAR(closest_segment_triangle(top, base, t).distance, r.distance, 1e-12);
    EXPECT_NEAR(closest_segment_triangle(base, top + Vec3{1e-9, 0, 0}, t).distance, r.distance, 1e-7);
  }
}

TEST(Geometry, SegmentPiercingTriangleHasZeroDistance) {
  const Triangle t = make_triangle({-1, 0, -1}, {-1, 0, 1}, {1, 0, 0});
  const auto r = closest_segment_triangle({0, -1, 0}, {0, 1, 0}, t);
  EXPECT_EQ(r.distance, 0.0);
  EXPECT_NEAR(r.on_triangle.y, 0.0, 1e-15);
}

// Reference time of impact: the first sampled fraction at which the capsule touches the triangle.
double reference_toi(const Capsule& c, const Vec3& motion, const Triangle& t, int steps) {
  for (int i = 0; i <= steps; ++i) {
    const double f = double(i) / steps;
    const Capsule at{c.center + motion * f, c.half_segment, c.radius};
    if (closest_segment_triangle(at.bottom(), at.top(), t).distance <= c.radius) return f;
  }
  return 2;
}

TEST(Geometry, CapsuleSweepMatchesSampledTimeOfImpact) {
  Rng rng(23);
  int hits = 0, misses = 0;
  for (int k = 0; k < 1200; ++k) {
    const Triangle t = make_triangle(rng.point(2), rng.point(2), rng.point(2));
    if (length_sq(t.normal) == 0) continue;
    const Capsule c{rng.point(3), rng.uniform(0, 0.8), rng.uniform(0.1, 0.6)};
    // Half the motions head at the triangle, half anywhere.
    const Vec3 centroid = (t.a + t.b + t.c) / 3;
    const Vec3 motion = (k % 2) ? rng.point(4) : (centroid - c.center) * rng.uniform(0.3, 1.5) + rng.point(0.5);
    if (center_plane_distance(c.center, t) <= 0) continue;
    if (closest_segment_triangle(c.bottom(), c.top(), t).distance <= c.radius) continue;  // starts touching
    const int steps = 4000;
    const double ref = reference_toi(c, motion, t, steps);
    const auto sweep = sweep_capsule_triangle(c, motion, t);
    if (ref > 1) {
      EXPECT_FALSE(sweep) << "case " << k << " reported a hit at " << sweep->fraction;
      ++misses;
      continue;
    }
    // A contact reached with the centre behind the plane is a back-face contact: no hit by design.
    if (center_plane_distance(c.center + motion * ref, t) <= 0) continue;
    ASSERT_TRUE(sweep) << "case " << k << " missed a contact at " << ref;
    ++hits;
    EXPECT_LE(sweep->fraction, ref + 1e-12) << "case " << k;
    EXPECT_GE(sweep->fraction, ref - 1.0 / steps - 1e-12) << "case " << k;
    const Capsule at{c.center + motion * sweep->fraction, c.half_segment, c.radius};
    EXPECT_NEAR(closest_segment_triangle(at.bottom(), at.top(), t).distance, c.radius, 1e-9) << "case " << k;
  }
  EXPECT_GT(hits, 50);
  EXPECT_GT(misses, 50);
}

TEST(Geometry, PlaneSweepAgreesWithTheTriangleSweepOnAFence) {
  // A fence stands for a square 16 m on a side around the capsule (movement.md §16): against the
  // fence's triangle (fence_triangle()), the plane sweep must give what the square's two triangles
  // give, for motions up to a tick's reach, tilted fences, and capsules starting clear of it or
  // touching it. (A capsule that starts across the plane differs on purpose: the square's diagonal,
  // an edge of each triangle, would block a motion along the plane; see the next test.)
  Rng rng(41);
  int hits = 0, misses = 0, touching = 0;
  for (int k = 0; k < 4000; ++k) {
    const Vec3 me = rng.point(2);
    Vec3 n = normalized_or_zero(Vec3{rng.uniform(-1, 1), rng.uniform(-0.4, 0.4), rng.uniform(-1, 1)});
    if (length_sq(n) == 0) continue;
    const Capsule c{me, rng.uniform(0.2, 0.8), rng.uniform(0.2, 0.5)};
    // The plane: within a tick's reach in front of the capsule's surface, or touching it.
    const double gap = (k % 4 == 0) ? rng.uniform(-1e-10, 1e-10) : rng.uniform(0, 0.5);
    const double reach = std::fabs(n.y) * c.half_segment + c.radius;
    const Vec3 mid = me - n * (reach + gap);
    const Vec3 t1 = normalized_or_zero(cross(n, Vec3{0, 1, 0}));
    const Vec3 t2 = cross(n, t1);
    const double h = 8;
    const Triangle a = make_triangle(mid - t1 * h - t2 * h, mid + t1 * h - t2 * h, mid + t1 * h + t2 * h);
    const Triangle b = make_triangle(mid - t1 * h - t2 * h, mid + t1 * h + t2 * h, mid - t1 * h + t2 * h);
    const Vec3 motion = (k % 3 == 0) ? rng.point(0.3) : n * -rng.uniform(0, 0.3) + rng.point(0.1);
    // The square's sweep: the earlier of its two triangles'.
    std::optional<SweepContact> full;
    for (const Triangle& t : {a, b}) {
      const auto f = sweep_capsule_triangle(c, motion, t);
      if (f && (!full || f->fraction < full->fraction)) full = f;
    }
    const auto plane = sweep_capsule_plane(c, motion, fence_triangle(mid, n).tri);
    ASSERT_EQ(bool(plane), bool(full)) << "case " << k << (full ? ": the square stops it" : ": the square lets it by");
    if (full) {
      EXPECT_NEAR(plane->fraction, full->fraction, 1e-9) << "case " << k;
    }
    if (!full) {
      ++misses;
    } else if (full->fraction == 0) {
      ++touching;
    } else {
      ++hits;
    }
  }
  EXPECT_GT(hits, 500);
  EXPECT_GT(misses, 500);
  EXPECT_GT(touching, 100);
}

TEST(Geometry, PlaneSweepAcrossThePlaneBlocksOnlyApproachingMotion) {
  // 5 cm across a tilted plane: moving along it or away is free, moving into it is blocked at once.
  const Vec3 n = normalized_or_zero(Vec3{-1, -0.3, 0});
  const Capsule c{{0, 0, 0}, 0.5, 0.4};
  const double reach = std::fabs(n.y) * c.half_segment + c.radius;
  const Vec3 mid = c.center - n * (reach - 0.05);
  const Vec3 t1 = normalized_or_zero(cross(n, Vec3{0, 1, 0}));
  const Triangle t = make_triangle(mid - t1 * 8, mid + t1 * 8 - cross(n, t1) * 8, mid + t1 * 8 + cross(n, t1) * 8);
  ASSERT_NEAR(dot(t.normal, n), 1, 1e-12);
  EXPECT_FALSE(sweep_capsule_plane(c, t1 * 0.2, t)) << "along";
  EXPECT_FALSE(sweep_capsule_plane(c, n * 0.2, t)) << "away";
  const auto into = sweep_capsule_plane(c, n * -0.2 + t1 * 0.1, t);
  ASSERT_TRUE(into);
  EXPECT_EQ(into->fraction, 0.0);
  // Behind the plane: nothing, whatever the motion.
  const Capsule behind{mid - n * 2, 0.5, 0.4};
  EXPECT_FALSE(sweep_capsule_plane(behind, n * 3, t));
}

TEST(Geometry, SweepReachingAnEdgeAtTheVeryEndOfTheMotionHitsIt) {
  // A sweep skips a triangle whose gap is longer than the motion (tolerance::kOutOfReachSpare):
  // here the nearest feature is an edge off to the side of the motion's line, so the plane cull
  // passes, and a motion a micrometre longer than the gap must still reach it (and one as much
  // shorter must not).
  const Triangle ramp = make_triangle({1, -1, -2}, {1, -1, 2}, {3, 1, 0});  // its lower edge along z at x = 1
  ASSERT_GT(ramp.normal.y, 0.5);
  const Capsule c{{0.3, -0.2, 0}, 0.5, 0.4};
  const auto cp = closest_segment_triangle(c.bottom(), c.top(), ramp);
  const double gap = cp.distance - c.radius;
  ASSERT_GT(gap, 0.1);
  const Vec3 toward = (cp.on_triangle - cp.on_segment) / cp.distance;  // straight at the edge
  ASSERT_LT(dot(toward, ramp.normal), 0);
  const auto reaches = sweep_capsule_triangle(c, toward * (gap + 1e-6), ramp);
  ASSERT_TRUE(reaches);
  EXPECT_NEAR(reaches->fraction * (gap + 1e-6), gap, 1e-9);
  EXPECT_FALSE(sweep_capsule_triangle(c, toward * (gap - 1e-6), ramp));
}

TEST(Geometry, SweepIgnoresTriangleFacingAway) {
  // A floor seen from below: the capsule rises through it.
  const Triangle floor = make_triangle({-5, 0, -5}, {-5, 0, 5}, {5, 0, 0});
  ASSERT_GT(floor.normal.y, 0.99);
  const Capsule below{{0, -2, 0}, 0.5, 0.4};
  EXPECT_FALSE(sweep_capsule_triangle(below, {0, 4, 0}, floor));
  const Capsule above{{0, 2, 0}, 0.5, 0.4};
  const auto hit = sweep_capsule_triangle(above, {0, -4, 0}, floor);
  ASSERT_TRUE(hit);
  EXPECT_NEAR(hit->fraction, (2 - 0.9) / 4, 1e-12);
}

TEST(Geometry, SweepStartingInContactBlocksOnlyApproachingMotion) {
  const Triangle floor = make_triangle({-5, 0, -5}, {-5, 0, 5}, {5, 0, 0});
  const Capsule resting{{0, 0.89, 0}, 0.5, 0.4};  // 1 cm into the floor
  EXPECT_FALSE(sweep_capsule_triangle(resting, {1, 0, 0}, floor)) << "sliding along is free";
  EXPECT_FALSE(sweep_capsule_triangle(resting, {0, 1, 0}, floor)) << "leaving is free";
  const auto down = sweep_capsule_triangle(resting, {0.3, -1, 0}, floor);
  ASSERT_TRUE(down);
  EXPECT_EQ(down->fraction, 0.0);
}

TEST(Geometry, ContactReportsGapAndNormalToWall) {
  const Triangle wall = make_triangle({1, -5, -5}, {1, -5, 5}, {1, 5, 0});  // faces -X
  ASSERT_LT(wall.normal.x, -0.99);
  const auto c = capsule_triangle_contact({{0.5, 0, 0}, 0.5, 0.4}, wall, 0.2);
  ASSERT_TRUE(c);
  EXPECT_NEAR(c->gap, 0.1, 1e-12);
  EXPECT_NEAR(c->normal.x, -1, 1e-12);
  EXPECT_FALSE(capsule_triangle_contact({{0.5, 0, 0}, 0.5, 0.4}, wall, 0.05)) << "beyond max_gap";
  EXPECT_FALSE(capsule_triangle_contact({{1.5, 0, 0}, 0.5, 0.4}, wall, 1.0)) << "behind a one-sided wall";
}

}  // namespace
}  // namespace foothold
