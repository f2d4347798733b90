// A bot's message load (bots/message_checker.h): messages numbered from 0 without gaps, the bot's
// index and a checkable payload in them, sizes from the seeded range, spread evenly at the rate,
// a refused message tried again as it was; every echo judged (received, lost, out of order,
// corrupt) and timed; and the two flags' values read, or refused naming the flag.

#include <algorithm>
#include <deque>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "bots/message_checker.h"

namespace foothold::bots {
namespace {

using proto::kMillisecond;
using proto::kSecond;
using proto::Nanos;
using proto::SendError;

// Stands for the session's send_message: keeps every message it is offered, and answers with the
// scripted refusals first (then kNone).
struct FakeSession {
  std::vector<std::vector<uint8_t>> offered;   // every call, accepted or not
  std::vector<std::vector<uint8_t>> accepted;  // the messages "sent"
  std::deque<SendError> refusals;
  MessageChecker::Send sender() {
    return [this](std::span<const uint8_t> bytes) {
      offered.emplace_back(bytes.begin(), bytes.end());
      if (!refusals.empty()) {
        const SendError e = refusals.front();
        refusals.pop_front();
        if (e != SendError::kNone) return e;
      }
      accepted.emplace_back(bytes.begin(), bytes.end());
      return SendError::kNone;
    };
  }
};

MessageLoad load(double per_second, uint32_t min = 16, uint32_t max = 256) {
  MessageLoad l;
  l.per_second = per_second;
  l.sizes = {min, max};
  return l;
}

uint32_t sequence_of(const std::vector<uint8_t>& m) {
  return uint32_t(m[0]) | uint32_t(m[1]) << 8 | uint32_t(m[2]) << 16 | uint32_t(m[3]) << 24;
}
uint32_t bot_of(const std::vector<uint8_t>& m) {
  return uint32_t(m[4]) | uint32_t(m[5]) << 8 | uint32_t(m[6]) << 16 | uint32_t(m[7]) << 24;
}

// Sends `n` messages: the first starts the schedule, the rest go at once an hour later (all due),
// and a full queue stops them after n.
std::vector<std::vector<uint8_t>> send_n(MessageChecker& c, FakeSession& s, int n) {
  s.refusals.assign(std::size_t(n), SendError::kNone);
  s.refusals.push_back(SendError::kQueueFull);
  c.send_due(0, s.sender());
  c.send_due(3600 * kSecond, s.sender());
  return s.accepted;
}

TEST(MessageChecker, MessagesAreNumberedFromZeroAndCarryTheBotAndACheckablePayload) {
  MessageChecker c(load(1000, 16, 300), 7, 42);
  FakeSession s;
  const auto sent = send_n(c, s, 50);
  ASSERT_EQ(sent.size(), 50u);
  bool sizes_vary = false;
  for (uint32_t k = 0; k < sent.size(); ++k) {
    const auto& m = sent[k];
    ASSERT_GE(m.size(), 16u);
    ASSERT_LE(m.size(), 300u);
    EXPECT_EQ(sequence_of(m), k);
    EXPECT_EQ(bot_of(m), 42u);
    for (std::size_t i = 0; i < m.size(); ++i) ASSERT_EQ(m[i], message_byte(42, k, i)) << "message " << k << " byte " << i;
    sizes_vary |= m.size() != sent[0].size();
  }
  EXPECT_TRUE(sizes_vary);
  EXPECT_EQ(c.counts().sent, 50u);
  EXPECT_EQ(c.outstanding(), 50u);
  // The payload is not the same from message to message: a stale echo of another one would pass.
  EXPECT_FALSE(std::equal(sent[1].begin() + 8, sent[1].begin() + 16, sent[2].begin() + 8));
}

std::vector<std::size_t> sizes(uint64_t seed, uint32_t bot, uint32_t min, uint32_t max) {
  MessageChecker c(load(1000, min, max), seed, bot);
  FakeSession s;
  std::vector<std::size_t> out;
  for (const auto& m : send_n(c, s, 200)) out.push_back(m.size());
  return out;
}

TEST(MessageChecker, SizesComeFromTheSeededRangeAndDifferBySeedAndBot) {
  const auto a = sizes(1, 0, 16, 256);
  EXPECT_EQ(a, sizes(1, 0, 16, 256));
  EXPECT_NE(a, sizes(1, 1, 16, 256));
  EXPECT_NE(a, sizes(2, 0, 16, 256));
  ASSERT_EQ(a.size(), 200u);
  EXPECT_GE(*std::min_element(a.begin(), a.end()), 16u);
  EXPECT_LE(*std::max_element(a.begin(), a.end()), 256u);
  EXPECT_LT(*std::min_element(a.begin(), a.end()), 40u) << "200 draws reach near the bottom";
  EXPECT_GT(*std::max_element(a.begin(), a.end()), 230u) << "and near the top";
  for (const std::size_t n : sizes(3, 0, 5, 5)) EXPECT_EQ(n, 5u);
  const auto wide = sizes(3, 0, 1, 65536);
  EXPECT_GE(*std::min_element(wide.begin(), wide.end()), 1u);
  EXPECT_LE(*std::max_element(wide.begin(), wide.end()), 65536u);
}

// The times at which messages went, calling send_due every millisecond for `ms` milliseconds.
std::vector<Nanos> send_times(double per_second, int ms) {
  MessageChecker c(load(per_second), 1, 0);
  FakeSession s;
  std::vector<Nanos> times;
  const Nanos start = 5 * kSecond;  // the schedule starts at the first call, whatever the clock says
  for (int t = 0; t <= ms; ++t) {
    const Nanos now = start + t * kMillisecond;
    for (int n = c.send_due(now, s.sender()); n > 0; --n) times.push_back(now - start);
  }
  return times;
}

TEST(MessageChecker, MessagesAreSpreadEvenlyAtTheRate) {
  const auto twenty = send_times(20, 999);
  ASSERT_EQ(twenty.size(), 20u);
  for (std::size_t k = 0; k < twenty.size(); ++k) EXPECT_EQ(twenty[k], Nanos(k) * 50 * kMillisecond) << k;

  const auto half = send_times(0.5, 5000);
  ASSERT_EQ(half.size(), 3u);
  EXPECT_EQ(half[0], 0);
  EXPECT_EQ(half[1], 2 * kSecond);
  EXPECT_EQ(half[2], 4 * kSecond);

  // Called less often than the rate: all the messages due go, and the schedule does not drift.
  MessageChecker c(load(100), 1, 0);
  FakeSession s;
  EXPECT_EQ(c.send_due(0, s.sender()), 1);
  EXPECT_EQ(c.next_due(), 10 * kMillisecond);
  EXPECT_EQ(c.send_due(35 * kMillisecond, s.sender()), 3);  // 10, 20 and 30 ms
  EXPECT_EQ(c.next_due(), 40 * kMillisecond);
  EXPECT_EQ(c.send_due(39 * kMillisecond, s.sender()), 0);
  EXPECT_EQ(c.send_due(1 * kSecond, s.sender()), 97);  // 40 ms to 1 s, both included
}

TEST(MessageChecker, ARefusedMessageIsTriedAgainWithItsNumberAndSize) {
  MessageChecker c(load(100), 3, 9);
  FakeSession s;
  ASSERT_EQ(c.send_due(0, s.sender()), 1);
  // Message 1 is due at 10 ms; the queue is full twice, then the session is between connections.
  s.refusals = {SendError::kQueueFull, SendError::kQueueFull, SendError::kNotConnected};
  EXPECT_EQ(c.send_due(10 * kMillisecond, s.sender()), 0);
  EXPECT_EQ(c.send_due(11 * kMillisecond, s.sender()), 0);
  EXPECT_EQ(c.send_due(12 * kMillisecond, s.sender()), 0);
  EXPECT_EQ(c.counts().sent, 1u) << "a refused message is not sent";
  EXPECT_EQ(c.outstanding(), 1u);
  EXPECT_EQ(c.next_due(), 10 * kMillisecond) << "still due";
  // Then taken: message 1 as it was offered each time, then message 2 (due at 20 ms), no gap.
  EXPECT_EQ(c.send_due(25 * kMillisecond, s.sender()), 2);
  ASSERT_EQ(s.offered.size(), 6u);
  for (std::size_t i = 1; i <= 4; ++i) EXPECT_EQ(s.offered[i], s.offered[1]) << i;
  ASSERT_EQ(s.accepted.size(), 3u);
  for (uint32_t k = 0; k < 3; ++k) EXPECT_EQ(sequence_of(s.accepted[k]), k);
  EXPECT_EQ(c.counts().sent, 3u);

  // A refusal no retry can cure ends the sending, and says why.
  s.refusals = {SendError::kTooLarge};
  EXPECT_EQ(c.send_due(1 * kSecond, s.sender()), 0);
  EXPECT_EQ(c.counts().refused, SendError::kTooLarge);
  EXPECT_EQ(c.next_due(), std::numeric_limits<Nanos>::max());
  EXPECT_EQ(c.send_due(2 * kSecond, s.sender()), 0);
  EXPECT_EQ(c.counts().sent, 3u);
}

TEST(MessageChecker, EchoesInOrderAreReceivedAndTimed) {
  MessageChecker c(load(100), 1, 4);
  FakeSession s;
  c.send_due(0, s.sender());                   // message 0 at 0 ms
  c.send_due(10 * kMillisecond, s.sender());   // message 1 at 10 ms
  ASSERT_EQ(s.accepted.size(), 2u);
  c.on_echo(30 * kMillisecond, proto::Channel::kReliable, s.accepted[0]);
  c.on_echo(45 * kMillisecond, proto::Channel::kReliable, s.accepted[1]);
  const MessageCounts& m = c.counts();
  EXPECT_EQ(m.sent, 2u);
  EXPECT_EQ(m.received, 2u);
  EXPECT_EQ(m.lost, 0u);
  EXPECT_EQ(m.out_of_order, 0u);
  EXPECT_EQ(m.corrupt, 0u);
  ASSERT_EQ(m.rtt_ms.size(), 2u);
  EXPECT_DOUBLE_EQ(m.rtt_ms[0], 30.0);
  EXPECT_DOUBLE_EQ(m.rtt_ms[1], 35.0);
  EXPECT_EQ(c.outstanding(), 0u);
}

TEST(MessageChecker, MessagesNeverEchoedAreLostAndTheEchoThatSkipsThemIsOutOfOrder) {
  MessageChecker c(load(1000), 1, 0);
  FakeSession s;
  const auto sent = send_n(c, s, 5);
  c.on_echo(1, proto::Channel::kReliable, sent[0]);
  c.on_echo(1, proto::Channel::kReliable, sent[2]);  // 1 skipped
  c.on_echo(1, proto::Channel::kReliable, sent[3]);
  const MessageCounts& m = c.counts();
  EXPECT_EQ(m.received, 3u);
  EXPECT_EQ(m.lost, 2u) << "1 and 4";
  EXPECT_EQ(m.out_of_order, 1u);
  EXPECT_EQ(c.outstanding(), 2u);
}

TEST(MessageChecker, SwappedEchoesAreOutOfOrderButReceived) {
  MessageChecker c(load(1000), 1, 0);
  FakeSession s;
  const auto sent = send_n(c, s, 5);
  for (const int k : {0, 2, 1, 3, 4}) c.on_echo(1, proto::Channel::kReliable, sent[std::size_t(k)]);
  const MessageCounts& m = c.counts();
  EXPECT_EQ(m.received, 5u);
  EXPECT_EQ(m.lost, 0u);
  EXPECT_EQ(m.out_of_order, 2u) << "2 came early and 1 late; 3 and 4 are in order again";
  EXPECT_EQ(m.corrupt, 0u);
}

TEST(MessageChecker, ACorruptEchoIsNotReceivedAndItsMessageCountsAsLost) {
  MessageChecker c(load(1000, 64, 64), 1, 3);
  FakeSession s;
  const auto sent = send_n(c, s, 8);
  auto flipped = sent[0];
  flipped[40] ^= 0x01;  // one bit of the payload
  c.on_echo(1, proto::Channel::kReliable, flipped);
  auto cut = sent[1];
  cut.pop_back();  // a byte short
  c.on_echo(1, proto::Channel::kReliable, cut);
  auto grown = sent[2];
  grown.push_back(0);
  c.on_echo(1, proto::Channel::kReliable, grown);
  c.on_echo(1, proto::Channel::kReliable, sent[3]);  // intact, and in order: the corrupt ones held their places
  EXPECT_EQ(c.counts().received, 1u);
  EXPECT_EQ(c.counts().corrupt, 3u);
  EXPECT_EQ(c.counts().out_of_order, 0u);
  EXPECT_EQ(c.counts().lost, 7u) << "three echoed corrupt, four not echoed";
  EXPECT_EQ(c.outstanding(), 4u);

  // Echoes that name no message awaited: corrupt, and neither received nor judged for order.
  c.on_echo(1, proto::Channel::kReliable, sent[3]);  // again
  auto other_bot = sent[4];
  other_bot[4] ^= 0xff;
  c.on_echo(1, proto::Channel::kReliable, other_bot);
  auto unknown = sent[4];
  unknown[2] = 0x77;  // a sequence never sent
  c.on_echo(1, proto::Channel::kReliable, unknown);
  c.on_echo(1, proto::Channel::kUnreliable, sent[4]);  // not how they were sent
  EXPECT_EQ(c.counts().corrupt, 7u);
  EXPECT_EQ(c.counts().received, 1u);
  EXPECT_EQ(c.counts().out_of_order, 0u);
  EXPECT_EQ(c.outstanding(), 4u);
  c.on_echo(1, proto::Channel::kReliable, sent[4]);  // still awaited, and next in order
  EXPECT_EQ(c.counts().received, 2u);
  EXPECT_EQ(c.counts().out_of_order, 0u);
  EXPECT_EQ(c.counts().lost, 6u);
}

TEST(MessageChecker, MessagesShorterThanTheHeaderAreCheckedByTheirBytes) {
  MessageChecker c(load(1000, 1, 7), 1, 0x0102);
  FakeSession s;
  const auto sent = send_n(c, s, 300);  // more than 256: a one-byte message's sequence byte repeats
  for (std::size_t k = 0; k < sent.size(); ++k) {
    ASSERT_LE(sent[k].size(), 7u);
    for (std::size_t i = 0; i < sent[k].size(); ++i) ASSERT_EQ(sent[k][i], message_byte(0x0102, uint32_t(k), i));
  }
  for (const auto& m : sent) c.on_echo(1, proto::Channel::kReliable, m);
  EXPECT_EQ(c.counts().received, 300u);
  EXPECT_EQ(c.counts().out_of_order, 0u);
  EXPECT_EQ(c.counts().corrupt, 0u);
  EXPECT_EQ(c.counts().lost, 0u);
}

TEST(MessageChecker, AfterStopSendingOnlyEchoesAreTaken) {
  MessageChecker c(load(100), 1, 0);
  FakeSession s;
  c.send_due(0, s.sender());
  c.stop_sending();
  EXPECT_EQ(c.send_due(kSecond, s.sender()), 0);
  EXPECT_EQ(c.next_due(), std::numeric_limits<Nanos>::max());
  EXPECT_EQ(c.outstanding(), 1u);
  c.on_echo(2 * kSecond, proto::Channel::kReliable, s.accepted[0]);
  EXPECT_EQ(c.outstanding(), 0u);
  EXPECT_EQ(c.counts().received, 1u);
}

TEST(MessageFlags, TheRateIsANumberAboveZero) {
  for (const auto& [text, value] : std::vector<std::pair<std::string, double>>{{"20", 20}, {"0.5", 0.5}, {"1e3", 1000}}) {
    double rate = 0;
    EXPECT_EQ(parse_message_rate(text, rate), "") << text;
    EXPECT_EQ(rate, value) << text;
  }
  for (const char* bad : {"0", "-1", "", "abc", "5x", "inf", "nan", "1e999", " 5"}) {
    double rate = 7;
    const std::string error = parse_message_rate(bad, rate);
    EXPECT_NE(error.find("--messages-per-second"), std::string::npos) << "'" << bad << "': " << error;
    EXPECT_EQ(rate, 7) << bad << ": unchanged when refused";
  }
}

TEST(MessageFlags, TheSizesAreMinColonMaxWithinTheChannelsLimit) {
  MessageSizes sizes;
  EXPECT_EQ(parse_message_sizes("16:256", sizes), "");
  EXPECT_EQ(sizes.min, 16u);
  EXPECT_EQ(sizes.max, 256u);
  EXPECT_EQ(parse_message_sizes("1:65536", sizes), "");
  EXPECT_EQ(sizes.min, 1u);
  EXPECT_EQ(sizes.max, 65536u);
  EXPECT_EQ(parse_message_sizes("9:9", sizes), "");
  EXPECT_EQ(sizes.min, 9u);

  for (const char* bad : {"0:10", "1:65537", "16", "16:", ":256", "a:b", "16:256:3", "-1:5", " 16:256", "16:256 ", ""}) {
    MessageSizes unchanged{3, 4};
    const std::string error = parse_message_sizes(bad, unchanged);
    EXPECT_NE(error.find("--message-bytes"), std::string::npos) << "'" << bad << "': " << error;
    EXPECT_EQ(unchanged.min, 3u) << bad;
    EXPECT_EQ(unchanged.max, 4u) << bad;
  }
  const std::string reversed = parse_message_sizes("300:200", sizes);
  EXPECT_NE(reversed.find("--message-bytes"), std::string::npos) << reversed;
  EXPECT_NE(reversed.find("300"), std::string::npos) << reversed;
  // The default range is the one the help text gives.
  EXPECT_EQ(MessageSizes{}.min, 16u);
  EXPECT_EQ(MessageSizes{}.max, 256u);
}

}  // namespace
}  // namespace foothold::bots
