// The compact messages (proto/compact.h, WIRE_FORMAT.md "Compact messages"): every field round-trips
// at its limits, ticks wrap, the largest deltas survive, and whatever is malformed is refused whole.

#include <algorithm>
#include <array>
#include <cstdint>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <limits>
#include <optional>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "proto/bits.h"
#include "proto/compact.h"

namespace foothold::proto {
namespace {

constexpr int32_t kMin = -kRemoteCoordLimit, kMax = kRemoteCoordLimit - 1;

TEST(Bits, EveryCodeRoundTripsAtItsLimitsAndCostsWhatItSays) {
  const std::vector<uint32_t> unsigned_values = {0, 1, 7, 8, 63, 64, 255, 256, 65535, 65536, 0x7fffffffu, 0xffffffffu};
  const std::vector<int32_t> signed_values = {0,     1,      -1,     31,     -32,    32,        -33,      511,
                                              -512,  512,    32767,  -32768, 32768,  kMax,      kMin,     2 * kMax,
                                              -2 * kRemoteCoordLimit, std::numeric_limits<int32_t>::max(),
                                              std::numeric_limits<int32_t>::min()};
  std::array<uint8_t, 4096> buffer{};
  BitWriter w(buffer);
  std::vector<std::size_t> sizes;
  for (int group : {2, 3, 4, 7, 8, 32})
    for (uint32_t v : unsigned_values) {
      const std::size_t before = w.bits();
      w.put_var(v, group);
      sizes.push_back(w.bits() - before);
      EXPECT_EQ(w.bits() - before, std::size_t(var_bits(v, group))) << v << " in groups of " << group;
    }
  // finish() part way, on a field that leaves bits gathered: writing goes on as if it had not.
  ASSERT_NE(w.bits() % 32, 0u);
  EXPECT_EQ(w.finish().size(), w.bytes());
  for (int32_t v : signed_values) {
    const std::size_t before = w.bits();
    w.put_delta(v);
    EXPECT_EQ(w.bits() - before, std::size_t(delta_bits(v))) << v;
    EXPECT_EQ(unzigzag(zigzag(v)), v);
  }
  for (int width = 1; width <= 32; ++width) w.put(0xffffffffu, width);
  ASSERT_TRUE(w.ok());

  BitReader r(w.finish());
  for (int group : {2, 3, 4, 7, 8, 32})
    for (uint32_t v : unsigned_values) EXPECT_EQ(r.get_var(group), v) << "groups of " << group;
  for (int32_t v : signed_values) EXPECT_EQ(r.get_delta(), v);
  for (int width = 1; width <= 32; ++width) EXPECT_EQ(r.get(width), width == 32 ? 0xffffffffu : (1u << width) - 1);
  EXPECT_TRUE(r.finished_cleanly());
  EXPECT_EQ(zigzag(0), 0u);
  EXPECT_EQ(zigzag(-1), 1u);
  EXPECT_EQ(zigzag(1), 2u);
}

TEST(Bits, AReaderFailsPastTheEndOnLongNumbersAndOnTrailingBits) {
  const std::array<uint8_t, 2> two{0xff, 0x01};
  BitReader r(two);
  EXPECT_EQ(r.get(9), 0x1ffu);
  EXPECT_TRUE(r.finished_cleanly());
  EXPECT_EQ(r.get(8), 0u);
  EXPECT_FALSE(r.ok()) << "past the end";
  // Nine groups of 4 bits, every one continued: 36 bits of value.
  std::array<uint8_t, 8> longer{};
  longer.fill(0xff);
  BitReader l(longer);
  l.get_var(4);
  EXPECT_FALSE(l.ok()) << "a number longer than 32 bits";
  // Set bits in the padding, or a whole byte more than was read.
  const std::array<uint8_t, 1> padded{0x03};
  BitReader p(padded);
  p.get(1);
  EXPECT_FALSE(p.finished_cleanly());
  const std::array<uint8_t, 2> extra{0x01, 0x00};
  BitReader e(extra);
  e.get(1);
  EXPECT_FALSE(e.finished_cleanly());
  // A writer never writes past its buffer.
  std::array<uint8_t, 1> small{};
  BitWriter w(small);
  w.put(0xff, 8);
  EXPECT_TRUE(w.ok());
  w.put(1, 1);
  EXPECT_FALSE(w.ok());
  EXPECT_EQ(w.bytes(), 1u);
  EXPECT_TRUE(w.finish().empty()) << "a writer that overflowed gives no message";
}

TEST(Ticks, WidenAcrossWrapAround) {
  EXPECT_EQ(widen_tick(0x0005, 0xfffffff0u), 0x00000005u) << "just past the wrap";
  EXPECT_EQ(widen_tick(0xfff0, 0x00000005u), 0xfffffff0u) << "just before it";
  EXPECT_EQ(widen_tick(0x1234, 0x00051234u), 0x00051234u);
  EXPECT_EQ(widen_tick(uint16_t(0x00051234u + 32767), 0x00051234u), 0x00051234u + 32767);
  EXPECT_EQ(widen_tick(uint16_t(0x00051234u - 32768), 0x00051234u), 0x00051234u - 32768);
}

CharacterState extreme_state(uint16_t platform) {
  CharacterState s;
  s.position = {std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max(), -1};
  s.velocity = {-65536 * 50, 0, 65536 * 50};
  s.ground = GroundKind::kPit;
  s.floor_normal = {-16384, 16384, -1};
  s.air_ticks = 255;
  s.jump_buffer = 0;
  s.jump_held = true;
  s.crouched = true;
  s.frozen = true;
  s.profile = kMaxProfiles;
  s.push = {-65536 * 200, 0, 65536 * 200};
  s.platform = platform;
  if (platform) s.platform_offset = {std::numeric_limits<int32_t>::min(), 7, std::numeric_limits<int32_t>::max()};
  return s;
}

RemoteState remote(uint32_t id, int32_t x, int32_t y, int32_t z, uint8_t ground = 1, bool crouched = false,
                   uint16_t platform = 0) {
  return {id, x, y, z, ground, crouched, platform};
}

struct Written {
  std::vector<uint8_t> bytes;
  PoseView view;  // what the writer says the client will hold, less the client ids
};

// A view less its client ids, to compare with what the writer says.
PoseView poses(const RemoteView& v) {
  PoseView out;
  for (const RemoteState& r : v) out.push_back(pose_of(r));
  return out;
}

// Writes a snapshot: `changes` maps base indices to new states (nullopt: removal).
Written write(const SnapshotHeader& h, const RemoteView& base, uint32_t interval,
              const std::vector<std::pair<std::size_t, std::optional<RemoteState>>>& changes,
              const std::vector<RemoteState>& additions) {
  SnapshotWriter w;
  const PoseView base_poses = poses(base);
  w.begin(h, base_poses, interval);
  for (const auto& [i, now] : changes) w.change(i, now ? &*now : nullptr);
  for (const auto& a : additions) w.add(a);
  std::array<uint8_t, 4096> buffer{};
  Written out;
  const auto bytes = w.finish(buffer, out.view);
  out.bytes.assign(bytes.begin(), bytes.end());
  return out;
}

TEST(CompactSnapshot, HeaderFieldsRoundTripAtTheirLimitsAcrossTickWrapAround) {
  for (const bool full : {false, true})
    for (const uint16_t platform : {uint16_t(0), uint16_t(65535)})
      for (const int16_t lead : {int16_t(-32768), int16_t(0), int16_t(3), int16_t(32767)}) {
        SnapshotHeader h;
        h.tick = 0x00000003;  // the reference is before the wrap
        h.repeated_mask = 0xffffffffu;
        h.interaction_mask = 0x80000001u;
        h.server_mask = 0x40000002u;
        h.received_through = h.tick + (lead > 0 ? uint32_t(lead) : 0u);
        h.input_lead = lead;
        h.echo_delay_us = 1'234'500;
        h.has_own_state = full;
        h.own = extreme_state(platform);
        h.own_digest = state_digest(h.own);
        const Written w = write(h, {}, 1, {}, {});
        ASSERT_FALSE(w.bytes.empty());
        EXPECT_LE(w.bytes.size(), (snapshot_header_bits(h, 1, 0) + 7) / 8) << "the budget's estimate is an upper bound";
        SnapshotHeader back;
        RemoteView view;
        std::vector<uint32_t> changed;
        ASSERT_EQ(read_snapshot(w.bytes, 0xfffffffeu, 1, {}, back, view, changed), SnapshotError::kNone);
        EXPECT_EQ(back.tick, h.tick);
        EXPECT_EQ(back.repeated_mask, h.repeated_mask);
        EXPECT_EQ(back.interaction_mask, h.interaction_mask);
        EXPECT_EQ(back.server_mask, h.server_mask);
        EXPECT_EQ(back.received_through, h.received_through);
        EXPECT_EQ(back.input_lead, h.input_lead);
        EXPECT_EQ(back.echo_delay_us, h.echo_delay_us) << "whole 100 us units survive";
        EXPECT_EQ(back.has_own_state, full);
        EXPECT_EQ(back.own_digest, h.own_digest);
        if (full) {
          EXPECT_EQ(back.own, h.own);
        }
        EXPECT_EQ(back.base_tick, 0u);
        EXPECT_TRUE(view.empty());
      }
}

TEST(CompactSnapshot, EachMaskAloneRoundTripsAndTheOthersReadAsZero) {
  for (int which = 0; which < 3; ++which) {
    SnapshotHeader h;
    h.tick = h.received_through = 900;
    (which == 0 ? h.repeated_mask : which == 1 ? h.interaction_mask : h.server_mask) = 0x00000005u;
    SnapshotHeader back;
    ASSERT_EQ(read_snapshot_header(write(h, {}, 1, {}, {}).bytes, 900, 1, back), SnapshotError::kNone);
    EXPECT_EQ(back.repeated_mask, h.repeated_mask);
    EXPECT_EQ(back.interaction_mask, h.interaction_mask);
    EXPECT_EQ(back.server_mask, h.server_mask);
  }
}

TEST(CompactSnapshot, TheOwnStateCarriesFrozenTheProfileAndThePush) {
  for (const bool frozen : {false, true})
    for (const uint8_t profile : {uint8_t(0), uint8_t(1), uint8_t(7), uint8_t(15)}) {
      SnapshotHeader h;
      h.tick = h.received_through = 77;
      h.has_own_state = true;
      h.own = extreme_state(0);
      h.own.frozen = frozen;
      h.own.profile = profile;
      SnapshotHeader back;
      ASSERT_EQ(read_snapshot_header(write(h, {}, 1, {}, {}).bytes, 77, 1, back), SnapshotError::kNone);
      EXPECT_EQ(back.own, h.own);
      EXPECT_EQ(back.own_digest, h.own.digest());
    }
  // A push costs one bit when there is none, and round-trips on either axis alone.
  for (const FixedVec3 push : {FixedVec3{}, FixedVec3{-1, 0, 0}, FixedVec3{0, 0, 65536 * 6}}) {
    SnapshotHeader h;
    h.tick = h.received_through = 77;
    h.has_own_state = true;
    h.own.push = push;
    SnapshotHeader back;
    const auto bytes = write(h, {}, 1, {}, {}).bytes;
    ASSERT_EQ(read_snapshot_header(bytes, 77, 1, back), SnapshotError::kNone);
    EXPECT_EQ(back.own.push, push);
    EXPECT_EQ(back.own_digest, h.own.digest());
  }
  // A profile no settings hold is refused (kMaxProfiles is the most there are), whatever the width.
  for (const uint8_t profile : {uint8_t(16), uint8_t(17), uint8_t(255)}) {
    SnapshotHeader h;
    h.tick = h.received_through = 77;
    h.has_own_state = true;
    h.own.profile = profile;
    SnapshotHeader back;
    EXPECT_EQ(read_snapshot_header(write(h, {}, 1, {}, {}).bytes, 77, 1, back), SnapshotError::kBadValue) << int(profile);
  }
}

// A header-only snapshot (no base, no additions) is exactly snapshot_header_bits() less the room the
// estimate keeps for the largest additions count.
std::size_t header_only_bytes(const SnapshotHeader& h) {
  return (snapshot_header_bits(h, 1, 0) - std::size_t(var_bits(kMaxViewSize, 3)) + std::size_t(var_bits(0, 3)) + 7) / 8;
}

TEST(CompactSnapshot, AttributesCostFewBitsWhenSmallAndOneBitWhenAbsent) {
  EXPECT_EQ(attribute_bits(0), 11u);
  EXPECT_EQ(attribute_bits(7), 11u);
  EXPECT_EQ(attribute_bits(-8), 11u);
  EXPECT_EQ(attribute_bits(8), 15u);
  EXPECT_EQ(attribute_bits(-128), 15u);
  EXPECT_EQ(attribute_bits(128), 23u);
  EXPECT_EQ(attribute_bits(-32768), 23u);
  EXPECT_EQ(attribute_bits(32768), 39u);
  EXPECT_EQ(attribute_bits(std::numeric_limits<int32_t>::min()), 39u);
  EXPECT_EQ(attribute_bits(std::numeric_limits<int32_t>::max()), 39u);
  // The smallest header: kind 2, tick 16, has_masks 1, received 4, lead 3, delay 5, has_state 1,
  // digest 32, has_attributes 1, has_movers 1, has_base 1, the room for the additions' count (8)
  // and has_neighbours 1 and has_seen 1: one bit more than before attributes existed, one more for
  // neighbours, one more for the attributes others see and one more for the movers' clocks.
  SnapshotHeader h;
  h.tick = h.received_through = 1234;
  EXPECT_EQ(snapshot_header_bits(h, 1, 0), 77u);
  const std::size_t none = snapshot_header_bits(h, 1, 0);
  h.attribute_mask = 1u << 3;
  h.attribute_values[3] = 5;
  EXPECT_EQ(snapshot_header_bits(h, 1, 0), none + 5 + 11) << "the count (5) and the slot and value";
  h.attribute_mask |= 1u << 31;
  h.attribute_values[31] = -100000;
  h.attribute_values[30] = 99;  // not carried: costs nothing
  EXPECT_EQ(snapshot_header_bits(h, 1, 0), none + 5 + 11 + 39);
}

// #66: the attributes others see ride by their characters' entries in the view the snapshot
// describes (after its changes and additions), cost what seen_attribute_bits() and the section's
// constants say, and leave out a character the view lacks.
TEST(CompactSnapshot, SeenAttributesRoundTripByTheirCharactersInTheNewView) {
  constexpr int32_t kLow = std::numeric_limits<int32_t>::min();
  EXPECT_EQ(seen_attribute_bits(0), 10u);
  EXPECT_EQ(seen_attribute_bits(-128), 14u);
  EXPECT_EQ(seen_attribute_bits(32767), 22u);
  EXPECT_EQ(seen_attribute_bits(kLow), 38u);
  const RemoteView base = {remote(5, 0, 0, 0), remote(9, 100, 0, 100), remote(12, 0, 0, 0)};
  SnapshotHeader h;
  h.tick = h.received_through = 300;
  h.base_tick = 296;
  std::vector<SeenAttributes> seen(4);
  seen[0] = {5, 0b1001, {}};
  seen[0].values[0] = -3;
  seen[0].values[3] = kLow;
  seen[1] = {7, 1u << 15, {}};  // added by this snapshot
  seen[1].values[15] = 1000;
  seen[2] = {9, 1, {}};  // removed by this snapshot: left out
  seen[2].values[0] = 1;
  seen[3] = {12, 0xffff, {}};
  for (int i = 0; i < 16; ++i) seen[3].values[std::size_t(i)] = i * 37 - 300;
  SnapshotWriter w;
  const PoseView base_poses = poses(base);
  w.begin(h, base_poses, 4);
  w.change(1, nullptr);
  w.add(remote(7, 50, 0, 50));
  w.seen(seen);
  std::array<uint8_t, 4096> buffer{};
  PoseView written_view;
  const auto finished = w.finish(buffer, written_view);
  const std::vector<uint8_t> bytes(finished.begin(), finished.end());
  SnapshotHeader back;
  RemoteView view;
  std::vector<uint32_t> changed;
  std::vector<SeenAttributes> read;
  ASSERT_EQ(read_snapshot(bytes, 300, 4, base, back, view, changed, nullptr, nullptr, &read), SnapshotError::kNone);
  ASSERT_EQ(read.size(), 3u);
  for (std::size_t k = 0, from = 0; k < read.size(); ++k, ++from) {
    if (seen[from].id == 9) ++from;
    EXPECT_EQ(read[k].id, seen[from].id);
    EXPECT_EQ(read[k].mask, seen[from].mask);
    for (int i = 0; i < 16; ++i)
      EXPECT_EQ(read[k].values[std::size_t(i)], (seen[from].mask >> i) & 1 ? seen[from].values[std::size_t(i)] : 0) << i;
  }
  // What it costs: the section's count, per character its index and count, per attribute its bits.
  std::size_t section = kSeenSectionBits;
  for (const SeenAttributes& s : seen) {
    if (s.id == 9) continue;
    section += kSeenCharacterBits;
    for (int i = 0; i < 16; ++i)
      if ((s.mask >> i) & 1) section += seen_attribute_bits(s.values[std::size_t(i)]);
  }
  w.begin(h, base_poses, 4);
  w.change(1, nullptr);
  w.add(remote(7, 50, 0, 50));
  w.seen({});
  const std::size_t without = w.finish(buffer, written_view).size();
  EXPECT_LE(bytes.size() * 8, without * 8 + section + 7) << "the section's bits, to the byte";
  EXPECT_GE(bytes.size() * 8 + 7, without * 8 + section) << "the section's bits, to the byte";
  // Read without asking for them, the same snapshot reads the same.
  ASSERT_EQ(read_snapshot(bytes, 300, 4, base, back, view, changed), SnapshotError::kNone);
}

// Seen attributes out of order, of an entry beyond the view, or in a larger class than their value
// needs refuse the snapshot whole.
TEST(CompactSnapshot, MalformedSeenAttributesRefuseTheSnapshot) {
  const RemoteView base = {remote(5, 0, 0, 0), remote(9, 100, 0, 100)};
  SnapshotHeader h;
  h.tick = h.received_through = 300;
  h.base_tick = 299;
  const PoseView base_poses = poses(base);
  SnapshotWriter w;
  w.begin(h, base_poses, 1);
  std::array<uint8_t, 4096> buffer{};
  PoseView written_view;
  const auto plain = w.finish(buffer, written_view);
  const std::vector<uint8_t> without(plain.begin(), plain.end());
  // Rewrite the last bit (has_seen 0) as a hand-made section: the plain snapshot's bits but the
  // last, then the section.
  auto with_section = [&](const std::function<void(BitWriter&)>& section) {
    std::array<uint8_t, 4096> out{};
    BitWriter bw(out);
    BitReader br(without);
    const std::size_t bits = snapshot_header_bits(h, 1, base.size()) - std::size_t(var_bits(kMaxViewSize, 3)) +
                             std::size_t(var_bits(0, 3)) - 1;
    for (std::size_t i = 0; i < bits; ++i) bw.put(br.get(1), 1);
    bw.put_bool(true);
    section(bw);
    const auto b = bw.finish();
    return std::vector<uint8_t>(b.begin(), b.end());
  };
  SnapshotHeader back;
  RemoteView view;
  std::vector<uint32_t> changed;
  std::vector<SeenAttributes> read;
  auto entry = [](BitWriter& bw, uint32_t index, uint32_t attribute, uint32_t cls, uint32_t z, int value_bits) {
    bw.put(index, 6);
    bw.put(0, 4);  // one attribute
    bw.put(attribute, 4);
    bw.put(cls, 2);
    bw.put(z, value_bits);
  };
  const auto good = with_section([&](BitWriter& bw) {
    bw.put(1, 6);  // two characters
    entry(bw, 0, 3, 0, zigzag(-2), 4);
    entry(bw, 1, 0, 1, zigzag(100), 8);
  });
  ASSERT_EQ(read_snapshot(good, 300, 1, base, back, view, changed, nullptr, nullptr, &read), SnapshotError::kNone);
  ASSERT_EQ(read.size(), 2u);
  EXPECT_EQ(read[0].id, 5u);
  EXPECT_EQ(read[0].values[3], -2);
  EXPECT_EQ(read[1].id, 9u);
  EXPECT_EQ(read[1].values[0], 100);
  const auto out_of_order = with_section([&](BitWriter& bw) {
    bw.put(1, 6);
    entry(bw, 1, 0, 0, 1, 4);
    entry(bw, 0, 0, 0, 1, 4);
  });
  EXPECT_EQ(read_snapshot(out_of_order, 300, 1, base, back, view, changed, nullptr, nullptr, &read), SnapshotError::kBadValue);
  const auto beyond = with_section([&](BitWriter& bw) {
    bw.put(0, 6);
    entry(bw, 2, 0, 0, 1, 4);
  });
  EXPECT_EQ(read_snapshot(beyond, 300, 1, base, back, view, changed, nullptr, nullptr, &read), SnapshotError::kBadValue);
  const auto too_wide = with_section([&](BitWriter& bw) {
    bw.put(0, 6);
    entry(bw, 0, 0, 1, 1, 8);
  });
  EXPECT_EQ(read_snapshot(too_wide, 300, 1, base, back, view, changed, nullptr, nullptr, &read), SnapshotError::kBadValue);
  const auto cut = with_section([&](BitWriter& bw) { bw.put(0, 6); });
  EXPECT_EQ(read_snapshot(cut, 300, 1, base, back, view, changed, nullptr, nullptr, &read), SnapshotError::kMalformed);
}

TEST(CompactSnapshot, AttributesRoundTripAtTheirLimitsAndCostWhatTheHeaderSays) {
  constexpr int32_t kLow = std::numeric_limits<int32_t>::min(), kHigh = std::numeric_limits<int32_t>::max();
  const std::vector<int32_t> values = {0, 1, -1, 7, -8, 8, -9, 127, -128, 128, -129, 32767, -32768, 32768, -32769,
                                       kHigh, kLow, 1'000'000, -7'654'321};
  std::mt19937 rng(36);
  std::vector<SnapshotHeader> headers;
  for (uint32_t mask : {0u, 1u, 0x80000000u, 0x0000ffffu, 0xffff0000u, 0xffffffffu, 0x00010001u}) {
    SnapshotHeader h;
    h.attribute_mask = mask;
    for (int s = 0; s < kAttributeSlots; ++s) h.attribute_values[std::size_t(s)] = values[std::size_t(s) % values.size()];
    headers.push_back(h);
  }
  for (int i = 0; i < 300; ++i) {
    SnapshotHeader h;
    h.attribute_mask = uint32_t(rng()) & uint32_t(rng());
    for (auto& v : h.attribute_values) v = values[rng() % values.size()];
    h.has_own_state = rng() % 2;
    h.own.profile = uint8_t(rng() % 16);
    h.server_mask = rng() % 3 == 0 ? uint32_t(rng()) : 0;
    headers.push_back(h);
  }
  for (SnapshotHeader& h : headers) {
    h.tick = 5000;
    h.received_through = 5001;
    h.own_digest = state_digest(h.own);
    const Written w = write(h, {}, 1, {}, {});
    ASSERT_FALSE(w.bytes.empty());
    EXPECT_EQ(w.bytes.size(), header_only_bytes(h)) << std::hex << h.attribute_mask;
    SnapshotHeader back;
    RemoteView view;
    std::vector<uint32_t> changed;
    ASSERT_EQ(read_snapshot(w.bytes, 5000, 1, {}, back, view, changed), SnapshotError::kNone) << std::hex << h.attribute_mask;
    EXPECT_EQ(back.attribute_mask, h.attribute_mask);
    EXPECT_EQ(back.server_mask, h.server_mask);
    for (int s = 0; s < kAttributeSlots; ++s)
      EXPECT_EQ(back.attribute_values[std::size_t(s)], (h.attribute_mask >> s) & 1 ? h.attribute_values[std::size_t(s)] : 0)
          << "slot " << s << ": carried ones survive, the others read as 0";
    SnapshotHeader header_only;
    ASSERT_EQ(read_snapshot_header(w.bytes, 5000, 1, header_only), SnapshotError::kNone);
    EXPECT_EQ(header_only.attribute_values, back.attribute_values) << "the attributes are part of the header";
  }
  // With a base and characters after them, the view is read as before.
  RemoteView base = {remote(5, 0, 0, 0), remote(9, 100, 0, 100)};
  SnapshotHeader h;
  h.tick = h.received_through = 300;
  h.base_tick = 299;
  h.attribute_mask = 0x00030001u;
  h.attribute_values = {};
  h.attribute_values[0] = kLow;
  h.attribute_values[16] = -3;
  h.attribute_values[17] = kHigh;
  RemoteState moved = base[1];
  moved.x += 1;
  const Written w = write(h, base, 1, {{1, moved}}, {remote(7, 1, 2, 3)});
  SnapshotHeader back;
  RemoteView view;
  std::vector<uint32_t> changed;
  ASSERT_EQ(read_snapshot(w.bytes, 300, 1, base, back, view, changed), SnapshotError::kNone);
  EXPECT_EQ(poses(view), w.view);
  EXPECT_EQ(back.attribute_values, h.attribute_values);
}

// Attribute sections written by hand after a minimal header: kind, tick, no masks, received 0, lead
// 0, delay 0, a digest; then the section; then no movers, no base and no additions.
std::vector<uint8_t> with_attribute_section(const std::function<void(BitWriter&)>& section) {
  std::array<uint8_t, 512> buffer{};
  BitWriter w(buffer);
  w.put(1, 2);
  w.put(300, 16);
  w.put_bool(false);
  w.put_var(0, 3);
  w.put_var(0, 2);
  w.put_var(0, 4);
  w.put_bool(false);
  w.put(0xdeadbeef, 32);
  section(w);
  w.put_bool(false);  // no movers
  w.put_bool(false);
  w.put_var(0, 3);
  const auto bytes = w.finish();
  return {bytes.begin(), bytes.end()};
}

SnapshotError read_crafted(const std::vector<uint8_t>& bytes, SnapshotHeader& back) {
  RemoteView view;
  std::vector<uint32_t> changed;
  return read_snapshot(bytes, 300, 1, {}, back, view, changed);
}

SnapshotError read_crafted_at(const std::vector<uint8_t>& bytes, uint32_t reference, SnapshotHeader& back) {
  RemoteView view;
  std::vector<uint32_t> changed;
  return read_snapshot(bytes, reference, 1, {}, back, view, changed);
}

TEST(CompactSnapshot, MalformedAttributeSectionsAreRefusedWhole) {
  SnapshotHeader back;
  // The crafting matches the writer: two attributes, slots 2 and 20, values 5 (class 0) and -200 (class 2).
  auto two = [](BitWriter& w) {
    w.put_bool(true);
    w.put(1, 5);
    w.put(2, 5), w.put(0, 2), w.put(zigzag(5), 4);
    w.put(20, 5), w.put(2, 2), w.put(zigzag(-200), 16);
  };
  ASSERT_EQ(read_crafted(with_attribute_section(two), back), SnapshotError::kNone);
  EXPECT_EQ(back.attribute_mask, (1u << 2) | (1u << 20));
  EXPECT_EQ(back.attribute_values[20], -200);
  SnapshotHeader h;
  h.tick = h.received_through = 300;
  h.own_digest = 0xdeadbeef;
  h.attribute_mask = (1u << 2) | (1u << 20);
  h.attribute_values[2] = 5;
  h.attribute_values[20] = -200;
  EXPECT_EQ(with_attribute_section(two), write(h, {}, 1, {}, {}).bytes) << "the writer writes what the table says";

  // Every truncation of a snapshot with attributes.
  h.attribute_mask = 0xffffffffu;
  for (int s = 0; s < kAttributeSlots; ++s) h.attribute_values[std::size_t(s)] = s % 2 ? std::numeric_limits<int32_t>::min() : s;
  const Written full = write(h, {}, 1, {}, {});
  ASSERT_EQ(read_crafted(full.bytes, back), SnapshotError::kNone);
  for (std::size_t n = 0; n < full.bytes.size(); ++n)
    EXPECT_NE(read_crafted(std::vector<uint8_t>(full.bytes.begin(), full.bytes.begin() + long(n)), back), SnapshotError::kNone) << n;

  // Slots out of order, or repeated.
  EXPECT_EQ(read_crafted(with_attribute_section([](BitWriter& w) {
              w.put_bool(true);
              w.put(1, 5);
              w.put(9, 5), w.put(0, 2), w.put(1, 4);
              w.put(3, 5), w.put(0, 2), w.put(1, 4);
            }), back),
            SnapshotError::kBadValue);
  EXPECT_EQ(read_crafted(with_attribute_section([](BitWriter& w) {
              w.put_bool(true);
              w.put(1, 5);
              w.put(9, 5), w.put(0, 2), w.put(1, 4);
              w.put(9, 5), w.put(0, 2), w.put(1, 4);
            }), back),
            SnapshotError::kBadValue);
  // A value in a larger class than it needs (one encoding per value).
  EXPECT_EQ(read_crafted(with_attribute_section([](BitWriter& w) {
              w.put_bool(true);
              w.put(0, 5);
              w.put(4, 5), w.put(1, 2), w.put(zigzag(5), 8);
            }), back),
            SnapshotError::kBadValue);
  // A count larger than the entries that follow.
  EXPECT_NE(read_crafted(with_attribute_section([](BitWriter& w) {
              w.put_bool(true);
              w.put(3, 5);
              w.put(4, 5), w.put(0, 2), w.put(1, 4);
            }), back),
            SnapshotError::kNone);
}

// The movers section (version 12): the movers' clocks a game drives, each segment exact, as many as
// kMaxSnapshotMovers, costing what mover_bits() says and one bit when absent; what no clock may hold,
// or indices out of order, refuse the snapshot.
TEST(CompactSnapshot, MoversClocksRoundTripExactlyAndCostWhatTheHeaderSays) {
  SnapshotHeader none;
  none.tick = none.received_through = 70000;
  SnapshotHeader h = none;
  h.mover_count = 4;
  h.movers[0] = {0, {69999, 0, kRateOne, true, 2 * 60 * int64_t(kRateOne)}};
  h.movers[1] = {3, {1, -kMaxMoverPhase, -kMaxMoverRate, false, 0}};
  h.movers[2] = {700, {70000, kMaxMoverPhase, kMaxMoverRate, true, -kMaxMoverPhase}};
  h.movers[3] = {65535, {uint32_t(70000u - 0x7fffffffu), 12345, 0, false, 0}};
  const Written w = write(h, {}, 1, {}, {});
  ASSERT_FALSE(w.bytes.empty());
  EXPECT_EQ(w.bytes.size(), header_only_bytes(h));
  std::size_t bits = 0;
  for (std::size_t i = 0; i < 4; ++i) bits += mover_bits(h.movers[i], h.tick);
  EXPECT_EQ(snapshot_header_bits(h, 1, 0), snapshot_header_bits(none, 1, 0) + 2 + bits);
  SnapshotHeader back;
  ASSERT_EQ(read_crafted_at(w.bytes, 70000, back), SnapshotError::kNone);
  ASSERT_EQ(back.mover_count, 4);
  for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(back.movers[i], h.movers[i]) << i;
  // A lift's go-to as a server sends it: ten bytes at most.
  EXPECT_LE(mover_bits(h.movers[0], h.tick), 10u * 8);

  // Beyond what a clock may hold, or not ascending: refused.
  auto refused = [&](const std::function<void(SnapshotHeader&)>& edit) {
    SnapshotHeader bad = h;
    edit(bad);
    const Written wb = write(bad, {}, 1, {}, {});
    SnapshotHeader b;
    return read_crafted_at(wb.bytes, 70000, b) == SnapshotError::kBadValue;
  };
  EXPECT_TRUE(refused([](SnapshotHeader& b) { b.movers[1].segment.rate = -kMaxMoverRate - 1; }));
  EXPECT_TRUE(refused([](SnapshotHeader& b) { b.movers[2].segment.phase = kMaxMoverPhase + 1; }));
  EXPECT_TRUE(refused([](SnapshotHeader& b) { b.movers[0].segment.target = -kMaxMoverPhase - 1; }));
  EXPECT_TRUE(refused([](SnapshotHeader& b) { b.movers[1].index = 0; }));
  EXPECT_TRUE(refused([](SnapshotHeader& b) { b.movers[3].segment.from_tick = 70000 - 0x80000000u; }));
  // Every truncation.
  for (std::size_t n = 0; n < w.bytes.size(); ++n) {
    SnapshotHeader b;
    EXPECT_NE(read_crafted_at(std::vector<uint8_t>(w.bytes.begin(), w.bytes.begin() + long(n)), 70000, b), SnapshotError::kNone) << n;
  }
}

TEST(CompactSnapshot, EchoDelayIsRoundedToTenthsOfAMillisecondAndCapped) {
  SnapshotHeader h;
  h.tick = h.received_through = 100;
  h.echo_delay_us = 149;
  const Written a = write(h, {}, 1, {}, {});
  SnapshotHeader back;
  ASSERT_EQ(read_snapshot_header(a.bytes, 100, 1, back), SnapshotError::kNone);
  EXPECT_EQ(back.echo_delay_us, 100u);
  h.echo_delay_us = 0xffffffffu;
  const Written b = write(h, {}, 1, {}, {});
  ASSERT_EQ(read_snapshot_header(b.bytes, 100, 1, back), SnapshotError::kNone);
  EXPECT_EQ(back.echo_delay_us, (1u << 20) * 100u) << "a delay beyond 105 s reads as 105 s";
}

TEST(CompactSnapshot, ChangesRemovalsAndAdditionsRebuildTheWritersView) {
  // A base of 48: the largest deltas (one corner of the coordinate range to the other), small ones,
  // unchanged ones, removals, posture changes; additions at the id limits.
  RemoteView base;
  for (uint32_t i = 0; i < 48; ++i) base.push_back(remote(10 + 3 * i, int32_t(i) * 1000, 0, -int32_t(i) * 7, 1));
  base[0].x = kMin;
  base[0].y = kMax;
  SnapshotHeader h;
  h.tick = 700;
  h.received_through = 700;
  h.base_tick = 640;  // 20 snapshots back at interval 3
  std::vector<std::pair<std::size_t, std::optional<RemoteState>>> changes;
  RemoteState far = base[0];
  far.x = kMax;
  far.y = kMin;
  changes.emplace_back(0, far);
  RemoteState small = base[1];
  small.x += 21;
  small.z -= 3;
  changes.emplace_back(1, small);
  RemoteState posture = base[2];
  posture.ground = 4;
  posture.crouched = true;
  posture.platform = 65535;
  changes.emplace_back(2, posture);
  for (std::size_t i = 40; i < 48; ++i) changes.emplace_back(i, std::nullopt);
  const std::vector<RemoteState> additions = {remote(0xffffffffu, kMin, kMax, 0, 0, true, 3), remote(1, 0, 0, 0, 2),
                                              remote(0xfffffffeu, 5, -5, kMax, 3)};
  const Written w = write(h, base, 3, changes, additions);
  ASSERT_FALSE(w.bytes.empty());
  ASSERT_EQ(w.view.size(), 48u - 8u + 3u);
  EXPECT_TRUE(std::is_sorted(w.view.begin(), w.view.end(), [](const auto& a, const auto& b) { return a.id < b.id; }));

  SnapshotHeader back;
  RemoteView view;
  std::vector<uint32_t> changed;
  ASSERT_EQ(read_snapshot_header(w.bytes, 690, 3, back), SnapshotError::kNone);
  EXPECT_EQ(back.base_tick, 640u);
  ASSERT_EQ(read_snapshot(w.bytes, 690, 3, base, back, view, changed), SnapshotError::kNone);
  EXPECT_EQ(poses(view), w.view);
  EXPECT_EQ(changed, (std::vector<uint32_t>{1, 10, 13, 16, 0xfffffffeu, 0xffffffffu}))
      << "the changed and the added, ascending (the client looks them up by binary search)";
  // Against another base (the client holds a different one), the same bytes are refused or read
  // differently: never the writer's view.
  RemoteView other = base;
  other.pop_back();
  RemoteView wrong;
  const SnapshotError e = read_snapshot(w.bytes, 690, 3, other, back, wrong, changed);
  EXPECT_TRUE(e != SnapshotError::kNone || poses(wrong) != w.view);
}

TEST(CompactSnapshot, AdditionsNameTheirPlayersAndRemovalsSayWhetherTheyLeftTheMatch) {
  // The client ids ride with additions only (a small one in a dozen bits, any 64-bit one whole); a
  // change keeps the base's; a removal says whether the character left the match.
  RemoteView base = {remote(5, 0, 0, 0), remote(6, 10, 0, 0), remote(7, 20, 0, 0), remote(8, 30, 0, 0)};
  for (RemoteState& b : base) b.client_id = 900 + b.id;
  SnapshotHeader h;
  h.tick = 100;
  h.received_through = 100;
  h.base_tick = 99;
  RemoteState moved = base[0];
  moved.x += 4;
  moved.client_id = 0;  // a change carries no client id: the reader keeps the base's
  SnapshotWriter w;
  const PoseView base_poses = poses(base);
  w.begin(h, base_poses, 1);
  w.change(0, &moved);
  w.change(1, nullptr, true);   // left the match
  w.change(2, nullptr, false);  // out of view
  RemoteState small = remote(9, 0, 0, 0), large = remote(10, 0, 0, 0);
  small.client_id = 3;
  large.client_id = ~uint64_t(0);
  w.add(small);
  w.add(large);
  std::array<uint8_t, 512> buffer{};
  PoseView written;
  const auto bytes = w.finish(buffer, written);
  ASSERT_FALSE(bytes.empty());
  RemoteView view;
  std::vector<uint32_t> changed, gone;
  SnapshotHeader back;
  ASSERT_EQ(read_snapshot(bytes, 100, 1, base, back, view, changed, &gone), SnapshotError::kNone);
  EXPECT_EQ(poses(view), written);
  ASSERT_EQ(view.size(), 4u);
  EXPECT_EQ(view[0].id, 5u);
  EXPECT_EQ(view[0].client_id, 905u) << "kept from the base";
  EXPECT_EQ(view[1].client_id, 908u);
  EXPECT_EQ(view[2].client_id, 3u);
  EXPECT_EQ(view[3].client_id, ~uint64_t(0));
  EXPECT_EQ(gone, (std::vector<uint32_t>{6})) << "7 only went out of view";
  // What the budget weighs: the small id costs 12 bits (8 and 4), the largest 84 (40 and 44).
  EXPECT_EQ(addition_bits(large) - addition_bits(small), std::size_t(84 - 12));
  EXPECT_EQ(change_bits(pose_of(base[1]), nullptr), 2u);
}

TEST(CompactSnapshot, AnAdditionSaysItIsAnNpcInOneBitAndCarriesNoClientId) {
  // Protocol 13: a character the server's game drives has no player; its addition says so, and a
  // client id it might be given is not sent (the reader's is 0). A change keeps the base's flag.
  RemoteView base = {remote(5, 0, 0, 0)};
  base[0].npc = true;
  SnapshotHeader h;
  h.tick = h.received_through = 200;
  h.base_tick = 199;
  RemoteState moved = base[0];
  moved.x += 8;
  moved.npc = false;  // a change carries no flag: the reader keeps the base's
  RemoteState npc = remote(9, 40, 0, 0), player = remote(10, 80, 0, 0);
  npc.npc = true;
  npc.client_id = 77;  // not sent
  player.client_id = 77;
  SnapshotWriter w;
  const PoseView base_poses = poses(base);
  w.begin(h, base_poses, 1);
  w.change(0, &moved);
  w.add(npc);
  w.add(player);
  std::array<uint8_t, 512> buffer{};
  PoseView written;
  const auto bytes = w.finish(buffer, written);
  ASSERT_FALSE(bytes.empty());
  RemoteView view;
  std::vector<uint32_t> changed;
  SnapshotHeader back;
  ASSERT_EQ(read_snapshot(bytes, 200, 1, base, back, view, changed), SnapshotError::kNone);
  ASSERT_EQ(view.size(), 3u);
  EXPECT_TRUE(view[0].npc) << "kept from the base";
  EXPECT_TRUE(view[1].npc);
  EXPECT_EQ(view[1].client_id, 0u) << "an NPC's client id is never sent";
  EXPECT_FALSE(view[2].npc);
  EXPECT_EQ(view[2].client_id, 77u);
  // The NPC's addition costs the flag and no client id; a player's, the flag beside its id (8 + 4 bits for 77).
  RemoteState npc_sent = npc;
  npc_sent.client_id = 0;
  EXPECT_EQ(addition_bits(player) - addition_bits(npc), std::size_t(12));
  EXPECT_EQ(addition_bits(npc), addition_bits(npc_sent));
}

TEST(CompactSnapshot, SixteenMovingCharactersFitInAHundredBytes) {
  // The case: 16 characters each walking 6 ticks at 5 m/s since the acknowledged snapshot.
  RemoteView base;
  for (uint32_t i = 0; i < 16; ++i) base.push_back(remote(2 + i, int32_t(i) * 2000, 300, int32_t(i) * 500));
  SnapshotHeader h;
  h.tick = h.received_through = 5000;
  h.input_lead = 2;
  h.base_tick = 4994;
  h.echo_delay_us = 8000;
  h.own_digest = 0xdeadbeef;
  std::vector<std::pair<std::size_t, std::optional<RemoteState>>> changes;
  for (std::size_t i = 0; i < 16; ++i) {
    RemoteState s = base[i];
    s.x += (i % 2 ? 128 : -90);
    s.z += (i % 3 ? 90 : -128);
    changes.emplace_back(i, s);
  }
  const Written w = write(h, base, 1, changes, {});
  const std::size_t datagram = w.bytes.size() + 1 + 2 + 16;  // prefix, 2 sequence bytes, tag
  EXPECT_LE(datagram, 100u);
}

TEST(CompactSnapshot, MalformedSnapshotsAreRefusedWhole) {
  RemoteView base = {remote(5, 0, 0, 0), remote(9, 100, 0, 100)};
  SnapshotHeader h;
  h.tick = h.received_through = 300;
  h.base_tick = 299;
  RemoteState moved = base[1];
  moved.x += 1;
  const Written w = write(h, base, 1, {{1, moved}}, {remote(7, 1, 2, 3)});
  SnapshotHeader back;
  RemoteView view;
  std::vector<uint32_t> changed;
  ASSERT_EQ(read_snapshot(w.bytes, 300, 1, base, back, view, changed), SnapshotError::kNone);
  // Every truncation, and a byte more.
  for (std::size_t n = 0; n < w.bytes.size(); ++n)
    EXPECT_NE(read_snapshot(std::span(w.bytes.data(), n), 300, 1, base, back, view, changed), SnapshotError::kNone) << n;
  std::vector<uint8_t> longer = w.bytes;
  longer.push_back(0);
  EXPECT_EQ(read_snapshot(longer, 300, 1, base, back, view, changed), SnapshotError::kMalformed);
  // An inputs message is not a snapshot.
  std::array<uint8_t, 16> buffer{};
  const auto inputs = write_inputs({}, {}, buffer);
  EXPECT_EQ(read_snapshot(std::vector<uint8_t>(inputs.begin(), inputs.end()), 300, 1, base, back, view, changed),
            SnapshotError::kMalformed);
  // An addition that names a character the view holds, a ground kind out of range, a base 0 ticks
  // back, and more characters than a view may hold.
  EXPECT_EQ(read_snapshot(write(h, base, 1, {}, {remote(9, 0, 0, 0)}).bytes, 300, 1, base, back, view, changed),
            SnapshotError::kBadValue);
  EXPECT_EQ(read_snapshot(write(h, base, 1, {}, {remote(11, 0, 0, 0, 7)}).bytes, 300, 1, base, back, view, changed),
            SnapshotError::kBadValue);
  SnapshotHeader same = h;
  same.base_tick = same.tick;
  EXPECT_EQ(read_snapshot(write(same, base, 1, {}, {}).bytes, 300, 1, base, back, view, changed), SnapshotError::kBadValue);
  std::vector<RemoteState> many;
  for (uint32_t i = 0; i < 47; ++i) many.push_back(remote(100 + i, 0, 0, 0));
  EXPECT_EQ(read_snapshot(write(h, base, 1, {}, many).bytes, 300, 1, base, back, view, changed), SnapshotError::kTooMany)
      << "2 kept and 47 added";
  // A delta that carries a coordinate out of range: written against a base at one edge of the
  // range, read against a base at the other.
  const RemoteView edge = {remote(5, kMax, 0, 0)};
  const Written jump = write(h, {remote(5, kMin, 0, 0)}, 1, {{0, remote(5, kMax, 0, 0)}}, {});
  EXPECT_EQ(read_snapshot(jump.bytes, 300, 1, edge, back, view, changed), SnapshotError::kBadValue);
}

TEST(CompactSnapshot, RandomBitFlipsNeverCrashAndWhatPassesIsAValidView) {
  RemoteView base;
  for (uint32_t i = 0; i < 20; ++i) base.push_back(remote(1 + 2 * i, int32_t(i) * 900, 0, 0));
  SnapshotHeader h;
  h.tick = h.received_through = 4000;
  h.base_tick = 3996;
  h.has_own_state = true;
  h.own = extreme_state(2);
  std::vector<std::pair<std::size_t, std::optional<RemoteState>>> changes;
  for (std::size_t i = 0; i < 20; i += 2) {
    RemoteState s = base[i];
    s.z += 77;
    changes.emplace_back(i, s);
  }
  changes.emplace_back(1, std::nullopt);
  const Written w = write(h, base, 2, changes, {remote(100, 1, 1, 1)});
  std::mt19937 rng(7);
  int accepted = 0;
  for (int i = 0; i < 20000; ++i) {
    std::vector<uint8_t> b = w.bytes;
    for (int f = 0, n = 1 + int(rng() % 3); f < n; ++f) b[rng() % b.size()] ^= uint8_t(1u << (rng() % 8));
    SnapshotHeader back;
    RemoteView view;
    std::vector<uint32_t> changed;
    if (read_snapshot(b, 4000, 2, base, back, view, changed) != SnapshotError::kNone) continue;
    ++accepted;
    ASSERT_LE(view.size(), kMaxViewSize);
    ASSERT_TRUE(std::adjacent_find(view.begin(), view.end(), [](const auto& a, const auto& c) { return a.id >= c.id; }) ==
                view.end())
        << "ids strictly ascending";
    for (const auto& r : view) {
      ASSERT_TRUE(r.x >= kMin && r.x <= kMax && r.y >= kMin && r.y <= kMax && r.z >= kMin && r.z <= kMax);
      ASSERT_LT(r.ground, kGroundKindCount);
    }
  }
  EXPECT_GT(accepted, 0) << "flips inside values still decode";
}

TEST(CompactInputs, RoundTripWithRepeatsAcrossTickWrapAround) {
  std::vector<InputCmd> in;
  for (uint32_t i = 0; i < 32; ++i) {
    InputCmd c;
    c.tick = 0xfffffff0u + i;  // crosses the wrap
    c.move_x = int8_t(i < 10 ? 127 : -127);
    c.move_z = int8_t(i % 7 == 0 ? 0 : -5);
    c.buttons = uint8_t(i % 4);
    in.push_back(c);
  }
  std::array<uint8_t, 256> buffer{};
  const InputsHeader h{0xffffffe0u, in.back().tick, true};
  const auto bytes = write_inputs(h, in, buffer);
  ASSERT_FALSE(bytes.empty());
  InputsHeader back;
  std::vector<InputCmd> out;
  ASSERT_TRUE(read_inputs(bytes, 0xfffffff8u, back, out));
  EXPECT_EQ(back.ack_snapshot, h.ack_snapshot);
  EXPECT_EQ(back.newest_tick, h.newest_tick);
  EXPECT_TRUE(back.want_state);
  EXPECT_EQ(out, in);
  // 32 identical inputs cost one full input and a bit each.
  std::vector<InputCmd> same(32, in[0]);
  for (uint32_t i = 0; i < 32; ++i) same[i].tick = 1000 + i;
  const auto small = write_inputs({0, 1031, false}, same, buffer);
  EXPECT_LE(small.size(), 10u);
  ASSERT_TRUE(read_inputs(small, 1000, back, out));
  EXPECT_EQ(back.ack_snapshot, 0u) << "no snapshot acknowledged yet";
  EXPECT_EQ(out, same);
}

TEST(CompactInputs, ValuesAreCleanedAndMalformedMessagesRefused) {
  InputCmd raw;
  raw.tick = 50;
  raw.move_x = -128;
  raw.move_z = 127;
  raw.buttons = 0xff;
  std::array<uint8_t, 64> buffer{};
  const auto bytes = write_inputs({0, 50, false}, std::span(&raw, 1), buffer);
  InputsHeader h;
  std::vector<InputCmd> out;
  ASSERT_TRUE(read_inputs(bytes, 50, h, out));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].move_x, -127) << "-128 reads as -127";
  EXPECT_EQ(out[0].move_z, 127);
  EXPECT_EQ(out[0].buttons, kKnownButtons);
  const std::vector<uint8_t> good(bytes.begin(), bytes.end());
  for (std::size_t n = 0; n < good.size(); ++n) EXPECT_FALSE(read_inputs(std::span(good.data(), n), 50, h, out)) << n;
  // More than 32 inputs, by hand.
  BitWriter w(buffer);
  w.put(uint32_t(CompactKind::kInputs), 2);
  w.put_bool(false);
  w.put_bool(false);
  w.put(60, 16);
  w.put_var(33, 3);
  for (int i = 0; i < 33; ++i) w.put(i == 0 ? 0 : 1, i == 0 ? 18 : 1);
  EXPECT_FALSE(read_inputs(w.finish(), 50, h, out));
  // A snapshot is not an inputs message.
  SnapshotHeader s;
  s.tick = s.received_through = 50;
  SnapshotWriter sw;
  sw.begin(s, {}, 1);
  PoseView v;
  std::array<uint8_t, 128> sb{};
  EXPECT_FALSE(read_inputs(sw.finish(sb, v), 50, h, out));
}

std::vector<uint8_t> read_seed(const std::string& name) {
  std::ifstream in(std::string(FOOTHOLD_SOURCE_DIR) + "/tests/fuzz/corpus/datagram/" + name, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST(CompactSeeds, TheFuzzSeedsAreValidMessages) {
  // The datagram fuzzer starts from these (first byte: its routing); they must reach the readers
  // whole, or the fuzzer would spend its time on refusals at the first field.
  const auto inputs = read_seed("inputs_in_session");
  ASSERT_GT(inputs.size(), 1u);
  EXPECT_EQ(inputs[0] & 0x0f, 0x0a) << "sealed as a compact message, to the server";
  InputsHeader h;
  std::vector<InputCmd> out;
  ASSERT_TRUE(read_inputs(std::span(inputs).subspan(1), 40, h, out));
  EXPECT_EQ(out.size(), 3u);
  const auto snapshot = read_seed("snapshot_to_client_in_session");
  ASSERT_GT(snapshot.size(), 1u);
  EXPECT_EQ(snapshot[0] & 0x0f, 0x0c) << "sealed as a compact message, to the client";
  SnapshotHeader sh;
  RemoteView view;
  std::vector<uint32_t> changed;
  ASSERT_EQ(read_snapshot(std::span(snapshot).subspan(1), 50, 1, {}, sh, view, changed), SnapshotError::kNone);
  EXPECT_EQ(view.size(), 2u);
}

}  // namespace
}  // namespace foothold::proto
