// client/view_events.h: the events between two views, in order, bounded.
#include <gtest/gtest.h>

#include "client/view_events.h"

namespace foothold::test {
namespace {

using client::ViewEvent;
using client::ViewEvents;
using Kind = ViewEvent::Kind;

proto::RemoteState player(uint32_t id) {
  proto::RemoteState r;
  r.id = id;
  r.client_id = 1000 + id;
  return r;
}

TEST(ViewEvents, AppearancesAndLeavesComeInIdOrderNamingThePlayerAndWhyTheyLeft) {
  ViewEvents events;
  const proto::RemoteView before = {player(2), player(4), player(6), player(8)};
  const proto::RemoteView now = {player(1), player(4), player(7), player(8), player(9)};
  const std::vector<uint32_t> gone = {6, 11};  // 11 was never shown: nothing of it
  events.update(before, now, gone, 40);
  std::vector<ViewEvent> taken;
  for (ViewEvent e; events.take(e);) taken.push_back(e);
  ASSERT_EQ(taken.size(), 5u);
  const std::vector<std::pair<Kind, uint32_t>> expected = {{Kind::kAppeared, 1}, {Kind::kLeftView, 2},
                                                            {Kind::kLeftMatch, 6}, {Kind::kAppeared, 7},
                                                            {Kind::kAppeared, 9}};
  for (std::size_t k = 0; k < expected.size(); ++k) {
    EXPECT_EQ(taken[k].kind, expected[k].first) << k;
    EXPECT_EQ(taken[k].character_id, expected[k].second) << k;
    EXPECT_EQ(taken[k].client_id, 1000 + expected[k].second) << k;
    EXPECT_EQ(taken[k].tick, 40u);
  }
  ViewEvent none;
  EXPECT_FALSE(events.take(none));
  events.update(now, now, {}, 41);
  EXPECT_EQ(events.size(), 0u) << "the same view: nothing";
}

TEST(ViewEvents, AnNpcComesAndGoesSayingItIsOne) {
  ViewEvents events;
  proto::RemoteState npc;
  npc.id = 3;
  npc.npc = true;
  const proto::RemoteView before = {player(2)}, now = {player(2), npc}, after = {player(2)};
  events.update(before, now, {}, 10);
  events.update(now, after, std::vector<uint32_t>{3}, 11);
  ViewEvent came, went;
  ASSERT_TRUE(events.take(came));
  ASSERT_TRUE(events.take(went));
  EXPECT_EQ(came.kind, Kind::kAppeared);
  EXPECT_TRUE(came.npc);
  EXPECT_EQ(came.client_id, 0u);
  EXPECT_EQ(went.kind, Kind::kLeftMatch);
  EXPECT_TRUE(went.npc);
  events.update(after, before, {}, 12);
  events.update(before, {player(2), player(4)}, {}, 13);
  ViewEvent p;
  ASSERT_TRUE(events.take(p));
  EXPECT_EQ(p.character_id, 4u);
  EXPECT_FALSE(p.npc) << "a player's";
}

TEST(ViewEvents, AGameThatNeverTakesThemKeepsTheNewestAndCountsTheRest) {
  ViewEvents events;
  proto::RemoteView empty, one;
  for (uint32_t t = 1; t <= ViewEvents::kCapacity + 10; ++t) {
    one = {player(t)};
    events.update(empty, one, {}, t);
  }
  EXPECT_EQ(events.size(), ViewEvents::kCapacity);
  EXPECT_EQ(events.dropped(), 10u);
  ViewEvent e;
  ASSERT_TRUE(events.take(e));
  EXPECT_EQ(e.character_id, 11u) << "the oldest kept";
}

}  // namespace
}  // namespace foothold::test
