// The step's queries over its candidate triangles (contact_queries.h): sweeps and contacts, their
// order and tie-breaking, and that answers never depend on what was gathered before.

#include <type_traits>

#include <gtest/gtest.h>

#include "shared/contact_queries.h"
#include "support/scenario_support.h"

namespace foothold::test {
namespace {

// The queries keep references for one step: temporaries do not compile.
static_assert(!std::is_constructible_v<ContactQueries, World, const DerivedSettings&, std::vector<uint32_t>&>);
static_assert(!std::is_constructible_v<ContactQueries, const World&, DerivedSettings, std::vector<uint32_t>&>);
static_assert(std::is_constructible_v<ContactQueries, const World&, const DerivedSettings&, std::vector<uint32_t>&>);

TEST(ContactQueries, ContactsAreNearestFirstWithTiesToTheLowerTriangle) {
  // Two coplanar floor triangles sharing an edge under the capsule: equal gaps, so the lower index
  // comes first; a wall further away comes after them.
  MeshBuilder b;
  b.quad({-5, 0, -5}, {-5, 0, 5}, {5, 0, 5}, {5, 0, -5});
  b.quad_facing({0.5, -5, -5}, {0.5, -5, 5}, {0.5, 5, 5}, {0.5, 5, -5}, {-1, 0, 0});
  const auto world = make_world(b.take());
  const DerivedSettings s = derive(MoveSettings{});
  std::vector<uint32_t> candidates;
  ContactQueries q(*world, s, candidates);
  ContactList list;
  // Centre over the floor's diagonal, 0.01 m above it; the wall 0.07 m off.
  q.contacts({0, s.half_segment + s.radius + 0.01, 0}, 0.1, list);
  ASSERT_EQ(list.size(), 3);
  EXPECT_NEAR(list[0].gap, 0.01, 1e-12);
  EXPECT_EQ(list[0].gap, list[1].gap);
  EXPECT_LT(list[0].triangle, list[1].triangle);
  EXPECT_NEAR(list[2].gap, 0.5 - s.radius, 1e-12);
  for (int i = 0; i < list.size(); ++i) EXPECT_NEAR(length(list[i].normal), 1, 1e-12);
}

TEST(ContactQueries, BackFacesAreNeverTouched) {
  MeshBuilder b;
  b.quad({-5, 0, -5}, {-5, 0, 5}, {5, 0, 5}, {5, 0, -5});  // faces up
  const auto world = make_world(b.take());
  const DerivedSettings s = derive(MoveSettings{});
  std::vector<uint32_t> candidates;
  ContactQueries q(*world, s, candidates);
  ContactList list;
  q.contacts({0, -0.5, 0}, 1.0, list);
  EXPECT_EQ(list.size(), 0) << "the centre is behind the floor";
  EXPECT_FALSE(q.sweep({0, -2, 0}, {0, 3, 0}).hit);
  const SweepHit down = q.sweep({0, 3, 0}, {0, -3, 0});
  ASSERT_TRUE(down.hit);
  EXPECT_EQ(down.normal, (Vec3{0, 1, 0}));
  // Stopping at the hit leaves exactly the safety margin.
  EXPECT_NEAR(3 - 3 * down.fraction, s.half_segment + s.radius + s.safety_margin, 1e-9);
}

TEST(ContactQueries, AnswersDoNotDependOnWhatWasGatheredBefore) {
  const DerivedSettings s = derive(MoveSettings{});
  std::vector<uint32_t> a, b;
  const Vec3 near_wall{arena::kUprightWallX - 1, s.half_segment + s.radius + 0.02, 0};
  ContactQueries fresh(arena_world(), s, a);
  const SweepHit h1 = fresh.sweep(near_wall, {3, 0, 0});
  ContactQueries primed(arena_world(), s, b);
  primed.prefetch({{30, -1, 30}, {31, 1, 31}});  // a box far away: the sweep must gather again
  const SweepHit h2 = primed.sweep(near_wall, {3, 0, 0});
  ASSERT_TRUE(h1.hit);
  EXPECT_EQ(h1.fraction, h2.fraction);
  EXPECT_EQ(h1.triangle, h2.triangle);
  EXPECT_EQ(h1.normal, h2.normal);
}

TEST(ContactQueries, ContactListKeepsTheNearestWhenFull) {
  ContactList list;
  for (int i = 0; i < ContactList::kCapacity + 8; ++i) {
    Contact c;
    c.triangle = uint32_t(i);
    c.gap = double(ContactList::kCapacity + 8 - i);  // ever nearer
    list.insert(c);
  }
  ASSERT_EQ(list.size(), ContactList::kCapacity);
  EXPECT_EQ(list[0].gap, 1);
  for (int i = 1; i < list.size(); ++i) EXPECT_LT(list[i - 1].gap, list[i].gap);
}

}  // namespace
}  // namespace foothold::test
