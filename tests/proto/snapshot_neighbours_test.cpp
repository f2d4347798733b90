// A snapshot's neighbours section (WIRE_FORMAT.md, "Neighbours"): the nearest characters in full,
// leaning on their entries in the view the snapshot describes.

#include <vector>

#include <gtest/gtest.h>

#include "proto/bits.h"
#include "proto/compact.h"

namespace foothold::proto {
namespace {

// A character as a neighbour and as its view entry shows it.
struct Character {
  SnapshotNeighbour full;
  RemoteState shown() const {
    const CharacterState& s = full.state;
    return {{full.id, s.position.x >> 2, s.position.y >> 2, s.position.z >> 2, uint8_t(s.ground), s.crouched, s.platform},
            1000 + full.id};
  }
};

Character walker(uint32_t id) {
  Character c;
  c.full.id = id;
  CharacterState& s = c.full.state;
  s.position = {int32_t(1000 * id + 3), 1843, -20001};
  s.velocity = {-32768, 0, 250001};
  s.ground = GroundKind::kWalkable;
  s.floor_normal = {0, 16384, 0};
  s.air_ticks = 0;
  c.full.input = encode_move(0.3, -0.9, 0, 0);
  c.full.input.tick = 0;
  return c;
}

// Every field off its common value, on a platform, with inputs ahead.
Character unusual(uint32_t id) {
  Character c = walker(id);
  CharacterState& s = c.full.state;
  s.position = {-7, -123457, 2};
  s.velocity = {0, -1, 0};
  s.ground = GroundKind::kNone;
  s.floor_normal = {3, 16000, -200};
  s.air_ticks = 7;
  s.jump_buffer = 3;
  s.jump_held = true;
  s.crouched = true;
  s.frozen = true;
  s.profile = 15;
  s.push = {-65536 * 200, 0, 1};
  s.platform = 3;
  c.full.offset_residual = {-1, 0, 40};
  c.full.input = {0, -127, 127, uint8_t(kButtonJump)};
  c.full.ahead_count = 4;
  c.full.ahead[0] = c.full.input;                    // a repeat: one bit
  c.full.ahead[1] = {0, 5, 6, 0};                    // another
  c.full.ahead[2] = {0, 5, 6, 0};                    // and its repeat
  c.full.ahead[3] = {0, 0, 0, uint8_t(kButtonCrouch)};
  return c;
}

// Writes a base-less snapshot of `view` (ascending id) with `neighbours`; returns the message.
std::vector<uint8_t> write(const std::vector<RemoteState>& view, const std::vector<SnapshotNeighbour>& neighbours) {
  SnapshotHeader h;
  h.tick = h.received_through = 500;
  SnapshotWriter w;
  w.begin(h, {}, 1);
  for (const RemoteState& r : view) w.add(r);
  w.neighbours(neighbours);
  std::vector<uint8_t> out(1500);
  PoseView written;
  const auto bytes = w.finish(out, written);
  return {bytes.begin(), bytes.end()};
}

SnapshotError read(const std::vector<uint8_t>& message, std::vector<SnapshotNeighbour>& neighbours) {
  SnapshotHeader h;
  RemoteView view;
  std::vector<uint32_t> changed;
  return read_snapshot(message, 500, 1, {}, h, view, changed, nullptr, &neighbours);
}

void expect_same(const SnapshotNeighbour& got, const SnapshotNeighbour& sent) {
  EXPECT_EQ(got.id, sent.id);
  CharacterState expected = sent.state;
  expected.platform_offset = {};
  EXPECT_EQ(got.state, expected) << "every field but the platform offset, exact";
  EXPECT_EQ(got.offset_residual, sent.offset_residual);
  EXPECT_TRUE(got.input.same_command(sent.input));
  ASSERT_EQ(got.ahead_count, sent.ahead_count);
  for (int i = 0; i < sent.ahead_count; ++i) EXPECT_TRUE(got.ahead[size_t(i)].same_command(sent.ahead[size_t(i)])) << i;
}

TEST(SnapshotNeighbours, EveryFieldRoundTripsExactlyAndCostsWhatNeighbourBitsSays) {
  const Character a = walker(4), b = unusual(9), c = walker(30);
  const std::vector<RemoteState> view{a.shown(), b.shown(), c.shown()};
  const auto none = write(view, {});
  const auto two = write(view, {a.full, b.full});
  std::vector<SnapshotNeighbour> got;
  ASSERT_EQ(read(two, got), SnapshotError::kNone);
  ASSERT_EQ(got.size(), 2u);
  expect_same(got[0], a.full);
  expect_same(got[1], b.full);
  ASSERT_EQ(read(none, got), SnapshotError::kNone);
  EXPECT_TRUE(got.empty());
  // The section's bits, rounded up to whole bytes with the rest of the message.
  const std::size_t section = kNeighboursSectionBits + neighbour_bits(a.full) + neighbour_bits(b.full);
  EXPECT_GE(two.size() * 8, none.size() * 8 - 7 + section);
  EXPECT_LE(two.size() * 8, none.size() * 8 + section + 7);
  EXPECT_LE(neighbour_bits(a.full), 14u * 8) << "a walking neighbour: about 14 bytes at most";
}

TEST(SnapshotNeighbours, OneTheViewDoesNotShowAsItIsIsLeftOut) {
  Character a = walker(4), b = walker(9), c = walker(12);
  RemoteState stale = b.shown();
  stale.x -= 1;  // the entry is a step behind
  const std::vector<RemoteState> view{a.shown(), stale};
  std::vector<SnapshotNeighbour> got;
  // b's entry is stale, c is not in the view at all: only a goes.
  ASSERT_EQ(read(write(view, {a.full, b.full, c.full}), got), SnapshotError::kNone);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].id, 4u);
  // Nor does one whose posture the entry does not show.
  Character crouched = walker(4);
  crouched.full.state.crouched = true;
  ASSERT_EQ(read(write(view, {crouched.full}), got), SnapshotError::kNone);
  EXPECT_TRUE(got.empty());
}

TEST(SnapshotNeighbours, AtMostEightAreWritten) {
  std::vector<RemoteState> view;
  std::vector<SnapshotNeighbour> all;
  for (uint32_t id = 1; id <= 10; ++id) {
    const Character c = walker(id);
    view.push_back(c.shown());
    all.push_back(c.full);
  }
  std::vector<SnapshotNeighbour> got;
  ASSERT_EQ(read(write(view, all), got), SnapshotError::kNone);
  ASSERT_EQ(got.size(), kMaxSnapshotNeighbours);
  EXPECT_EQ(got.back().id, 8u) << "the first eight given";
}

// The bit of the stream at `i` (the writer fills each byte from its lowest bit).
bool bit(const std::vector<uint8_t>& m, std::size_t i) { return (m[i / 8] >> (i % 8)) & 1; }
void set_bits(std::vector<uint8_t>& m, std::size_t at, uint32_t value, int count) {
  for (int k = 0; k < count; ++k) {
    const std::size_t i = at + std::size_t(k);
    m[i / 8] = uint8_t((m[i / 8] & ~(1u << (i % 8))) | (((value >> k) & 1u) << (i % 8)));
  }
}

TEST(SnapshotNeighbours, AnIndexOutOfOrderOrPastTheViewAndATruncatedSectionAreRefused) {
  const Character a = walker(4), b = walker(9);
  const std::vector<RemoteState> view{a.shown(), b.shown()};
  const auto none = write(view, {});
  const auto two = write(view, {a.full, b.full});
  // The section starts where the two messages part: the bit that says whether neighbours follow.
  std::size_t at = 0;
  while (bit(none, at) == bit(two, at)) ++at;
  ASSERT_TRUE(bit(two, at));
  const std::size_t first_index = at + 1 + kNeighboursSectionBits;
  const std::size_t second_index = first_index + neighbour_bits(a.full);
  std::vector<SnapshotNeighbour> got;
  auto refused = [&](std::size_t where, uint32_t value) {
    std::vector<uint8_t> m = two;
    set_bits(m, where, value, 6);
    return read(m, got);
  };
  ASSERT_EQ(refused(second_index, 1), SnapshotError::kNone) << "the offsets are right: index 1 as written";
  EXPECT_EQ(refused(second_index, 0), SnapshotError::kBadValue) << "the same entry twice";
  EXPECT_EQ(refused(first_index, 1), SnapshotError::kBadValue) << "out of order";
  EXPECT_EQ(refused(second_index, 2), SnapshotError::kBadValue) << "past the view";
  std::vector<uint8_t> cut = two;
  cut.resize(cut.size() - 2);
  EXPECT_EQ(read(cut, got), SnapshotError::kMalformed);
  // A count of three with two written reads past the end.
  std::vector<uint8_t> more = two;
  set_bits(more, at + 1, 2, int(kNeighboursSectionBits));
  EXPECT_NE(read(more, got), SnapshotError::kNone);
}

}  // namespace
}  // namespace foothold::proto
