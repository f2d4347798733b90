// Admission (server/admission.h) on its own: nothing kept before a valid cookie, a Connect that
// passes creates exactly one client, the same Connect again gets the same Accept and creates nothing,
// and a server without room refuses with a reason only the token's holder reads.
#include <gtest/gtest.h>

#include "server_parts_support.h"

namespace foothold::test {
namespace {

const proto::Endpoint kFrom{asio::ip::make_address("10.2.0.1"), 5000};

TEST(Admission, ARequestIsAnsweredWithAChallengeAndLeavesNothingBehind) {
  ServerParts p;
  const auto token = p.mint(1);
  proto::PacketWriter writer;
  proto::DatagramBuffer tx;
  p.admission.on_clear_datagram(ServerParts::kStart, kFrom, proto::frame_clear(writer.connect_request(token.sealed, 9), tx));
  ASSERT_EQ(p.sink.sent.size(), 1u);
  EXPECT_EQ(p.sink.sent[0].first, kFrom);
  EXPECT_EQ(p.counters.get(server::Counter::kChallengesSent), 1u);
  EXPECT_EQ(p.roster.size(), 0u);
  // A token sealed with another key: nothing answered, counted.
  proto::ConnectToken forged = token;
  forged.sealed.back() ^= 1;
  p.admission.on_clear_datagram(ServerParts::kStart, kFrom, proto::frame_clear(writer.connect_request(forged.sealed, 9), tx));
  EXPECT_EQ(p.sink.sent.size(), 1u);
  EXPECT_EQ(p.counters.get(server::Counter::kDropBadToken), 1u);
}

TEST(Admission, AConnectThatPassesCreatesOneClientAndItsRepeatOnlyTheSameAccept) {
  ServerParts p;
  const auto token = p.mint(77);
  const auto connect = p.connect(token, kFrom, 1234);
  ASSERT_FALSE(connect.empty());
  ASSERT_EQ(p.sink.sent.size(), 1u) << "the Accept";
  ASSERT_EQ(p.roster.size(), 1u);
  const server::Client& c = p.roster[0];
  EXPECT_EQ(c.id, 1u);
  EXPECT_EQ(c.session.client_id, 77u);
  EXPECT_EQ(c.session.endpoint, kFrom);
  EXPECT_EQ(c.view.sent.size(), proto::kBaseHistory) << "replication welcomed it";
  EXPECT_EQ(c.session.accept_datagram, p.sink.sent[0].second);
  const auto accept = p.sink.sent[0].second;
  p.sink.sent.clear();
  p.admission.on_clear_datagram(ServerParts::kStart + proto::kMillisecond, kFrom, connect);
  ASSERT_EQ(p.sink.sent.size(), 1u);
  EXPECT_EQ(p.sink.sent[0].second, accept) << "byte for byte";
  EXPECT_EQ(p.roster.size(), 1u);
  EXPECT_EQ(p.counters.get(server::Counter::kAcceptsResent), 1u);
}

TEST(Admission, AFullServerRefusesAndTheRefusalIsRemembered) {
  server::CoreConfig config;
  config.max_clients = 1;
  ServerParts p(config);
  ASSERT_FALSE(p.connect(p.mint(1), kFrom, 1).empty());
  ASSERT_EQ(p.roster.size(), 1u);
  const proto::Endpoint other{asio::ip::make_address("10.2.0.2"), 5000};
  const auto connect = p.connect(p.mint(2), other, 2);
  ASSERT_FALSE(connect.empty());
  EXPECT_EQ(p.roster.size(), 1u);
  EXPECT_EQ(p.counters.get(server::Counter::kRejectedFull), 1u);
  ASSERT_EQ(p.sink.sent.size(), 1u) << "a Reject";
  // Room again: the same Connect replayed still gets its first verdict, not a session.
  p.roster.remove(1);
  p.sink.sent.clear();
  p.admission.on_clear_datagram(ServerParts::kStart + proto::kMillisecond, other, connect);
  EXPECT_EQ(p.roster.size(), 0u);
  EXPECT_EQ(p.counters.get(server::Counter::kRejectedFull), 1u) << "judged once";
}

}  // namespace
}  // namespace foothold::test
