// A steady-state step allocates nothing: the server steps thousands of characters per tick.
// This binary replaces the global allocator with a counting one (support/counting_allocator.cpp), so
// it is its own executable.

#include <cstdlib>
#include <vector>

#include <gtest/gtest.h>

#include "shared/character_contacts.h"
#include "shared/predictor.h"
#include "shared/step.h"
#include "support/counting_allocator.h"
#include "support/scenario_support.h"

namespace foothold::test {
namespace {

// UNIX time at the start of the server's clock in these runs (any fixed time).
constexpr uint64_t kUnixNow = 1'800'000'000;

TEST(NoAllocation, SteadyStateStepMakesNoHeapAllocation) {
  const World& world = arena_world();
  const DerivedSettings s = derive(MoveSettings{});
  StepScratch scratch;
  CharacterState state = spawn_state({arena::kStairX0 - 3, 2, (arena::kStairZ0 + arena::kStairZ1) / 2});
  // Warm up: land, and let the scratch reach its working size.
  for (uint32_t t = 1; t <= 60; ++t) state = step(state, encode_move(0, 0, 0, t), world, s, scratch).state;
  const long before = heap_allocations();
  // Up the stairs, along the ledge, off it, jumping: every code path of the step.
  for (uint32_t t = 61; t <= 400; ++t) {
    const uint8_t buttons = (t % 50 == 0) ? kButtonJump : 0;
    state = step(state, encode_move(1, (t % 100 < 50) ? 0.2 : -0.2, buttons, t), world, s, scratch).state;
  }
  EXPECT_EQ(heap_allocations() - before, 0);
  EXPECT_GT(to_position(state.position).x, arena::kStairX0) << "the walk really moved";
}

// A client's predictor sized by reserve() for the wire's most (48 others, 8 of them in full)
// allocates nothing when neighbours first come near, nor when snapshots stop and it steps them on
// for its whole history. Sized only by what it had needed, it grew the first time either happened:
// once mid-game in CI (ClientApiAllocation), where the C API promises no allocation once connected.
TEST(NoAllocation, APredictorSizedByReserveAllocatesNothingWhenNeighboursComeNearOrSnapshotsStop) {
  const World& world = arena_world();
  const DerivedSettings s = derive(MoveSettings{});
  constexpr std::size_t kOthers = 48, kInFull = 8;
  Predictor p(world, s);
  p.reserve(kOthers, kInFull);
  // This character on open floor with 48 others on a 1 m grid around it; the 8 beside it in full.
  const Vec3 centre{20, 0, 14};
  std::vector<OtherCharacter> others;
  std::vector<PredictedNeighbour> near;
  for (int gz = -3; gz <= 3; ++gz)
    for (int gx = -3; gx <= 3; ++gx) {
      if (gx == 0 && gz == 0) continue;
      const uint32_t id = uint32_t(others.size()) + 2;
      const CharacterState o = spawn_state({centre.x + gx, centre.y, centre.z + gz});
      others.push_back(as_other(id, o));
      if (std::abs(gx) <= 1 && std::abs(gz) <= 1) near.push_back({id, o, encode_move(0.5, 0, 0, 1)});
    }
  ASSERT_EQ(others.size(), kOthers);
  ASSERT_EQ(near.size(), kInFull);
  uint32_t tick = 1;
  p.reset(tick, spawn_state(centre));
  // Warm up among them, all carried (none in full): the step's scratch reaches a crowd's size.
  p.set_others(others, 1, tick);
  for (uint32_t i = 0; i < 2 * Predictor::kHistory; ++i) p.predict(encode_move(1, 0, 0, ++tick));
  const long before = heap_allocations();
  // Then the nearest in full, for the first time; then no snapshot for longer than the history holds.
  p.set_others(others, 1, tick, {}, near);
  for (uint32_t i = 0; i < Predictor::kHistory + 20; ++i) p.predict(encode_move(1, 0, 0, ++tick));
  const long allocated = heap_allocations() - before;
  EXPECT_EQ(allocated, 0);
  EXPECT_EQ(p.latest_tick(), tick) << "it predicted every tick";
}

TEST(NoAllocation, AStepWithAMovementProfileCrouchingOrFrozenMakesNoHeapAllocation) {
  // Settings with profiles hold vectors; a step picks its profile's settings by reference and the
  // crouched copy it makes of them holds none.
  const World& world = arena_world();
  MoveSettings ms;
  ms.profiles.push_back({.name = "fast", .walk_speed = 9});
  ms.profiles.push_back({.name = "slow", .walk_speed = 2});
  const DerivedSettings s = derive(ms);
  StepScratch scratch;
  CharacterState state = spawn_state({arena::kStairX0 - 3, 2, (arena::kStairZ0 + arena::kStairZ1) / 2});
  state.profile = 1;
  for (uint32_t t = 1; t <= 60; ++t) state = step(state, encode_move(0, 0, kButtonCrouch, t), world, s, scratch).state;
  const long before = heap_allocations();
  for (uint32_t t = 61; t <= 400; ++t) {
    const uint8_t buttons = uint8_t((t % 50 == 0 ? kButtonJump : 0) | (t % 80 < 40 ? kButtonCrouch : 0));
    state.profile = uint8_t(t % 4);  // the base, both profiles, and an index with none
    state.frozen = t % 100 >= 90;
    state = step(state, encode_move(1, (t % 100 < 50) ? 0.2 : -0.2, buttons, t), world, s, scratch).state;
  }
  EXPECT_EQ(heap_allocations() - before, 0);
  EXPECT_GT(to_position(state.position).x, arena::kStairX0 - 2.5) << "the walk really moved";
}

}  // namespace
}  // namespace foothold::test

#include "proto/codec.h"
#include "server/server_core.h"

namespace foothold::test {
namespace {

struct NullSink final : proto::DatagramSink {
  uint64_t sent = 0;
  void send(const proto::Endpoint&, std::span<const uint8_t>) override { ++sent; }
};

TEST(NoAllocation, SpoofedConnectRequestFloodAllocatesNoPerClientState) {
  // A flood of connect requests from spoofed addresses, with a valid token (sniffed and replayed)
  // and with a forged one: the server allocates nothing for either.
  NullSink sink;
  server::CoreConfig cfg;
  cfg.handshake_rate = 1000;
  cfg.key = proto::development_key();
  const proto::Endpoint server_ep(asio::ip::make_address("10.0.0.1"), 7777);
  cfg.addresses.push_back(proto::to_token_address(server_ep));
  cfg.unix_clock = server::virtual_unix_clock(kUnixNow, proto::kSecond);  // `now` starts at 1 s
  proto::Nanos now = proto::kSecond;
  server::ServerCore core(cfg, arena_world(), MoveSettings{}, sink, now);
  // 2000 valid tokens (sniffed), each replayed 5 times, and a forged one: made before counting.
  const auto address = proto::to_token_address(server_ep);
  proto::PacketWriter w;
  proto::DatagramBuffer buf;
  std::vector<std::vector<uint8_t>> valid;
  proto::ConnectToken token;
  std::string error;
  for (uint64_t i = 0; i < 2000; ++i) {
    ASSERT_TRUE(proto::mint_token(cfg.key, i, std::span(&address, 1), kUnixNow, 60, token, error)) << error;
    const auto d = proto::frame_clear(w.connect_request(token.sealed, 7), buf);
    valid.emplace_back(d.begin(), d.end());
  }
  token.sealed[100] ^= 1;
  const auto forged_view = proto::frame_clear(w.connect_request(token.sealed, 7), buf);
  const std::vector<uint8_t> forged(forged_view.begin(), forged_view.end());
  // Warm up (the first replies size the writer's buffer).
  core.on_datagram(now, proto::Endpoint(asio::ip::make_address_v4(0x0a000001u), 1), valid[0]);
  const long before = heap_allocations();
  // Ten thousand of each in one second, each from another address.
  for (uint32_t i = 0; i < 10000; ++i) {
    now += proto::kSecond / 10000;
    core.on_datagram(now, proto::Endpoint(asio::ip::make_address_v4(0x0b000000u + i * 256), uint16_t(1000 + i % 50000)),
                     valid[i % valid.size()]);
    core.on_datagram(now, proto::Endpoint(asio::ip::make_address_v4(0x0c000000u + i * 256), uint16_t(1000 + i % 50000)), forged);
  }
  EXPECT_EQ(heap_allocations() - before, 0);
  EXPECT_EQ(core.client_count(), 0u);
  EXPECT_EQ(core.counters().get(server::Counter::kDropBadToken), 10000u) << "every forgery refused";
  // Replies were capped by the handshake rate limit; the rest were counted.
  EXPECT_LE(core.counters().get(server::Counter::kChallengesSent), 1000u + 200u);
  EXPECT_GE(core.counters().get(server::Counter::kHandshakeRateLimited), 8000u);
}

}  // namespace
}  // namespace foothold::test
