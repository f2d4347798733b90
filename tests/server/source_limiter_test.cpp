// Per-source handshake limits: one address, and one /24 or /64, each get a budget; others are not
// charged for them.

#include <cstdio>
#include <random>

#include <gtest/gtest.h>

#include <asio/ip/address.hpp>

#include "server/source_limiter.h"

namespace foothold::server {
namespace {

proto::Endpoint ep(const char* address, uint16_t port = 1000) { return {asio::ip::make_address(address), port}; }

int taken(SourceLimiter& l, const proto::Endpoint& from, int tries, proto::Nanos now) {
  int n = 0;
  for (int i = 0; i < tries; ++i) n += l.take(from, now);
  return n;
}

TEST(SourceLimiter, AnAddressGetsItsBurstThenItsRate) {
  SourceLimits limits;
  limits.address_rate = 10;
  limits.prefix_rate = 1000;
  SourceLimiter l(limits, 0);
  EXPECT_EQ(taken(l, ep("198.51.100.7"), 100, 0), 20) << "the burst is twice the rate";
  EXPECT_EQ(taken(l, ep("198.51.100.7"), 100, proto::kSecond), 10) << "then the rate";
  // Its port does not matter: the budget is the address's.
  EXPECT_EQ(taken(l, ep("198.51.100.7", 2000), 5, proto::kSecond), 0);
  // Another address in the same /24 has its own address budget.
  EXPECT_EQ(taken(l, ep("198.51.100.8"), 5, proto::kSecond), 5);
}

TEST(SourceLimiter, APrefixSharesOneBudgetAndOthersAreNotCharged) {
  SourceLimits limits;
  limits.address_rate = 1000;
  limits.prefix_rate = 10;
  SourceLimiter l(limits, 0);
  int from_prefix = 0;
  for (int i = 1; i <= 60; ++i)
    from_prefix += l.take(ep(("203.0.113." + std::to_string(i)).c_str()), 0);
  EXPECT_EQ(from_prefix, 20) << "a whole /24 together gets one burst";
  EXPECT_EQ(taken(l, ep("203.0.114.1"), 5, 0), 5) << "the next /24 is not charged";
  // IPv6: one /64 together.
  int v6 = 0;
  for (int i = 1; i <= 60; ++i) v6 += l.take(ep(("2001:db8::" + std::to_string(i)).c_str()), 0);
  EXPECT_EQ(v6, 20);
  EXPECT_EQ(taken(l, ep("2001:db8:0:1::1"), 5, 0), 5) << "another /64";
}

TEST(SourceLimiter, AnIpv4PeerOnADualStackSocketIsJudgedAsIpv4) {
  SourceLimits limits;
  limits.address_rate = 10;
  limits.prefix_rate = 1000;
  SourceLimiter l(limits, 0);
  EXPECT_EQ(taken(l, ep("::ffff:192.0.2.1"), 15, 0), 15);
  EXPECT_EQ(taken(l, ep("192.0.2.1"), 15, 0), 5) << "the same address, however the socket spells it";
  // And mapped peers in different /24s do not share a /64 budget.
  limits.address_rate = 1000;
  limits.prefix_rate = 10;
  SourceLimiter p(limits, 0);
  int spread = 0;
  for (int i = 1; i <= 50; ++i) spread += p.take(ep(("::ffff:10." + std::to_string(i) + ".0.1").c_str()), 0);
  EXPECT_EQ(spread, 50);
}

// The share of genuine joins that pass while spoofed ConnectRequests from uniformly random IPv4
// addresses arrive at `spoofed_per_second`: 200 genuine clients, each from an address of its own,
// send one ConnectRequest (charged to the buckets) in the measured second, after a second of flood
// alone. Their Connect carries a valid cookie, which the server checks before the buckets and which
// spends none (server_core.cpp), so a join passes when its request does.
double genuine_share(const SourceLimits& limits, double spoofed_per_second) {
  SourceLimiter l(limits, 0);
  std::mt19937 rng(7);
  const auto spoofed = [&] { return proto::Endpoint(asio::ip::make_address_v4(uint32_t(rng())), 1000); };
  const proto::Nanos step = proto::Nanos(double(proto::kSecond) / spoofed_per_second);
  proto::Nanos t = 0;
  for (; t < proto::kSecond; t += step) l.take(spoofed(), t);
  constexpr int kGenuine = 200;
  const int spoofed_between = int(spoofed_per_second / kGenuine);
  int passed = 0;
  for (int g = 0; g < kGenuine; ++g) {
    for (int i = 0; i < spoofed_between; ++i, t += step) l.take(spoofed(), t);
    passed += l.take(proto::Endpoint(asio::ip::make_address_v4(0xc6336400u + uint32_t(g) * 7919u), 5000), t);
  }
  return double(passed) / kGenuine;
}

TEST(SourceLimiter, GenuineJoinsPassASpoofedFlood) {
  // Enough buckets that a flood spread over the whole address space leaves each one under its
  // rate: the share printed is what the note on issue 42 quotes.
  const SourceLimits limits;
  const double at_100k = genuine_share(limits, 100'000), at_400k = genuine_share(limits, 400'000);
  std::printf("genuine joins passing: %.1f%% at 100k/s spoofed, %.1f%% at 400k/s spoofed (%zu slots)\n",
              100 * at_100k, 100 * at_400k, limits.slots);
  EXPECT_GE(at_100k, 0.95);
  EXPECT_GE(at_400k, 0.90);
  // For comparison, the tables of 4,096 slots the server had before (no expectation: the figure).
  SourceLimits small;
  small.slots = 4096;
  std::printf("with %zu slots: %.1f%% at 100k/s, %.1f%% at 400k/s\n", small.slots, 100 * genuine_share(small, 100'000),
              100 * genuine_share(small, 400'000));
}

}  // namespace
}  // namespace foothold::server
