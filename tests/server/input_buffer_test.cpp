#include <array>
#include <span>

#include <gtest/gtest.h>

#include "server/input_buffer.h"

namespace foothold::server {
namespace {

InputCmd input(uint32_t tick, int8_t x) {
  InputCmd in;
  in.tick = tick;
  in.move_x = x;
  return in;
}

TEST(InputBuffer, ConsumesExactlyOneInputPerTickHoweverManyArrive) {
  InputBuffer b;
  // Ten copies of each of the next 20 ticks' inputs arrive at once.
  for (int copy = 0; copy < 10; ++copy)
    for (uint32_t t = 1; t <= 20; ++t) {
      const auto offer = b.offer(input(t, int8_t(t)), 1);
      EXPECT_EQ(offer, copy == 0 ? InputBuffer::Offer::kAccepted : InputBuffer::Offer::kDuplicate);
    }
  for (uint32_t t = 1; t <= 20; ++t) {
    const auto c = b.consume(t);
    EXPECT_FALSE(c.repeated);
    EXPECT_EQ(c.input.move_x, int8_t(t));
    EXPECT_EQ(c.input.tick, t);
  }
  EXPECT_EQ(b.newest_received(), 20u);
}

// What snapshots tell a character's neighbours of its next ticks: the inputs already here for the
// ticks right after the last one consumed, up to the first missing.
TEST(InputBuffer, TheInputsWaitingAfterATickRunUpToTheFirstMissingOne) {
  InputBuffer b;
  for (const uint32_t t : {1u, 2u, 3u, 4u, 6u}) b.offer(input(t, int8_t(10 * t)), 1);
  b.consume(1);
  std::array<InputCmd, 8> out{};
  ASSERT_EQ(b.waiting_after(1, out), 3u) << "ticks 2, 3 and 4; tick 5 is missing";
  for (uint32_t k = 0; k < 3; ++k) EXPECT_EQ(out[k], input(2 + k, int8_t(10 * (2 + k))));
  EXPECT_EQ(b.waiting_after(1, std::span(out).first(2)), 2u) << "no more than asked for";
  b.consume(2);
  b.consume(3);
  b.consume(4);
  EXPECT_EQ(b.waiting_after(4, out), 0u) << "tick 5 never came";
  b.consume(5);  // repeated
  ASSERT_EQ(b.waiting_after(5, out), 1u);
  EXPECT_EQ(out[0].tick, 6u);
  b.consume(6);
  EXPECT_EQ(b.waiting_after(5, out), 0u) << "a consumed input is no longer waiting";
}

TEST(InputBuffer, MissingInputRepeatsTheLastOneAndIsMarked) {
  InputBuffer b;
  b.offer(input(1, 50), 1);
  EXPECT_FALSE(b.consume(1).repeated);
  const auto c = b.consume(2);
  EXPECT_TRUE(c.repeated);
  EXPECT_EQ(c.input.move_x, 50);
  EXPECT_EQ(c.input.tick, 2u);
  // Its own input arriving afterwards is late; a copy of a used one is a duplicate.
  EXPECT_EQ(b.offer(input(2, 9), 3), InputBuffer::Offer::kLate);
  EXPECT_EQ(b.newest_received(), 2u) << "a late input still tells the server how late inputs come";
  EXPECT_EQ(b.offer(input(3 + InputBuffer::kWindow, 9), 3), InputBuffer::Offer::kTooFarAhead);
  EXPECT_EQ(b.newest_received(), 2u) << "one too far ahead does not count";
  EXPECT_EQ(b.offer(input(1, 50), 3), InputBuffer::Offer::kDuplicate);
  EXPECT_TRUE(b.consume(3).repeated);
}

TEST(InputBuffer, InputsTooFarInThePastOrFutureAreRefused) {
  InputBuffer b;
  EXPECT_EQ(b.offer(input(100 + InputBuffer::kWindow, 1), 100), InputBuffer::Offer::kTooFarAhead);
  EXPECT_EQ(b.offer(input(100 + InputBuffer::kWindow - 1, 1), 100), InputBuffer::Offer::kAccepted);
  EXPECT_EQ(b.offer(input(99, 1), 100), InputBuffer::Offer::kLate);
  // Tick numbers that wrap around are far in the past or the future, never accepted.
  EXPECT_NE(b.offer(input(0xffffffffu, 1), 100), InputBuffer::Offer::kAccepted);
  EXPECT_NE(b.offer(input(0x80000000u, 1), 100), InputBuffer::Offer::kAccepted);
  // Around the wrap itself, the window still works.
  InputBuffer w;
  EXPECT_EQ(w.offer(input(2, 1), 0xfffffffeu), InputBuffer::Offer::kAccepted);
}

}  // namespace
}  // namespace foothold::server
