#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "shared/character_state.h"
#include "shared/det_math.h"
#include "shared/fixed_point.h"
#include "shared/hash.h"
#include "shared/input.h"
#include "shared/formats/trace.h"

namespace foothold {
namespace {

TEST(FixedPoint, QuantumAndRangeAreAsDocumented) {
  EXPECT_LE(kPositionQuantum, 1.0 / 1024);
  EXPECT_GE(kWorldLimit, 8000.0);
  // The limit fits the int32 raw format with room to spare.
  EXPECT_LT(kWorldLimit * kPositionScale, 2147483647.0);
  EXPECT_EQ(quantize_position({kWorldLimit * 4, -kWorldLimit * 4, 0}).x, int32_t(kWorldLimit * kPositionScale));
}

TEST(FixedPoint, FormatsExactDecimalsThatParseBack) {
  EXPECT_EQ(format_fixed(1, 10), "0.0009765625");
  EXPECT_EQ(format_fixed(-1536, 10), "-1.5");
  EXPECT_EQ(format_fixed(3 << 10, 10), "3");
  EXPECT_EQ(format_fixed(1, 16), "0.0000152587890625");
  std::mt19937 gen(5);
  for (int i = 0; i < 20000; ++i) {
    const int32_t raw = int32_t(gen());
    for (int bits : {kPositionFracBits, kVelocityFracBits}) {
      const auto back = parse_fixed(format_fixed(raw, bits), bits);
      ASSERT_TRUE(back) << raw;
      ASSERT_EQ(*back, raw);
    }
  }
}

TEST(FixedPoint, RefusesValuesOffTheGrid) {
  EXPECT_FALSE(parse_fixed("0.001", 10));
  EXPECT_FALSE(parse_fixed("1e3", 10));
  EXPECT_FALSE(parse_fixed("", 10));
  EXPECT_FALSE(parse_fixed("-", 10));
  EXPECT_FALSE(parse_fixed("99999999", 10)) << "beyond int32";
  EXPECT_EQ(parse_fixed("2.50000", 10), 2560);
}

TEST(FixedPoint, QuantizeRoundsToNearestAndMapsNanToZero) {
  EXPECT_EQ(quantize(0.4 / 1024, kPositionScale, kWorldLimit), 0);
  EXPECT_EQ(quantize(0.6 / 1024, kPositionScale, kWorldLimit), 1);
  EXPECT_EQ(quantize(-0.6 / 1024, kPositionScale, kWorldLimit), -1);
  EXPECT_EQ(quantize(std::nan(""), kPositionScale, kWorldLimit), 0);
}

uint64_t bits_of(double v) {
  uint64_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

// The simulation's own min, max, floor and rounding give libm's exact answers (here, the machine's
// libm is the reference: these functions are exact in every conforming libm) on the values where a
// hand-written one goes wrong: halves, the largest double below one half, the edges of exactness at
// 2^52 and 2^53, signed zeros, and a million random doubles of every magnitude.
// The C library's llround, the reference. Not on Windows: MinGW-w64's (as Windows' own C runtimes
// have been) rounds 0.49999999999999994 to 1, adding 0.5 before truncating, which rounds the sum up.
// There the reference is round-half-away-from-zero taken exactly: v - floor(v) is exact for every
// |v| < 2^52, and above that every double is an integer (floor is checked against libm above it).
long long reference_llround(double v) {
#if defined(_WIN32)
  const double whole = std::floor(std::fabs(v));
  const long long away = (std::fabs(v) - whole >= 0.5) ? (long long)whole + 1 : (long long)whole;
  return v < 0 ? -away : away;
#else
  return std::llround(v);
#endif
}

TEST(DetMath, MinMaxFloorAndRoundingAgreeWithLibmBitForBit) {
  const double half_below = std::nextafter(0.5, 0.0);
  std::vector<double> values = {0.0, -0.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, half_below, -half_below,
                                1.0 - std::numeric_limits<double>::epsilon() / 2, 0.3, -0.3, 1e-300, -1e-300,
                                4503599627370495.5, -4503599627370495.5, 4503599627370496.0, 4503599627370497.0,
                                9007199254740993.0, -9007199254740993.0, 1e18, -1e18};
  std::mt19937_64 gen(20);
  for (int i = 0; i < 1000000; ++i) {
    double v;
    const uint64_t raw = gen();
    std::memcpy(&v, &raw, sizeof v);
    if (!std::isfinite(v)) continue;
    values.push_back(v);
    values.push_back(std::ldexp(double(int64_t(gen() >> 12)) / 4096.0, int(gen() % 40) - 20));  // near integers and halves
  }
  for (double v : values) {
    ASSERT_EQ(bits_of(det_floor(v)), bits_of(std::floor(v))) << v;
    if (std::fabs(v) < 9.2e18) {
      ASSERT_EQ(det_llround(v), reference_llround(v)) << v;
    }
  }
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(det_floor(inf), inf);
  EXPECT_EQ(det_floor(-inf), -inf);
  EXPECT_TRUE(std::isnan(det_floor(nan)));
  // Min and max: every pair of a few awkward values, NaN included; equal values give the second.
  const std::vector<double> pairs = {0.0, -0.0, 1.0, -1.0, half_below, inf, -inf, nan, 1e-320};
  for (double a : pairs) {
    for (double b : pairs) {
      const double lo = det_min(a, b), hi = det_max(a, b);
      if (std::isnan(a) && std::isnan(b)) {
        EXPECT_TRUE(std::isnan(lo) && std::isnan(hi));
        continue;
      }
      EXPECT_EQ(lo, std::fmin(a, b)) << a << " " << b;
      EXPECT_EQ(hi, std::fmax(a, b)) << a << " " << b;
      if (a == b) {
        EXPECT_EQ(bits_of(lo), bits_of(b)) << a << " " << b;
        EXPECT_EQ(bits_of(hi), bits_of(b)) << a << " " << b;
      }
    }
  }
  EXPECT_TRUE(std::signbit(det_min(0.0, -0.0)));
  EXPECT_FALSE(std::signbit(det_max(-0.0, 0.0)));
}

TEST(Input, EncodesWishesAsTheIntegersAClientSends) {
  const InputCmd full = encode_move(1, 0, kButtonJump, 9);
  EXPECT_EQ(full.move_x, 127);
  EXPECT_EQ(full.move_z, 0);
  EXPECT_EQ(full.buttons, kButtonJump);
  EXPECT_EQ(full.tick, 9u);
  const InputCmd diag = encode_move(1, 1, 0, 0);  // normalised
  EXPECT_EQ(diag.move_x, 90);
  EXPECT_EQ(diag.move_z, 90);
  EXPECT_EQ(encode_move(std::nan(""), 0.5, 0xff, 0).move_x, 0);
  EXPECT_EQ(encode_move(0, 0, 0xff, 0).buttons, kKnownButtons);
  EXPECT_LE(length(wish_direction(diag)), 1.0);
  InputCmd extreme;
  extreme.move_x = -128;
  extreme.move_z = -128;
  EXPECT_LE(length(wish_direction(extreme)), 1.0 + 1e-15);
}

TEST(Trace, RowsRoundTripExactly) {
  TraceRow row;
  row.tick = 77;
  row.id = 3;
  row.state.position = {-12345, 1, 99999};
  row.state.velocity = {-65536 * 3 - 1, 7, 0};
  row.state.ground = GroundKind::kWalkable;
  row.state.floor_normal = {-8192, 14189, 0};
  row.state.air_ticks = 0;
  row.state.jump_buffer = 4;
  row.state.jump_held = true;
  row.state.crouched = true;
  row.state.platform = 3;
  row.state.platform_offset = {-1, 2048, 5};
  row.state.frozen = true;
  row.state.profile = 7;
  row.state.push = {65536 * 2 + 1, 0, -3};
  const std::string line = format_trace_row(row);
  EXPECT_EQ(line, "77,3,-12.0556640625,0.0009765625,97.6552734375,-3.0000152587890625,0.0001068115234375,0,1,walkable,"
                  "-0.5,0.86602783203125,0,0,4,1,1,3,-0.0009765625,2,0.0048828125,1,7,2.0000152587890625,-0.0000457763671875");
  std::string err;
  const auto back = parse_trace_row(line + ",extra,columns", err);
  ASSERT_TRUE(back) << err;
  EXPECT_EQ(*back, row);
  EXPECT_FALSE(parse_trace_row("1,2,3", err));
  EXPECT_FALSE(parse_trace_row("1,0,0,0,0,0,0,0,1,none", err)) << "grounded disagrees with ground";
  const auto short_row = parse_trace_row("1,0,0,0,0,0,0,0,0,none", err);
  ASSERT_TRUE(short_row) << "the normal columns are optional";
  EXPECT_EQ(short_row->state.floor_normal, FixedNormal{});
  EXPECT_EQ(short_row->state.air_ticks, 255) << "without the jump columns: a spawned character's jump state";
  EXPECT_EQ(short_row->state.jump_buffer, 255);
  EXPECT_FALSE(parse_trace_row("1,0,0,0,0,0,0,0,0,none,0,0,0,256,0,0", err)) << "air is a byte";
  EXPECT_FALSE(parse_trace_row("1,0,0,0,0,0,0,0,0,none,0,0,0,3,0,2", err)) << "held is 0 or 1";
  // A trace from before pushes (23 columns) reads as a character not pushed.
  const std::string unpushed_line = line.substr(0, line.rfind(",2.0000152587890625"));
  const auto unpushed = parse_trace_row(unpushed_line, err);
  ASSERT_TRUE(unpushed) << err;
  TraceRow no_push = row;
  no_push.state.push = {};
  EXPECT_EQ(*unpushed, no_push);
  EXPECT_FALSE(parse_trace_row(unpushed_line + ",0.00001,0", err)) << "not on the velocity grid";
  // A trace from before games (21 columns) reads as a character not frozen, on the base profile.
  const std::string old = unpushed_line.substr(0, unpushed_line.size() - 4);
  const auto old_row = parse_trace_row(old, err);
  ASSERT_TRUE(old_row) << err;
  TraceRow unfrozen = no_push;
  unfrozen.state.frozen = false;
  unfrozen.state.profile = 0;
  EXPECT_EQ(*old_row, unfrozen);
  EXPECT_FALSE(parse_trace_row(old + ",2,0", err)) << "frozen is 0 or 1";
  EXPECT_FALSE(parse_trace_row(old + ",0,256", err)) << "profile is a byte";
  EXPECT_FALSE(parse_trace_row(old + ",0,x", err));
  EXPECT_TRUE(is_trace_header("tick,id,x,y,z,vx,vy,vz,grounded,ground,more"));
  EXPECT_FALSE(is_trace_header("tick,id,x,y"));
}

TEST(CharacterState, HashCoversEveryField) {
  CharacterState a;
  const uint64_t base = a.hash();
  CharacterState b = a;
  b.position.z = 1;
  EXPECT_NE(b.hash(), base);
  b = a;
  b.velocity.y = -1;
  EXPECT_NE(b.hash(), base);
  b = a;
  b.ground = GroundKind::kPit;
  EXPECT_NE(b.hash(), base);
  b = a;
  b.frozen = true;
  EXPECT_NE(b.hash(), base);
  EXPECT_NE(b.digest(), a.digest());
  b = a;
  b.profile = 1;
  EXPECT_NE(b.hash(), base);
  CharacterState c = a;
  c.frozen = true;
  EXPECT_NE(b.hash(), c.hash()) << "frozen and profile 1 are different states";
  // A state no game touched hashes as before those fields existed (recordings keep their hashes):
  // FNV-1a of the fields as they were fed then.
  Hasher h;
  for (int i = 0; i < 6; ++i) h.add_i32(0);
  h.add_u8(0);
  for (int i = 0; i < 3; ++i) h.add_u32(0);
  h.add_u8(255);
  h.add_u8(255);
  h.add_u8(0);
  h.add_u8(0);
  h.add_u32(0);
  for (int i = 0; i < 3; ++i) h.add_i32(0);
  EXPECT_EQ(base, h.value());
}

}  // namespace
}  // namespace foothold
