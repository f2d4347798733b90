// Reliable ordered messages (proto/message_channel.h): every message delivered exactly once, in the
// order sent, whole, through loss, duplication, reordering and delay; bounded memory on both ends;
// and every thing a dishonest peer could send refused with its reason.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "proto/message_channel.h"
#include "support/test_seed.h"

namespace foothold::proto {
namespace {

std::vector<uint8_t> message_of(std::size_t size, uint32_t tag) {
  std::vector<uint8_t> m(size);
  for (std::size_t i = 0; i < size; ++i) m[i] = uint8_t((tag * 131 + i * 7) ^ (i >> 8));
  return m;
}

// A datagram link in one direction, by virtual time: each datagram lost, doubled, or held back.
struct Link {
  struct InFlight {
    Nanos at;
    uint64_t order;
    std::vector<uint8_t> bytes;
  };
  std::mt19937_64 rng;
  double loss = 0, duplicate = 0;
  Nanos latency = 0, jitter = 0;
  std::vector<InFlight> queue;
  uint64_t sent = 0;
  void send(Nanos now, std::span<const uint8_t> bytes) {
    auto uni = [&] { return std::uniform_real_distribution<double>(0, 1)(rng); };
    const int copies = uni() < loss ? 0 : uni() < duplicate ? 2 : 1;
    for (int c = 0; c < copies; ++c) {
      const Nanos delay = latency + Nanos((uni() * 2 - 1) * double(jitter));  // jitter reorders
      queue.push_back({now + std::max<Nanos>(0, delay), sent++, {bytes.begin(), bytes.end()}});
    }
  }
  template <typename Take>
  void deliver(Nanos now, Take&& take) {
    std::sort(queue.begin(), queue.end(), [](const auto& a, const auto& b) { return a.at != b.at ? a.at < b.at : a.order < b.order; });
    std::size_t n = 0;
    while (n < queue.size() && queue[n].at <= now) take(queue[n++].bytes);
    queue.erase(queue.begin(), queue.begin() + long(n));
  }
};

// Sends `messages` from a sender to a receiver over `forward`, acknowledgements back over `back`,
// one datagram each way per 16 ms tick; returns what arrived, in order.
std::vector<std::vector<uint8_t>> run(const std::vector<std::vector<uint8_t>>& messages, Link forward, Link back,
                                      Nanos rto, uint64_t* retransmissions = nullptr, int max_ticks = 20000) {
  ReliableSender sender;
  ReliableReceiver receiver;
  std::vector<std::vector<uint8_t>> got;
  std::size_t next = 0;
  std::vector<uint8_t> datagram(1200);
  for (int tick = 0; tick < max_ticks && got.size() < messages.size(); ++tick) {
    const Nanos now = Nanos(tick) * 16 * kMillisecond;
    while (next < messages.size() && sender.send(messages[next]) == SendError::kNone) ++next;
    const std::size_t n = sender.write(now, rto, datagram);
    if (n > 0) forward.send(now, {datagram.data(), n});
    forward.deliver(now, [&](const std::vector<uint8_t>& d) {
      EXPECT_EQ(read_fragments(d, [&](const Fragment& f) { return receiver.on_fragment(f); }), Violation::kNone);
    });
    for (std::vector<uint8_t> m; receiver.receive(m);) got.push_back(std::move(m));
    std::array<uint8_t, kMessageAckBytes> ack{};
    write_ack(receiver.ack(), ack);
    back.send(now, ack);
    back.deliver(now, [&](const std::vector<uint8_t>& d) {
      MessageAck a;
      ASSERT_TRUE(read_ack(d, a));
      EXPECT_EQ(sender.on_ack(a), Violation::kNone);
    });
    EXPECT_LE(receiver.held_bytes(), MessageLimits{}.queue_bytes);
    EXPECT_LE(sender.queued_bytes(), MessageLimits{}.queue_bytes);
  }
  if (retransmissions) *retransmissions = sender.retransmissions();
  return got;
}

TEST(MessageChannel, MessagesOfEverySizeArriveWholeAndInOrder) {
  std::vector<std::vector<uint8_t>> messages;
  uint32_t tag = 0;
  for (std::size_t size : {1u, 1199u, 1200u, 1024u, 1025u, 65536u, 2u, 65535u}) messages.push_back(message_of(size, tag++));
  EXPECT_EQ(run(messages, {}, {}, 100 * kMillisecond), messages);
  ReliableSender s;
  EXPECT_EQ(s.send(message_of(65537, 0)), SendError::kTooLarge);
  EXPECT_EQ(s.send({}), SendError::kEmpty);
  EXPECT_EQ(s.queued_bytes(), 0u) << "a refused message is not queued";
}

TEST(MessageChannel, ExactlyOnceInOrderThroughLossDuplicatesReorderingAndDelay) {
  const uint64_t seed = test::test_seed(35);
  std::mt19937_64 rng(seed);
  std::vector<std::vector<uint8_t>> messages;
  for (uint32_t i = 0; i < 400; ++i) {
    const std::size_t size = i % 50 == 0 ? 20000 : 1 + rng() % 3000;
    messages.push_back(message_of(size, i));
  }
  // 30% loss, 10% duplicates, 250 ± 100 ms each way: the jitter reorders about a fifth.
  const auto impaired = [](uint64_t s) {
    Link l;
    l.rng.seed(s);
    l.loss = 0.3;
    l.duplicate = 0.1;
    l.latency = 250 * kMillisecond;
    l.jitter = 100 * kMillisecond;
    return l;
  };
  const Link forward = impaired(seed + 1), back = impaired(seed + 2);
  uint64_t retransmissions = 0;
  const auto got = run(messages, forward, back, 700 * kMillisecond, &retransmissions);
  EXPECT_GT(retransmissions, 100u) << "the link lost nothing: the test proves nothing";
  ASSERT_EQ(got.size(), messages.size());
  for (std::size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], messages[i]) << "message " << i;
}

TEST(MessageChannel, AFullQueueRefusesUntilThePeerAcknowledgesAndMemoryStaysBounded) {
  MessageLimits limits;
  limits.queue_bytes = 10000;
  ReliableSender s(limits);
  ReliableReceiver r(limits);
  EXPECT_EQ(s.send(message_of(6000, 1)), SendError::kNone);
  EXPECT_EQ(s.send(message_of(6000, 2)), SendError::kQueueFull) << "a clear error, never a silent drop";
  EXPECT_EQ(s.queued_bytes(), 6000u);
  // A peer that never acknowledges: the sender sends again and again, and holds no more.
  std::vector<uint8_t> d(1200);
  std::size_t written = 0;
  for (int t = 0; t < 50; ++t) written += s.write(Nanos(t) * 100 * kMillisecond, 100 * kMillisecond, d);
  EXPECT_GT(s.retransmissions(), 0u);
  EXPECT_EQ(s.queued_bytes(), 6000u);
  EXPECT_EQ(s.send(message_of(6000, 2)), SendError::kQueueFull);
  // Delivered and acknowledged: room again.
  std::vector<uint8_t> all(8000);
  const std::size_t n = s.write(100 * kSecond, 0, all);
  ASSERT_EQ(read_fragments({all.data(), n}, [&](const Fragment& f) { return r.on_fragment(f); }), Violation::kNone);
  ASSERT_EQ(s.on_ack(r.ack()), Violation::kNone);
  EXPECT_EQ(s.queued_bytes(), 0u);
  EXPECT_EQ(s.send(message_of(6000, 2)), SendError::kNone);
  // A receiver whose application takes nothing holds at most queue_bytes.
  ReliableReceiver full(limits);
  uint16_t seq = 0;
  for (int m = 0; m < 20; ++m) {
    const auto bytes = message_of(1000, uint32_t(m));
    EXPECT_EQ(full.on_fragment({seq++, true, true, bytes}), Violation::kNone);
  }
  EXPECT_LE(full.held_bytes(), limits.queue_bytes);
  EXPECT_EQ(full.ack().next, 10) << "what it has no room for is not acknowledged";
}

TEST(MessageChannel, WhatNoHonestPeerSendsIsRefusedByName) {
  const auto bytes = message_of(10, 0);
  {
    ReliableReceiver r;
    EXPECT_EQ(r.on_fragment({200, true, true, bytes}), Violation::kOutsideWindow);
    EXPECT_EQ(r.on_fragment({uint16_t(0 - 1), true, true, bytes}), Violation::kNone) << "behind the window: a late copy";
    EXPECT_EQ(r.on_fragment({0, true, true, message_of(1025, 0)}), Violation::kOversizedFragment);
    EXPECT_EQ(r.on_fragment({0, true, true, {}}), Violation::kOversizedFragment);
    EXPECT_EQ(r.held_bytes(), 0u) << "nothing refused is kept";
  }
  {
    ReliableReceiver r;  // a message started inside another
    EXPECT_EQ(r.on_fragment({0, true, false, bytes}), Violation::kNone);
    EXPECT_EQ(r.on_fragment({1, true, true, bytes}), Violation::kOverlapping);
  }
  {
    ReliableReceiver r;  // a middle fragment outside any message
    EXPECT_EQ(r.on_fragment({0, false, true, bytes}), Violation::kOverlapping);
  }
  {
    MessageLimits limits;
    limits.max_message = 2048;
    ReliableReceiver r(limits);  // fragments that never end a message
    const auto k = message_of(1024, 0);
    EXPECT_EQ(r.on_fragment({0, true, false, k}), Violation::kNone);
    EXPECT_EQ(r.on_fragment({1, false, false, k}), Violation::kNone);
    EXPECT_EQ(r.on_fragment({2, false, false, k}), Violation::kTooLarge);
  }
  {
    ReliableSender s;
    EXPECT_EQ(s.on_ack({1, 0}), Violation::kBadAck) << "sequence 0 was never sent";
    EXPECT_EQ(s.send(bytes), SendError::kNone);
    std::vector<uint8_t> d(100);
    ASSERT_GT(s.write(0, kSecond, d), 0u);
    EXPECT_EQ(s.on_ack({0, 1}), Violation::kBadAck) << "sequence 1 was never sent";
    EXPECT_EQ(s.in_flight(), 1u) << "a refused acknowledgement changes nothing";
    EXPECT_EQ(s.on_ack({1, 0}), Violation::kNone);
    EXPECT_EQ(s.in_flight(), 0u);
  }
  // Blocks cut short, or with unknown flags.
  std::vector<uint8_t> block(64);
  std::size_t used = 0;
  ASSERT_TRUE(write_fragment(block, used, {7, true, true, bytes}));
  for (std::size_t cut = 1; cut < used; ++cut)
    EXPECT_EQ(read_fragments({block.data(), cut}, [](const Fragment&) { return Violation::kNone; }), Violation::kMalformed) << cut;
  block[2] |= 4;
  EXPECT_EQ(read_fragments({block.data(), used}, [](const Fragment&) { return Violation::kNone; }), Violation::kMalformed);
  MessageAck a;
  EXPECT_FALSE(read_ack(std::span<const uint8_t>(block.data(), kMessageAckBytes - 1), a));
}

TEST(MessageChannel, SequencesWrapWithoutLosingOrder) {
  // 70,000 single-fragment messages: the 16-bit sequence wraps once.
  ReliableSender s;
  ReliableReceiver r;
  std::vector<uint8_t> d(1200), m;
  uint32_t sent = 0, got = 0;
  for (int t = 0; t < 20000 && got < 70000; ++t) {
    while (sent < 70000 && s.send(message_of(4, sent)) == SendError::kNone) ++sent;
    const std::size_t n = s.write(Nanos(t) * kMillisecond, kSecond, d);
    ASSERT_EQ(read_fragments({d.data(), n}, [&](const Fragment& f) { return r.on_fragment(f); }), Violation::kNone);
    ASSERT_EQ(s.on_ack(r.ack()), Violation::kNone);
    while (r.receive(m)) ASSERT_EQ(m, message_of(4, got++));
  }
  EXPECT_EQ(got, 70000u);
}

}  // namespace
}  // namespace foothold::proto

namespace foothold::proto {
namespace {

// MessageLimits::copies: a new fragment goes `copies` times, `copy_gap` apart, whatever the
// retransmission time; an acknowledgement stops the copies; copies are no retransmissions and give
// no round-trip sample; after them the retransmission time rules as before.
TEST(MessageChannel, CopiesGoACopyGapApartUntilAcknowledgedAndGiveNoRttSample) {
  MessageLimits limits;
  limits.copies = 3;
  limits.copy_gap = 16 * kMillisecond;
  const Nanos rto = 500 * kMillisecond;
  std::vector<uint8_t> out(1200);
  // Counts the fragments of sequence `seq` in what write() wrote.
  const auto count = [&](std::size_t n, uint16_t seq) {
    int k = 0;
    EXPECT_EQ(read_fragments({out.data(), n}, [&](const Fragment& f) {
                k += f.sequence == seq;
                return Violation::kNone;
              }),
              Violation::kNone);
    return k;
  };
  {
    ReliableSender s(limits);
    ASSERT_EQ(s.send(message_of(40, 1)), SendError::kNone);
    EXPECT_EQ(count(s.write(0, rto, out), 0), 1);
    EXPECT_EQ(s.write(10 * kMillisecond, rto, out), 0u) << "sooner than the copy gap";
    EXPECT_EQ(count(s.write(16 * kMillisecond, rto, out), 0), 1);
    EXPECT_EQ(count(s.write(32 * kMillisecond, rto, out), 0), 1);
    EXPECT_EQ(s.write(48 * kMillisecond, rto, out), 0u) << "three copies in all, then the retransmission time";
    EXPECT_EQ(s.copies_sent(), 2u);
    EXPECT_EQ(s.retransmissions(), 0u);
    EXPECT_EQ(count(s.write(32 * kMillisecond + rto, rto, out), 0), 1) << "a retransmission time after the last copy";
    EXPECT_EQ(s.retransmissions(), 1u);
  }
  {
    ReliableSender s(limits);
    RttEstimator rtt;
    ASSERT_EQ(s.send(message_of(40, 2)), SendError::kNone);
    EXPECT_EQ(count(s.write(0, rto, out), 0), 1);
    EXPECT_EQ(count(s.write(16 * kMillisecond, rto, out), 0), 1);
    EXPECT_EQ(s.on_ack({1, 0}, 20 * kMillisecond, &rtt), Violation::kNone);
    EXPECT_EQ(s.write(32 * kMillisecond, rto, out), 0u) << "acknowledged: no more copies";
    EXPECT_EQ(rtt.samples(), 0u) << "which copy was acknowledged is unknown (Karn's rule)";
    EXPECT_EQ(s.queued_bytes(), 0u);
  }
  {
    MessageLimits one = limits;
    one.copies = 1;
    ReliableSender s(one);
    ASSERT_EQ(s.send(message_of(40, 3)), SendError::kNone);
    EXPECT_EQ(count(s.write(0, rto, out), 0), 1);
    EXPECT_EQ(s.write(16 * kMillisecond, rto, out), 0u) << "one copy: the retransmission time alone";
    EXPECT_EQ(s.copies_sent(), 0u);
  }
}

}  // namespace
}  // namespace foothold::proto
