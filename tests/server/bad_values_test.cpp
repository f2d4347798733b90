// Bad values inside valid packets: clamped or refused, never trusted. Each case is a datagram that
// passes the verifier but says something the server must not believe.

#include <array>
#include <cstring>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

#include "proto/bits.h"
#include "proto/compact.h"
#include "support/raw_client.h"
#include "support/scenario_support.h"
#include "support/sim_harness.h"

namespace foothold::test {
namespace {

using server::Counter;

// Records what the server consumed for each character.
struct Consumed final : server::TickObserver {
  std::vector<server::CharacterTick> ticks;
  void on_tick(const server::TickRecord& r) override { ticks.insert(ticks.end(), r.characters.begin(), r.characters.end()); }
};

// A client that joins by hand and then sends whatever a test wants, sealed in its session (the
// values are what is bad here, not the seal).
struct HandClient {
  RawClient raw;
  proto::PacketWriter& w;
  uint32_t id = 0;

  explicit HandClient(SimHarness& harness)
      : raw(harness, proto::Endpoint(asio::ip::make_address("10.3.0.1"), 6000), harness.mint(4242)), w(raw.writer) {
    if (!raw.join()) throw std::runtime_error("the hand client could not join");
    id = h().server().character_at(raw.self);
  }
  SimHarness& h() { return raw.h; }
  void send(std::span<const uint8_t> packet) { raw.send_session(packet); }
  const proto::fb::Packet* last(proto::fb::Body type) {
    // Newest first; the packet lives in the client's buffer until the next one is opened.
    const auto all = raw.received;
    const proto::fb::Packet* found = nullptr;
    for (auto it = all.rbegin(); it != all.rend() && !found; ++it) {
      raw.received.assign(1, *it);
      if (const proto::fb::Packet* p = raw.session_packet(); p && p->body_type() == type) found = p;
    }
    raw.received = all;
    return found;
  }
  void inputs(const std::vector<InputCmd>& in, uint32_t ack = 0) { raw.send_inputs(in, ack); }
};

InputCmd raw_input(uint32_t tick, int8_t x, int8_t z, uint8_t buttons) {
  InputCmd in;
  in.tick = tick;
  in.move_x = x;
  in.move_z = z;
  in.buttons = buttons;
  return in;
}

TEST(BadValues, MoveAxesOutOfRangeAndUnknownButtonsAreClamped) {
  SimHarness h(arena_world(), {});
  Consumed consumed;
  h.server().set_observer(&consumed);
  HandClient c(h);
  const uint32_t t = h.server().current_tick() + 2;
  c.inputs({raw_input(t, -128, -128, 0xfe)});
  h.run_for(100 * proto::kMillisecond);
  bool seen = false;
  for (const auto& ct : consumed.ticks)
    if (ct.id == c.id && ct.input.tick == t) {
      seen = true;
      EXPECT_FALSE(ct.repeated);
      EXPECT_EQ(ct.input.move_x, -127);
      EXPECT_EQ(ct.input.move_z, -127);
      EXPECT_EQ(ct.input.buttons, kButtonCrouch) << "only known buttons survive (0xfe holds crouch, not jump)";
    }
  EXPECT_TRUE(seen);
}

TEST(BadValues, TicksFarAheadOrWrappedAreRefusedAndCounted) {
  SimHarness h(arena_world(), {});
  HandClient c(h);
  const auto before = h.server().counters();
  const uint32_t now = h.server().current_tick();
  // An inputs message names its ticks by their low 16 bits, nearest the server's tick: far ahead,
  // and so far ahead that it reads as the past, and late.
  c.inputs({raw_input(now + 1000, 127, 0, 0)});
  c.inputs({raw_input(now + 40000, 127, 0, 0)});
  c.inputs({raw_input(now - 5, 127, 0, 0)});
  const auto& after = h.server().counters();
  EXPECT_EQ(after.get(Counter::kInputsAccepted), before.get(Counter::kInputsAccepted));
  EXPECT_GE(after.get(Counter::kInputsTooFarAhead) - before.get(Counter::kInputsTooFarAhead), 1u);
  EXPECT_GE(after.get(Counter::kInputsLate) - before.get(Counter::kInputsLate), 2u);
  // Nothing moved: the character stands where it fell.
  h.run_for(500 * proto::kMillisecond);
  const CharacterState* s = h.server().character(c.id);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->velocity.x, 0);
}

TEST(BadValues, AckFromTheFutureIsNotBelieved) {
  SimHarness h(arena_world(), {});
  HandClient c(h);
  const auto before = h.server().counters().get(Counter::kDropBadValue);
  c.inputs({raw_input(h.server().current_tick() + 2, 0, 0, 0)}, h.server().current_tick() + 500);
  EXPECT_EQ(h.server().counters().get(Counter::kDropBadValue), before + 1);
  // The snapshots that follow use no delta base the client never had.
  h.run_for(100 * proto::kMillisecond);
  const auto snap = c.raw.last_snapshot();
  ASSERT_TRUE(snap.has_value());
  EXPECT_EQ(snap->base_tick, 0u);
}

TEST(BadValues, MoreInputsThanAllowedDropTheMessage) {
  SimHarness h(arena_world(), {});
  HandClient c(h);
  // The writer caps at 32; claim 40 by hand: a count beyond the limit refuses the whole message.
  std::array<uint8_t, 256> bytes{};
  proto::BitWriter w(bytes);
  w.put(uint32_t(proto::CompactKind::kInputs), 2);
  w.put_bool(false);  // want_state
  w.put_bool(false);  // no ack
  w.put((h.server().current_tick() + 40) & 0xffff, 16);
  w.put_var(40, 3);
  for (int i = 0; i < 40; ++i) {
    if (i > 0) w.put_bool(false);
    w.put(10, 8);
    w.put(10, 8);
    w.put(0, 2);
  }
  ASSERT_TRUE(w.ok());
  const auto before = h.server().counters();
  c.raw.send_compact(w.finish());
  EXPECT_EQ(h.server().counters().get(Counter::kDropMalformed), before.get(Counter::kDropMalformed) + 1);
  EXPECT_EQ(h.server().counters().get(Counter::kInputsAccepted), before.get(Counter::kInputsAccepted));
}

TEST(BadValues, ATruncatedOrPaddedInputsMessageIsMalformed) {
  SimHarness h(arena_world(), {});
  HandClient c(h);
  // Ticks far enough ahead that the three sends (10 ms each) do not make them late.
  std::vector<InputCmd> two = {raw_input(h.server().current_tick() + 8, 1, 1, 0), raw_input(h.server().current_tick() + 9, 1, 2, 0)};
  std::array<uint8_t, 64> buffer{};
  const auto bytes = proto::write_inputs({0, two.back().tick, false}, two, buffer);
  const std::vector<uint8_t> good(bytes.begin(), bytes.end());
  const auto before = h.server().counters();
  c.raw.send_compact(std::span<const uint8_t>(good.data(), good.size() - 1));  // cut short
  std::vector<uint8_t> padded = good;
  padded.push_back(0);  // a whole byte more than the writer made
  c.raw.send_compact(padded);
  EXPECT_EQ(h.server().counters().get(Counter::kDropMalformed), before.get(Counter::kDropMalformed) + 2);
  EXPECT_EQ(h.server().counters().get(Counter::kInputsAccepted), before.get(Counter::kInputsAccepted));
  EXPECT_EQ(h.server().client_count(), 1u) << "a bad message never disconnects anyone";
  c.raw.send_compact(good);
  EXPECT_EQ(h.server().counters().get(Counter::kInputsAccepted), before.get(Counter::kInputsAccepted) + 2) << "the intact one is taken";
}

}  // namespace
}  // namespace foothold::test
