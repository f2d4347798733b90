// follow::NearbyIndex: the characters near a follower, found by cell, within its reach and in an
// order of the characters alone.

#include <algorithm>
#include <vector>

#include <gtest/gtest.h>

#include "follow/nearby_index.h"

namespace foothold::nav::test {
namespace {

CharacterState at(double x, double z, double vx = 0) {
  CharacterState s = spawn_state({x, 1, z});
  s.velocity = quantize_velocity({vx, 0, 0});
  return s;
}

TEST(NearbyIndex, FindsThoseWithinReachAcrossCellsLeavingItselfOutInAnOrderOfTheCharactersAlone) {
  // Keys and places: itself (1) at a cell's corner, neighbours over the cell borders, one 9.9 m away
  // straight (in), one 8 m by 8 m (11.3 m: in the square of cells, out of reach), one far off.
  const std::vector<std::pair<uint32_t, CharacterState>> all = {
      {1, at(0.1, 0.1)}, {2, at(-0.5, -0.5, 1)}, {3, at(10.0, 0.1)}, {4, at(8.1, 8.1)}, {5, at(-30, 4)}, {6, at(0.1, -9.7)}};
  follow::NearbyIndex forward, backward;
  for (const auto& [key, s] : all) forward.add(key, s);
  for (auto it = all.rbegin(); it != all.rend(); ++it) backward.add(it->first, it->second);
  forward.sort();
  backward.sort();
  std::vector<follow::Nearby> a, b;
  forward.near(all[0].second.position, 1, a);
  backward.near(all[0].second.position, 1, b);
  ASSERT_EQ(a.size(), 3u) << "2, 3 and 6";
  ASSERT_EQ(b.size(), a.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].position, b[i].position) << i;
    EXPECT_EQ(a[i].velocity, b[i].velocity) << i;
  }
  const auto found = [&](const CharacterState& s) {
    return std::any_of(a.begin(), a.end(), [&](const follow::Nearby& n) { return n.position == s.position; });
  };
  EXPECT_TRUE(found(all[1].second));
  EXPECT_TRUE(found(all[2].second));
  EXPECT_TRUE(found(all[5].second));
  EXPECT_FALSE(found(all[3].second)) << "11.3 m away";
  EXPECT_EQ(a[0].velocity, all[1].second.velocity) << "with its velocity";
  forward.clear();
  forward.sort();
  forward.near(all[0].second.position, 1, a);
  EXPECT_TRUE(a.empty()) << "cleared";
}

}  // namespace
}  // namespace foothold::nav::test
