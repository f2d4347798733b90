// Every way a server ends or refuses a session has its code (client/end_reason.h), and the C API's
// codes are the same numbers as the session's.

#include <set>

#include <gtest/gtest.h>

#include "client/end_reason.h"
#include "foothold/client.h"

namespace foothold::test {
namespace {

using client::EndReason;

TEST(ClientEnd, EveryRejectAndDisconnectReasonHasItsCode) {
  using R = proto::fb::RejectReason;
  using D = proto::fb::DisconnectReason;
  EXPECT_EQ(client::end_reason_for(R::VersionMismatch), EndReason::kVersionMismatch);
  EXPECT_EQ(client::end_reason_for(R::ServerFull), EndReason::kServerFull);
  EXPECT_EQ(client::end_reason_for(R::AddressFull), EndReason::kServerFull);
  EXPECT_EQ(client::end_reason_for(R::WorldMismatch), EndReason::kWorldMismatch);
  EXPECT_EQ(client::end_reason_for(R::SettingsMismatch), EndReason::kSettingsMismatch);
  EXPECT_EQ(client::end_reason_for(R::ShuttingDown), EndReason::kServerShutdown);
  EXPECT_EQ(client::end_reason_for(R::WrongServer), EndReason::kWrongServer);
  EXPECT_EQ(client::end_reason_for(R::ClientIdInUse), EndReason::kClientIdInUse);
  EXPECT_EQ(client::end_reason_for(R::Unknown), EndReason::kRejected);
  EXPECT_EQ(client::end_reason_for(D::ClientQuit), EndReason::kClientQuit);
  EXPECT_EQ(client::end_reason_for(D::ServerShutdown), EndReason::kServerShutdown);
  EXPECT_EQ(client::end_reason_for(D::TimedOut), EndReason::kTimedOut);
  EXPECT_EQ(client::end_reason_for(D::Replaced), EndReason::kReplaced);
  EXPECT_EQ(client::end_reason_for(D::MessageViolation), EndReason::kMessages);
  EXPECT_EQ(client::end_reason_for(D::MessageTimeout), EndReason::kMessages);
  EXPECT_EQ(client::end_reason_for(D::Removed), EndReason::kKicked);
  // Every value of either enum the wire can carry maps to a code that ends (none is kNone).
  for (int r = int(R::MIN); r <= int(R::MAX); ++r) EXPECT_NE(client::end_reason_for(R(r)), EndReason::kNone) << r;
  for (int d = int(D::MIN); d <= int(D::MAX); ++d) EXPECT_NE(client::end_reason_for(D(d)), EndReason::kNone) << d;
}

TEST(ClientEnd, TheCCodesAreTheSessionsAndEachHasItsOwnName) {
  EXPECT_EQ(int(EndReason::kNone), FOOTHOLD_CLIENT_END_NONE);
  EXPECT_EQ(int(EndReason::kClientQuit), FOOTHOLD_CLIENT_END_CLIENT_QUIT);
  EXPECT_EQ(int(EndReason::kNoServer), FOOTHOLD_CLIENT_END_NO_SERVER);
  EXPECT_EQ(int(EndReason::kNoAnswer), FOOTHOLD_CLIENT_END_NO_ANSWER);
  EXPECT_EQ(int(EndReason::kTokenExpired), FOOTHOLD_CLIENT_END_TOKEN_EXPIRED);
  EXPECT_EQ(int(EndReason::kHandshakeTimeout), FOOTHOLD_CLIENT_END_HANDSHAKE_TIMEOUT);
  EXPECT_EQ(int(EndReason::kTimedOut), FOOTHOLD_CLIENT_END_TIMED_OUT);
  EXPECT_EQ(int(EndReason::kVersionMismatch), FOOTHOLD_CLIENT_END_VERSION_MISMATCH);
  EXPECT_EQ(int(EndReason::kWorldMismatch), FOOTHOLD_CLIENT_END_WORLD_MISMATCH);
  EXPECT_EQ(int(EndReason::kSettingsMismatch), FOOTHOLD_CLIENT_END_SETTINGS_MISMATCH);
  EXPECT_EQ(int(EndReason::kServerFull), FOOTHOLD_CLIENT_END_SERVER_FULL);
  EXPECT_EQ(int(EndReason::kServerShutdown), FOOTHOLD_CLIENT_END_SERVER_SHUTDOWN);
  EXPECT_EQ(int(EndReason::kKicked), FOOTHOLD_CLIENT_END_KICKED);
  EXPECT_EQ(int(EndReason::kReplaced), FOOTHOLD_CLIENT_END_REPLACED);
  EXPECT_EQ(int(EndReason::kClientIdInUse), FOOTHOLD_CLIENT_END_CLIENT_ID_IN_USE);
  EXPECT_EQ(int(EndReason::kWrongServer), FOOTHOLD_CLIENT_END_WRONG_SERVER);
  EXPECT_EQ(int(EndReason::kRejected), FOOTHOLD_CLIENT_END_REJECTED);
  EXPECT_EQ(int(EndReason::kMessages), FOOTHOLD_CLIENT_END_MESSAGES);
  EXPECT_EQ(client::kEndReasons, FOOTHOLD_CLIENT_END_MESSAGES + 1);
  std::set<std::string_view> names;
  for (int r = 0; r < client::kEndReasons; ++r) names.insert(client::to_string(EndReason(r)));
  EXPECT_EQ(names.size(), size_t(client::kEndReasons));
  EXPECT_EQ(names.count("unknown"), 0u);
}

}  // namespace
}  // namespace foothold::test
