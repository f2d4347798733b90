// Every press counts (client/input_latch.h): a game's frame loop at 30, 60, 144 or 240 Hz sets its
// input once a frame while the client runs 60 Hz ticks; a jump pressed for one frame jumps once,
// whatever the frame rate and wherever the frame falls between ticks; one held for a second jumps
// once; a press and release inside one 30 Hz frame jumps once; a tap again while held jumps again.

#include <vector>

#include <gtest/gtest.h>

#include "client/input_latch.h"
#include "shared/arena.h"
#include "shared/predictor.h"
#include "support/scenario_support.h"

namespace foothold::test {
namespace {

constexpr proto::Nanos kS = proto::kSecond;

// A character standing on the open floor, ticking at 60 Hz from time 0, its input from a latch the
// frame loop sets. Jumps are counted from the step's diagnostics.
struct FrameLoop {
  DerivedSettings s = derive(MoveSettings{});
  client::InputLatch latch;
  CharacterState state = spawn_state(arena::kOpenFloor + Vec3{0, rest_height(), 0});
  StepScratch scratch;
  uint32_t tick = 0;
  int jumps = 0;
  // Runs the ticks due by `now`.
  void run_until(proto::Nanos now) {
    while (proto::Nanos(tick + 1) * (kS / 60) <= now) {
      ++tick;
      const InputCmd in = latch.next(tick, state);
      const StepResult r = step(state, in, arena_world(), s, scratch);
      jumps += r.diagnostics.jumped;
      state = r.state;
    }
  }
  // Frames at `rate` from `from` for `frames` frames: `buttons(f)` held in frame f.
  template <typename Buttons>
  proto::Nanos frames(int rate, proto::Nanos from, int count, Buttons buttons) {
    proto::Nanos now = from;
    for (int f = 0; f < count; ++f) {
      latch.set(0, 0, buttons(f));
      now = from + proto::Nanos(f + 1) * (kS / rate);
      run_until(now);
    }
    return now;
  }
};

TEST(InputLatch, AOneFramePressJumpsOnceAtEveryFrameRateAndPhase) {
  for (const int rate : {30, 60, 144, 240}) {
    // The press frame at every offset against the tick grid (a few offsets per tick).
    for (const proto::Nanos phase : {proto::Nanos(0), kS / 600, kS / 240, kS / 130, kS / 70}) {
      FrameLoop loop;
      proto::Nanos now = loop.frames(rate, phase, rate, [](int) { return uint8_t(0); });  // settle a second
      ASSERT_EQ(loop.state.ground, GroundKind::kWalkable);
      now = loop.frames(rate, now, rate, [](int f) { return uint8_t(f == 3 ? kButtonJump : 0); });
      EXPECT_EQ(loop.jumps, 1) << rate << " Hz, phase " << phase;
    }
  }
}

TEST(InputLatch, AHeldPressJumpsOnceAndATapWhileHeldJumpsAgain) {
  FrameLoop loop;
  proto::Nanos now = loop.frames(144, 0, 144, [](int) { return uint8_t(0); });
  now = loop.frames(144, now, 144, [](int) { return uint8_t(kButtonJump); });  // held a second
  EXPECT_EQ(loop.jumps, 1);
  // Landed, still held; released and pressed again within one 30 Hz frame's worth of ticks: the
  // ticks see it up for one tick, then down: a fresh press.
  loop.latch.set(0, 0, 0);
  loop.latch.set(0, 0, kButtonJump);
  now = loop.frames(30, now, 30, [](int) { return uint8_t(kButtonJump); });
  EXPECT_EQ(loop.jumps, 2);
}

TEST(InputLatch, APressAndReleaseInsideOneFrameStillJumps) {
  FrameLoop loop;
  proto::Nanos now = loop.frames(30, 0, 30, [](int) { return uint8_t(0); });
  // Within one frame (no tick between the two calls): down, then up.
  loop.latch.set(0, 0, kButtonJump);
  loop.latch.set(0, 0, 0);
  now = loop.frames(30, now, 30, [](int) { return uint8_t(0); });
  EXPECT_EQ(loop.jumps, 1);
}

TEST(InputLatch, TheStickTakesTheLatestAndManyChangesCollapseInPairs) {
  client::InputLatch latch;
  latch.set(1, 0, 0);
  latch.set(0, -1, 0);
  const InputCmd in = latch.next(1, {});
  EXPECT_EQ(in.move_x, 0);
  EXPECT_EQ(in.move_z, -127);
  // Seven changes between two ticks (ending held): at most three wait, the parity kept.
  for (int i = 0; i < 7; ++i) latch.set(0, 0, i % 2 == 0 ? kButtonCrouch : 0);
  std::vector<bool> down;
  for (uint32_t t = 2; t < 8; ++t) down.push_back((latch.next(t, {}).buttons & kButtonCrouch) != 0);
  EXPECT_EQ(down, (std::vector<bool>{true, false, true, true, true, true}));
}

TEST(InputLatch, AfterAResetWhatIsHeldIsNoFreshPress) {
  client::InputLatch latch;
  latch.set(0, 0, kButtonJump);
  latch.reset();
  EXPECT_EQ(latch.next(1, {}).buttons, kButtonJump);
  latch.set(0, 0, 0);
  EXPECT_EQ(latch.next(2, {}).buttons, 0);
}

}  // namespace
}  // namespace foothold::test
