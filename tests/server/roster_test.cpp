// The roster (server/roster.h): ids ascending and never reused, clients found by address and by
// player, and the joins and leaves the next tick records.
#include <gtest/gtest.h>

#include "server/roster.h"

namespace foothold::test {
namespace {

using server::Client;
using server::Roster;

std::unique_ptr<Client> client_at(int port, uint64_t client_id) {
  auto c = std::make_unique<Client>();
  c->session.endpoint = {asio::ip::make_address("10.1.0.1"), uint16_t(port)};
  c->session.client_id = client_id;
  c->character.state.position = {port, 0, 0};
  return c;
}

TEST(Roster, IdsAscendNeverComeBackAndLookupsFindTheClient) {
  Roster r(8);
  EXPECT_EQ(r.next_id(), 1u);
  EXPECT_EQ(r.add(client_at(1, 100)), 1u);
  EXPECT_EQ(r.add(client_at(2, 200)), 2u);
  const uint64_t version = r.version();
  r.remove(1);
  EXPECT_NE(r.version(), version) << "indices moved";
  EXPECT_EQ(r.add(client_at(1, 100)), 3u) << "an id is never reused";
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].id, 2u);
  EXPECT_EQ(r[1].id, 3u);
  EXPECT_EQ(r.at({asio::ip::make_address("10.1.0.1"), 1})->id, 3u);
  EXPECT_EQ(r.at({asio::ip::make_address("10.1.0.1"), 9}), nullptr);
  EXPECT_EQ(r.playing(200)->id, 2u);
  EXPECT_EQ(r.playing(300), nullptr);
  EXPECT_EQ(r.by_id(3)->session.client_id, 100u);
  EXPECT_EQ(r.by_id(1), nullptr);
  r.remove(77);  // no such client: nothing changes
  EXPECT_EQ(r.size(), 2u);
}

TEST(Roster, TheNextTickRecordsJoinsAndSortedLeavesAndNothingOfAClientThatCameAndWent) {
  Roster r(8);
  std::vector<server::JoinRecord> joins;
  std::vector<uint32_t> leaves;
  for (int i = 1; i <= 4; ++i) r.add(client_at(i, uint64_t(i)));
  r.take_changes(joins, leaves);
  ASSERT_EQ(joins.size(), 4u);
  EXPECT_EQ(joins[2].id, 3u);
  EXPECT_EQ(joins[2].state.position.x, 3);
  EXPECT_TRUE(leaves.empty());
  r.remove(4);
  r.remove(2);
  r.add(client_at(9, 9));  // id 5: comes and goes before the tick
  r.remove(5);
  r.take_changes(joins, leaves);
  EXPECT_TRUE(joins.empty());
  EXPECT_EQ(leaves, (std::vector<uint32_t>{2, 4}));
  r.take_changes(joins, leaves);
  EXPECT_TRUE(joins.empty() && leaves.empty()) << "each change is recorded once";
}

}  // namespace
}  // namespace foothold::test
