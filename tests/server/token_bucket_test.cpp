// The token bucket (server/token_bucket.h) behind every rate limit: bursts, refill, and time that
// stands still or runs backwards.

#include <gtest/gtest.h>

#include "server/token_bucket.h"

namespace foothold::server {
namespace {

int take_all(TokenBucket& b, proto::Nanos now) {
  int n = 0;
  while (b.take(now) && n < 1000000) ++n;
  return n;
}

TEST(TokenBucket, AllowsItsBurstThenItsRate) {
  TokenBucket b(10, 5, 0);
  EXPECT_EQ(take_all(b, 0), 5) << "a full bucket: the burst";
  EXPECT_EQ(take_all(b, 100 * proto::kMillisecond), 1) << "10 per second: one per 100 ms";
  EXPECT_EQ(take_all(b, 350 * proto::kMillisecond), 2);
  EXPECT_EQ(take_all(b, 100 * proto::kSecond), 5) << "refill stops at the burst";
}

TEST(TokenBucket, TimeGoingBackwardsGivesNothing) {
  TokenBucket b(10, 2, 5 * proto::kSecond);
  EXPECT_EQ(take_all(b, 5 * proto::kSecond), 2);
  EXPECT_EQ(take_all(b, 1 * proto::kSecond), 0);
  EXPECT_EQ(take_all(b, 5 * proto::kSecond + 100 * proto::kMillisecond), 1) << "counted from the latest time seen";
}

TEST(TokenBucket, ADefaultBucketRefusesEverything) {
  TokenBucket b;
  EXPECT_EQ(take_all(b, 0), 0);
  EXPECT_EQ(take_all(b, 1000 * proto::kSecond), 0);
}

}  // namespace
}  // namespace foothold::server
