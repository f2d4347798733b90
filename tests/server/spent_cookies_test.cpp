// The memory of spent cookies: each is remembered until its time, a full memory refuses rather than
// forgets, and the capacity covers every cookie a server can issue within two lifetimes.

#include <gtest/gtest.h>

#include "server/cookie.h"
#include "server/spent_cookies.h"

namespace foothold::server {
namespace {

SpentCookies::Mac mac(int i) {
  SpentCookies::Mac m{};
  m[0] = uint8_t(i);
  m[1] = uint8_t(i >> 8);
  m[15] = 0x77;
  return m;
}

TEST(SpentCookies, RemembersEachUntilItsTimeAndKeepsTheVerdict) {
  SpentCookies spent(16);
  const proto::RequestTag attempt{1, 2, 3};
  ASSERT_TRUE(spent.remember(mac(1), {attempt, false, proto::fb::RejectReason::ServerFull}, 100, 0));
  ASSERT_TRUE(spent.remember(mac(2), {attempt, true, proto::fb::RejectReason::Unknown}, 200, 10));
  const auto* one = spent.find(mac(1), 99);
  ASSERT_NE(one, nullptr);
  EXPECT_FALSE(one->accepted);
  EXPECT_EQ(one->refusal, proto::fb::RejectReason::ServerFull);
  EXPECT_EQ(one->attempt, attempt);
  EXPECT_EQ(spent.find(mac(3), 99), nullptr);
  EXPECT_EQ(spent.find(mac(1), 100), nullptr) << "forgotten at its time";
  ASSERT_NE(spent.find(mac(2), 150), nullptr);
  EXPECT_TRUE(spent.find(mac(2), 150)->accepted);
  EXPECT_EQ(spent.find(mac(2), 200), nullptr);
  EXPECT_EQ(spent.size(), 0u);
}

TEST(SpentCookies, AnEarlierTimeBehindALaterOneIsKeptLongerNeverShorter) {
  SpentCookies spent(16);
  ASSERT_TRUE(spent.remember(mac(1), {}, 500, 0));
  ASSERT_TRUE(spent.remember(mac(2), {}, 300, 0));
  EXPECT_NE(spent.find(mac(2), 400), nullptr);
  EXPECT_EQ(spent.find(mac(2), 500), nullptr);
}

TEST(SpentCookies, AFullMemoryRefusesRatherThanForgets) {
  SpentCookies spent(4);
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(spent.remember(mac(i), {}, 1000, 0));
  EXPECT_FALSE(spent.remember(mac(9), {}, 1000, 10));
  for (int i = 0; i < 4; ++i) EXPECT_NE(spent.find(mac(i), 10), nullptr) << i;
  EXPECT_TRUE(spent.remember(mac(9), {}, 3000, 1000)) << "room once the others expired";
}

TEST(SpentCookies, TheCapacityCoversEveryCookieTwoLifetimesCanIssue) {
  // At 2,000 cookies a second (bursts of 200) for 10 s lifetimes, up to 40,000 can be spent and not
  // yet forgotten (an entry lives a lifetime after it is spent, which is up to a lifetime after issue).
  EXPECT_GE(SpentCookies::capacity_for(2000, 200, CookieJar::kLifetime), 40400u);
  EXPECT_LE(SpentCookies::capacity_for(2000, 200, CookieJar::kLifetime), 41000u);
}

}  // namespace
}  // namespace foothold::server
