#include "proto/compact.h"

#include <algorithm>
#include <bit>

#include "proto/bits.h"
#include "shared/character_contacts.h"

namespace foothold::proto {

namespace {

// Field widths (WIRE_FORMAT.md, "Compact messages").
constexpr int kKindBits = 2;
constexpr int kTickBits = 16;
constexpr int kMaskGroup = 8;      // masks: mostly 0 (9 bits), a lone recent bit 9 bits too
constexpr int kSmallGroup = 3;     // input offsets, base offsets, counts
constexpr int kLeadGroup = 2;      // the lead's difference from received_through (mostly 0)
constexpr int kDelayGroup = 4;     // echo delay in 100 us units
constexpr int kPlatformGroup = 4;
constexpr int kFirstIdGroup = 7;
constexpr int kIdGapGroup = 4;
constexpr int kClientIdLowGroup = 7;   // a client id's low 32 bits: small ids in a byte
constexpr int kClientIdHighGroup = 3;  // and its high ones: mostly 0
constexpr int kGroundBits = 3;
constexpr uint32_t kDelayUnitUs = 100;
constexpr uint32_t kMaxDelayUnits = 1u << 20;  // 105 s: any longer delay is reported as this
constexpr int kProfileGroup = 4;   // the own state's movement profile: 0 to kMaxProfiles in one group
constexpr int kAttributeCountBits = 5;  // attributes carried, minus 1 (1 to 32)
constexpr int kAttributeSlotBits = 5;
constexpr int kAttributeClassBits = 2;
// An attribute's zigzagged value in the fewest of these bits that hold it: most game numbers
// (scores, flags, timers in seconds) are small.
constexpr int kAttributeValueBits[4] = {4, 8, 16, 32};
static_assert(kAttributeSlots == 1 << kAttributeSlotBits && kAttributeSlots == 1 << kAttributeCountBits);
constexpr int kSeenCountBits = 6;       // characters in the seen attributes' section, minus 1 (1 to 48)
constexpr int kSeenIndexBits = 6;       // a character's entry in the view (below kMaxViewSize)
constexpr int kSeenAttributeBits = 4;   // a character attribute's index; and a character's count minus 1
static_assert(kCharacterAttributes == 1 << kSeenAttributeBits && kMaxViewSize <= (1u << kSeenCountBits) &&
              kMaxViewSize <= (1u << kSeenIndexBits) && kSeenSectionBits == kSeenCountBits &&
              kSeenCharacterBits == kSeenIndexBits + kSeenAttributeBits);
constexpr int kNeighbourIndexBits = 6;   // its entry in the view (below kMaxViewSize)
constexpr int kNeighbourCountBits = 3;   // neighbours minus 1 (1 to kMaxSnapshotNeighbours)
constexpr int kVelocityGroup = 6;        // a velocity axis, zigzagged: walking speeds take 3 or 4 groups
constexpr int kResidualGroup = 2;        // a platform offset's residual, zigzagged: mostly 0 or 1
constexpr int kClassBits = 2;            // the floor normal's and the air ticks' common cases
constexpr int kInputAxisBits = 8;
constexpr int kButtonBits = 2;
static_assert(kKnownButtons < (1u << kButtonBits));
static_assert(kMaxViewSize <= (1u << kNeighbourIndexBits) && kMaxSnapshotNeighbours == (1u << kNeighbourCountBits) &&
              kNeighboursSectionBits == kNeighbourCountBits);

void put_kind(BitWriter& w, CompactKind k) { w.put(uint32_t(k), kKindBits); }

std::size_t platform_bits(uint16_t p) { return 1 + (p ? std::size_t(var_bits(p, kPlatformGroup)) : 0); }
void put_platform(BitWriter& w, uint16_t p) {
  w.put_bool(p != 0);
  if (p) w.put_var(p, kPlatformGroup);
}
bool get_platform(BitReader& r, uint16_t& p) {
  p = 0;
  if (!r.get_bool()) return true;
  const uint32_t v = r.get_var(kPlatformGroup);
  if (v == 0 || v > 0xffff) return false;
  p = uint16_t(v);
  return true;
}

std::size_t posture_bits(const RemoteState& s) { return kGroundBits + 1 + platform_bits(s.platform); }
void put_posture(BitWriter& w, const RemoteState& s) {
  w.put(s.ground, kGroundBits);
  w.put_bool(s.crouched);
  put_platform(w, s.platform);
}
bool get_posture(BitReader& r, RemoteState& s) {
  s.ground = uint8_t(r.get(kGroundBits));
  s.crouched = r.get_bool();
  return get_platform(r, s.platform) && s.ground < kGroundKindCount;
}

// Differences of 1/256 m coordinates, which lie in [-2^29, 2^29): they fit an int32.
int32_t diff(int32_t a, int32_t b) { return int32_t(int64_t(a) - int64_t(b)); }
bool in_range(int64_t v) { return v >= -kRemoteCoordLimit && v < kRemoteCoordLimit; }

// An update's bits before its posture: 0 (not removed), the three deltas (put_delta()'s code) and
// whether the posture is the base's. Gathered into one word and written at once when no delta needs
// 32 value bits (then at most 62 bits): a walking character's update is about 20 bits, and the
// three put_delta() calls alone were 6% of a 2,000-client tick's samples.
void put_move(BitWriter& w, int32_t dx, int32_t dy, int32_t dz, bool same_posture) {
  uint64_t word = 0;
  int bits = 1;
  for (const int32_t d : {dx, dy, dz}) {
    const uint32_t z = zigzag(d);
    const DeltaCode& code = delta_code(z);
    if (code.value_bits == 32) {  // a jump across the world: field by field
      w.put_bool(false);
      w.put_delta(dx);
      w.put_delta(dy);
      w.put_delta(dz);
      w.put_bool(same_posture);
      return;
    }
    word |= (uint64_t(code.prefix) | (uint64_t(z) << code.prefix_bits)) << bits;
    bits += code.prefix_bits + code.value_bits;
  }
  word |= uint64_t(same_posture) << bits;
  w.put_wide(word, bits + 1);
}

std::size_t velocity_bits(int32_t v) { return 1 + (v != 0 ? std::size_t(var_bits(zigzag(v), kVelocityGroup)) : 0); }
void put_velocity(BitWriter& w, int32_t v) {
  w.put_bool(v != 0);
  if (v != 0) w.put_var(zigzag(v), kVelocityGroup);
}
int32_t get_velocity(BitReader& r) { return r.get_bool() ? unzigzag(r.get_var(kVelocityGroup)) : 0; }

// A game's push (CharacterState::push, WIRE_FORMAT.md "Pushes"): a bit, and while it is not zero its
// x and z as velocities (its y is always 0, and a reader makes it so).
void put_push(BitWriter& w, const FixedVec3& p) {
  w.put_bool(p != FixedVec3{});
  if (p == FixedVec3{}) return;
  put_velocity(w, p.x);
  put_velocity(w, p.z);
}
// False for a push marked present that is zero (one encoding per state).
bool get_push(BitReader& r, FixedVec3& p) {
  p = {};
  if (!r.get_bool()) return true;
  p.x = get_velocity(r);
  p.z = get_velocity(r);
  return p != FixedVec3{};
}
std::size_t push_bits(const FixedVec3& p) {
  return 1 + (p != FixedVec3{} ? velocity_bits(p.x) + velocity_bits(p.z) : 0);
}

// The own state's fixed bits: all but the profile (a var(4)) and the platform offset (only on a platform).
constexpr std::size_t kOwnStateBits = 3 * 32 + 3 * 32 + 3 * 16 + kGroundBits + 8 + 8 + 1 + 1 + 1 + 16;
constexpr std::size_t kPlatformOffsetBits = 3 * 32;

void put_own(BitWriter& w, const CharacterState& s) {
  for (int32_t v : {s.position.x, s.position.y, s.position.z, s.velocity.x, s.velocity.y, s.velocity.z}) w.put(uint32_t(v), 32);
  for (int16_t v : {s.floor_normal.x, s.floor_normal.y, s.floor_normal.z}) w.put(uint16_t(v), 16);
  w.put(uint32_t(s.ground), kGroundBits);
  w.put(s.air_ticks, 8);
  w.put(s.jump_buffer, 8);
  w.put_bool(s.jump_held);
  w.put_bool(s.crouched);
  w.put_bool(s.frozen);
  w.put_var(s.profile, kProfileGroup);
  w.put(s.platform, 16);
  if (s.platform)
    for (int32_t v : {s.platform_offset.x, s.platform_offset.y, s.platform_offset.z}) w.put(uint32_t(v), 32);
  put_push(w, s.push);
}
bool get_own(BitReader& r, CharacterState& s) {
  auto i32 = [&] { return int32_t(r.get(32)); };
  auto i16 = [&] { return int16_t(uint16_t(r.get(16))); };
  s.position = {i32(), i32(), i32()};
  s.velocity = {i32(), i32(), i32()};
  s.floor_normal = {i16(), i16(), i16()};
  const uint32_t ground = r.get(kGroundBits);
  s.ground = ground < kGroundKindCount ? GroundKind(ground) : GroundKind::kNone;
  s.air_ticks = uint8_t(r.get(8));
  s.jump_buffer = uint8_t(r.get(8));
  s.jump_held = r.get_bool();
  s.crouched = r.get_bool();
  s.frozen = r.get_bool();
  const uint32_t profile = r.get_var(kProfileGroup);
  s.profile = uint8_t(profile <= uint32_t(kMaxProfiles) ? profile : 0);
  s.platform = uint16_t(r.get(16));
  s.platform_offset = {};
  if (s.platform) s.platform_offset = {i32(), i32(), i32()};
  const bool push_ok = get_push(r, s.push);
  return ground < kGroundKindCount && profile <= uint32_t(kMaxProfiles) && push_ok;
}

std::size_t own_state_bits(const CharacterState& s) {
  return kOwnStateBits + std::size_t(var_bits(s.profile, kProfileGroup)) + (s.platform ? kPlatformOffsetBits : 0) +
         push_bits(s.push);
}

// One input's command (its tick aside), as the inputs message writes it.
constexpr std::size_t kInputBits = 2 * kInputAxisBits + kButtonBits;
constexpr int kAheadCountBits = 3;
static_assert(kMaxInputsAhead == (1u << kAheadCountBits) - 1);
void put_input(BitWriter& w, const InputCmd& in) {
  w.put(uint8_t(in.move_x), kInputAxisBits);
  w.put(uint8_t(in.move_z), kInputAxisBits);
  w.put(in.buttons & kKnownButtons, kButtonBits);
}
// False for a command from_wire() would have changed: -128 on an axis (read as -127).
bool get_input(BitReader& r, InputCmd& in) {
  in.move_x = int8_t(uint8_t(r.get(kInputAxisBits)));
  in.move_z = int8_t(uint8_t(r.get(kInputAxisBits)));
  in.buttons = uint8_t(r.get(kButtonBits));
  return in.move_x != -128 && in.move_z != -128 && (in.buttons & ~kKnownButtons) == 0;
}

// --- a neighbour given in full (WIRE_FORMAT.md, "Neighbours") ---
// Its view entry already says where it is to 1/256 m, its ground, posture and platform: the wire
// adds the position's low bits, the velocity, the floor normal, the jump and air timers, the flags,
// the profile, the platform offset's residual and the input.
constexpr FixedNormal kUp{0, int16_t(kNormalScale), 0};
enum : uint32_t { kNormalZero = 0, kNormalUp = 1, kNormalOther = 2 };
enum : uint32_t { kAirNone = 0, kAirLong = 1, kAirOther = 2 };

uint32_t normal_class(const FixedNormal& n) {
  if (n == FixedNormal{}) return kNormalZero;
  return n == kUp ? kNormalUp : kNormalOther;
}
uint32_t air_class(uint8_t air) { return air == 0 ? kAirNone : air == 255 ? kAirLong : kAirOther; }

// A view's coordinates are the published position's (proto::kRemoteShift, codec.h): 1/256 m.
constexpr int kViewShift = kPublishedShift;
constexpr int32_t kLowMask = (int32_t(1) << kViewShift) - 1;

// The neighbour's bits after its index.
void put_neighbour(BitWriter& w, const SnapshotNeighbour& n) {
  const CharacterState& s = n.state;
  for (const int32_t v : {s.position.x, s.position.y, s.position.z}) w.put(uint32_t(v & kLowMask), kViewShift);
  for (const int32_t v : {s.velocity.x, s.velocity.y, s.velocity.z}) put_velocity(w, v);
  const uint32_t normal = normal_class(s.floor_normal);
  w.put(normal, kClassBits);
  if (normal == kNormalOther)
    for (const int16_t v : {s.floor_normal.x, s.floor_normal.y, s.floor_normal.z}) w.put(uint16_t(v), 16);
  const uint32_t air = air_class(s.air_ticks);
  w.put(air, kClassBits);
  if (air == kAirOther) w.put(s.air_ticks, 8);
  w.put_bool(s.jump_buffer != 255);
  if (s.jump_buffer != 255) w.put(s.jump_buffer, 8);
  w.put_bool(s.jump_held);
  w.put_bool(s.frozen);
  w.put_bool(s.profile != 0);
  if (s.profile != 0) w.put_var(s.profile, kProfileGroup);
  if (s.platform != 0)
    for (const int32_t v : {n.offset_residual.x, n.offset_residual.y, n.offset_residual.z}) w.put_var(zigzag(v), kResidualGroup);
  put_push(w, s.push);
  put_input(w, n.input);
  // The inputs ahead, each after a bit that says whether it repeats the one before.
  const std::size_t ahead = std::min<std::size_t>(n.ahead_count, kMaxInputsAhead);
  w.put(uint32_t(ahead), kAheadCountBits);
  for (std::size_t i = 0; i < ahead; ++i) {
    const bool same = n.ahead[i].same_command(i == 0 ? n.input : n.ahead[i - 1]);
    w.put_bool(same);
    if (!same) put_input(w, n.ahead[i]);
  }
}

// Reads what put_neighbour() wrote for the character `entry` of the view; false when a value is out
// of its range.
bool get_neighbour(BitReader& r, const RemotePose& entry, SnapshotNeighbour& n) {
  n = SnapshotNeighbour{};
  n.id = entry.id;
  CharacterState& s = n.state;
  auto exact = [&](int32_t coarse) { return int32_t(uint32_t(coarse) << kViewShift) | int32_t(r.get(kViewShift)); };
  const int32_t x = exact(entry.x), y = exact(entry.y), z = exact(entry.z);
  s.position = {x, y, z};
  s.velocity = {get_velocity(r), get_velocity(r), get_velocity(r)};
  const uint32_t normal = r.get(kClassBits);
  if (normal == kNormalUp) s.floor_normal = kUp;
  if (normal == kNormalOther) {
    auto i16 = [&] { return int16_t(uint16_t(r.get(16))); };
    s.floor_normal = {i16(), i16(), i16()};
  }
  const uint32_t air = r.get(kClassBits);
  s.air_ticks = air == kAirNone ? 0 : air == kAirLong ? 255 : uint8_t(r.get(8));
  const bool buffered = r.get_bool();
  s.jump_buffer = buffered ? uint8_t(r.get(8)) : 255;
  s.jump_held = r.get_bool();
  s.frozen = r.get_bool();
  const bool profiled = r.get_bool();
  const uint32_t profile = profiled ? r.get_var(kProfileGroup) : 0;
  s.profile = uint8_t(profile <= uint32_t(kMaxProfiles) ? profile : 0);
  s.ground = GroundKind(entry.ground);
  s.crouched = entry.crouched;
  s.platform = entry.platform;
  if (s.platform != 0) {
    auto residual = [&] { return unzigzag(r.get_var(kResidualGroup)); };
    n.offset_residual = {residual(), residual(), residual()};
  }
  const bool push_ok = get_push(r, s.push);
  bool inputs_ok = get_input(r, n.input) && push_ok;
  n.ahead_count = uint8_t(r.get(kAheadCountBits));
  for (std::size_t i = 0; i < n.ahead_count; ++i) {
    const InputCmd& before = i == 0 ? n.input : n.ahead[i - 1];
    if (r.get_bool()) {
      n.ahead[i] = before;
    } else {
      inputs_ok = get_input(r, n.ahead[i]) && inputs_ok;
      inputs_ok = inputs_ok && !n.ahead[i].same_command(before);  // a repeat has its own code
    }
  }
  // One encoding per state and input: a class's spare code, a common value spelled out in full, a
  // buffer of 255 or a profile of 0 marked present, and -128 (which from_wire() reads as -127) are
  // refused.
  const bool normal_ok = normal <= kNormalOther && (normal != kNormalOther || normal_class(s.floor_normal) == kNormalOther);
  const bool air_ok = air <= kAirOther && (air != kAirOther || air_class(s.air_ticks) == kAirOther);
  return normal_ok && air_ok && (!buffered || s.jump_buffer != 255) &&
         (!profiled || (profile != 0 && profile <= uint32_t(kMaxProfiles))) && inputs_ok;
}

std::size_t neighbour_bits_after_index(const SnapshotNeighbour& n) {
  const CharacterState& s = n.state;
  std::size_t bits = 3 * kViewShift + velocity_bits(s.velocity.x) + velocity_bits(s.velocity.y) + velocity_bits(s.velocity.z);
  bits += kClassBits + (normal_class(s.floor_normal) == kNormalOther ? 3 * 16 : 0);
  bits += kClassBits + (air_class(s.air_ticks) == kAirOther ? 8 : 0);
  bits += 1 + (s.jump_buffer != 255 ? 8 : 0) + 2;
  bits += 1 + (s.profile != 0 ? std::size_t(var_bits(s.profile, kProfileGroup)) : 0);
  if (s.platform != 0)
    for (const int32_t v : {n.offset_residual.x, n.offset_residual.y, n.offset_residual.z})
      bits += std::size_t(var_bits(zigzag(v), kResidualGroup));
  bits += push_bits(s.push);
  bits += kInputBits + kAheadCountBits;
  for (std::size_t i = 0; i < std::min<std::size_t>(n.ahead_count, kMaxInputsAhead); ++i)
    bits += 1 + (n.ahead[i].same_command(i == 0 ? n.input : n.ahead[i - 1]) ? 0 : kInputBits);
  return bits;
}

// The size class of an attribute's zigzagged value: the fewest bits of kAttributeValueBits that hold it.
int attribute_class(uint32_t zigzagged) {
  int c = 0;
  while (c < 3 && (zigzagged >> kAttributeValueBits[c]) != 0) ++c;
  return c;
}

std::size_t attributes_bits(const SnapshotHeader& h) {
  std::size_t bits = 1;
  if (h.attribute_mask == 0) return bits;
  bits += kAttributeCountBits;
  for (int slot = 0; slot < kAttributeSlots; ++slot)
    if ((h.attribute_mask >> slot) & 1) bits += attribute_bits(h.attribute_values[std::size_t(slot)]);
  return bits;
}

// The attributes section: a presence bit; then the count minus 1, and per attribute, by ascending
// slot, the slot, the value's size class and the zigzagged value in that class's bits.
void put_attributes(BitWriter& w, const SnapshotHeader& h) {
  w.put_bool(h.attribute_mask != 0);
  if (h.attribute_mask == 0) return;
  w.put(uint32_t(std::popcount(h.attribute_mask) - 1), kAttributeCountBits);
  for (int slot = 0; slot < kAttributeSlots; ++slot) {
    if (!((h.attribute_mask >> slot) & 1)) continue;
    const uint32_t z = zigzag(h.attribute_values[std::size_t(slot)]);
    const int c = attribute_class(z);
    w.put(uint32_t(slot), kAttributeSlotBits);
    w.put(uint32_t(c), kAttributeClassBits);
    w.put(z, kAttributeValueBits[c]);
  }
}
// Slots must ascend (each once) and each value be in its smallest class: one encoding per set of
// attributes, anything else refused.
SnapshotError get_attributes(BitReader& r, SnapshotHeader& h) {
  if (!r.get_bool()) return SnapshotError::kNone;
  const uint32_t count = r.get(kAttributeCountBits) + 1;
  int previous = -1;
  for (uint32_t i = 0; i < count; ++i) {
    const int slot = int(r.get(kAttributeSlotBits));
    const int c = int(r.get(kAttributeClassBits));
    const uint32_t z = r.get(kAttributeValueBits[c]);
    if (!r.ok()) return SnapshotError::kMalformed;
    if (slot <= previous || attribute_class(z) != c) return SnapshotError::kBadValue;
    previous = slot;
    h.attribute_mask |= 1u << slot;
    h.attribute_values[std::size_t(slot)] = unzigzag(z);
  }
  return SnapshotError::kNone;
}

// The movers section: a presence bit; then the count minus 1, and per mover, by ascending index:
// the index, how many ticks before the snapshot's its segment starts, its phase (zigzagged, 64 bits
// in two numbers), its rate, and whether it has a target and how far that is from the phase.
constexpr int kMoverCountBits = 2;
constexpr int kMoverIndexGroup = 4;
constexpr int kMoverBackGroup = 5;
constexpr int kPhaseLowGroup = 8;
constexpr int kPhaseHighGroup = 3;
constexpr int kRateGroup = 6;
static_assert(kMaxSnapshotMovers == 1u << kMoverCountBits);

constexpr uint64_t zigzag64(int64_t v) { return (uint64_t(v) << 1) ^ uint64_t(v >> 63); }
constexpr int64_t unzigzag64(uint64_t u) { return int64_t((u >> 1) ^ (0 - (u & 1))); }
int wide_bits(int64_t v) {
  const uint64_t z = zigzag64(v);
  return var_bits(uint32_t(z), kPhaseLowGroup) + var_bits(uint32_t(z >> 32), kPhaseHighGroup);
}
void put_wide_var(BitWriter& w, int64_t v) {
  const uint64_t z = zigzag64(v);
  w.put_var(uint32_t(z), kPhaseLowGroup);
  w.put_var(uint32_t(z >> 32), kPhaseHighGroup);
}
int64_t get_wide_var(BitReader& r) {
  const uint64_t low = r.get_var(kPhaseLowGroup);
  const uint64_t high = r.get_var(kPhaseHighGroup);
  return unzigzag64(high << 32 | low);
}

std::size_t movers_bits(const SnapshotHeader& h) {
  std::size_t bits = 1;
  if (h.mover_count == 0) return bits;
  bits += kMoverCountBits;
  for (std::size_t i = 0; i < h.mover_count; ++i) bits += mover_bits(h.movers[i], h.tick);
  return bits;
}

void put_movers(BitWriter& w, const SnapshotHeader& h) {
  w.put_bool(h.mover_count != 0);
  if (h.mover_count == 0) return;
  w.put(uint32_t(h.mover_count - 1), kMoverCountBits);
  for (std::size_t i = 0; i < h.mover_count; ++i) {
    const MoverUpdate& m = h.movers[i];
    w.put_var(m.index, kMoverIndexGroup);
    w.put_var(h.tick - m.segment.from_tick, kMoverBackGroup);
    put_wide_var(w, m.segment.phase);
    w.put_var(zigzag(m.segment.rate), kRateGroup);
    w.put_bool(m.segment.has_target);
    if (m.segment.has_target) put_wide_var(w, m.segment.target - m.segment.phase);
  }
}

// Indices must ascend (each once), a segment start no later than the snapshot and within 2^31 ticks
// of it, and every segment pass segment_problem().
SnapshotError get_movers(BitReader& r, SnapshotHeader& h) {
  if (!r.get_bool()) return SnapshotError::kNone;
  h.mover_count = uint8_t(r.get(kMoverCountBits) + 1);
  int64_t previous = -1;
  for (std::size_t i = 0; i < h.mover_count; ++i) {
    MoverUpdate& m = h.movers[i];
    const uint32_t index = r.get_var(kMoverIndexGroup);
    const uint32_t back = r.get_var(kMoverBackGroup);
    m.segment.phase = get_wide_var(r);
    m.segment.rate = unzigzag(r.get_var(kRateGroup));
    m.segment.has_target = r.get_bool();
    const int64_t to_target = m.segment.has_target ? get_wide_var(r) : 0;
    if (!r.ok()) return SnapshotError::kMalformed;
    if (int64_t(index) <= previous || index > 0xffff || back > 0x7fffffffu) return SnapshotError::kBadValue;
    if (to_target > 2 * kMaxMoverPhase || to_target < -2 * kMaxMoverPhase) return SnapshotError::kBadValue;
    previous = index;
    m.index = uint16_t(index);
    m.segment.from_tick = h.tick - back;
    m.segment.target = m.segment.has_target ? m.segment.phase + to_target : 0;
    if (!segment_problem(m.segment).empty()) return SnapshotError::kBadValue;
  }
  return SnapshotError::kNone;
}

// A character's seen attributes after its view index: the count minus 1, then per attribute, by
// ascending index, the index, the size class and the zigzagged value (as the attributes section).
void put_seen_values(BitWriter& w, const SeenAttributes& s) {
  w.put(uint32_t(std::popcount(s.mask) - 1), kSeenAttributeBits);
  for (int i = 0; i < kCharacterAttributes; ++i) {
    if (!((s.mask >> i) & 1)) continue;
    const uint32_t z = zigzag(s.values[std::size_t(i)]);
    const int c = attribute_class(z);
    w.put(uint32_t(i), kSeenAttributeBits);
    w.put(uint32_t(c), kAttributeClassBits);
    w.put(z, kAttributeValueBits[c]);
  }
}
// Indices must ascend (each once) and each value be in its smallest class, as in the attributes section.
bool get_seen_values(BitReader& r, SeenAttributes& s) {
  const uint32_t count = r.get(kSeenAttributeBits) + 1;
  int previous = -1;
  for (uint32_t i = 0; i < count; ++i) {
    const int index = int(r.get(kSeenAttributeBits));
    const int c = int(r.get(kAttributeClassBits));
    const uint32_t z = r.get(kAttributeValueBits[c]);
    if (!r.ok() || index <= previous || attribute_class(z) != c) return false;
    previous = index;
    s.mask = uint16_t(s.mask | (1u << index));
    s.values[std::size_t(index)] = unzigzag(z);
  }
  return true;
}

uint32_t delay_units(uint32_t us) {
  return uint32_t(std::min<uint64_t>(kMaxDelayUnits, (uint64_t(us) + kDelayUnitUs / 2) / kDelayUnitUs));
}

}  // namespace

CompactKind compact_kind(std::span<const uint8_t> message) {
  return message.empty() ? CompactKind(0) : CompactKind(message[0] & ((1u << kKindBits) - 1));
}

uint32_t widen_tick(uint16_t low, uint32_t reference) {
  return reference + uint32_t(int32_t(int16_t(uint16_t(low - uint16_t(reference)))));
}

// --- snapshots --------------------------------------------------------------------------------

std::size_t attribute_bits(int32_t value) {
  return std::size_t(kAttributeSlotBits + kAttributeClassBits + kAttributeValueBits[attribute_class(zigzag(value))]);
}

std::size_t seen_attribute_bits(int32_t value) {
  return std::size_t(kSeenAttributeBits + kAttributeClassBits + kAttributeValueBits[attribute_class(zigzag(value))]);
}

std::size_t mover_bits(const MoverUpdate& m, uint32_t tick) {
  const MoverSegment& s = m.segment;
  return std::size_t(var_bits(m.index, kMoverIndexGroup) + var_bits(tick - s.from_tick, kMoverBackGroup) +
                     wide_bits(s.phase) + var_bits(zigzag(s.rate), kRateGroup) + 1 +
                     (s.has_target ? wide_bits(s.target - s.phase) : 0));
}

std::size_t snapshot_header_bits(const SnapshotHeader& h, uint32_t interval, std::size_t base_size) {
  const bool masks = h.repeated_mask != 0 || h.interaction_mask != 0 || h.server_mask != 0;
  const uint32_t received = h.received_through - h.tick;
  std::size_t bits = kKindBits + kTickBits + 1;
  if (masks)
    bits += std::size_t(var_bits(h.repeated_mask, kMaskGroup) + var_bits(h.interaction_mask, kMaskGroup) +
                        var_bits(h.server_mask, kMaskGroup));
  bits += std::size_t(var_bits(received, kSmallGroup));
  bits += std::size_t(var_bits(zigzag(int32_t(h.input_lead) - int32_t(received)), kLeadGroup));
  bits += std::size_t(var_bits(delay_units(h.echo_delay_us), kDelayGroup));
  bits += 1 + (h.has_own_state ? own_state_bits(h.own) : 32);
  bits += attributes_bits(h);
  bits += movers_bits(h);
  bits += 1;
  if (h.base_tick != 0) bits += std::size_t(var_bits((h.tick - h.base_tick) / interval, kSmallGroup)) + base_size;
  bits += std::size_t(var_bits(kMaxViewSize, kSmallGroup));  // the additions' count, at most
  return bits + 1 + 1;  // whether neighbours follow, whether seen attributes follow
}

std::size_t change_bits(const RemotePose& base, const RemoteState* now) {
  if (!now) return 2;  // removed, and why
  std::size_t bits = 1 + std::size_t(delta_bits(diff(now->x, base.x)) + delta_bits(diff(now->y, base.y)) +
                                     delta_bits(diff(now->z, base.z)));
  const bool same_posture = now->ground == base.ground && now->crouched == base.crouched && now->platform == base.platform;
  return bits + 1 + (same_posture ? 0 : posture_bits(*now));
}

std::size_t neighbour_bits(const SnapshotNeighbour& n) { return kNeighbourIndexBits + neighbour_bits_after_index(n); }

std::size_t addition_bits(const RemoteState& now) {
  return std::size_t(var_bits(now.id, kFirstIdGroup) + delta_bits(now.x) + delta_bits(now.y) + delta_bits(now.z) +
                     (now.npc ? 0 : var_bits(uint32_t(now.client_id), kClientIdLowGroup) +
                                    var_bits(uint32_t(now.client_id >> 32), kClientIdHighGroup))) +
         1 + posture_bits(now);  // the bit that says whether it is an NPC (then it has no client id)
}

void SnapshotWriter::begin(const SnapshotHeader& h, std::span<const RemotePose> base, uint32_t interval) {
  header_ = &h;
  base_ = base;
  interval_ = std::max<uint32_t>(1, interval);
  changes_.assign(h.base_tick != 0 ? base.size() : 0, Change{});
  added_.clear();
}

void SnapshotWriter::change(std::size_t index, const RemoteState* now, bool gone) {
  if (index >= changes_.size()) return;
  changes_[index] = {true, now == nullptr, now == nullptr && gone, now};
}

void SnapshotWriter::add(const RemoteState& now) { added_.push_back(now); }

std::span<const uint8_t> SnapshotWriter::finish(std::span<uint8_t> out, PoseView& view) {
  const SnapshotHeader& h = *header_;
  BitWriter w(out);
  put_kind(w, CompactKind::kSnapshot);
  w.put(h.tick & 0xffff, kTickBits);
  const bool masks = h.repeated_mask != 0 || h.interaction_mask != 0 || h.server_mask != 0;
  w.put_bool(masks);
  if (masks) {
    w.put_var(h.repeated_mask, kMaskGroup);
    w.put_var(h.interaction_mask, kMaskGroup);
    w.put_var(h.server_mask, kMaskGroup);
  }
  const uint32_t received = h.received_through - h.tick;
  w.put_var(received, kSmallGroup);
  w.put_var(zigzag(int32_t(h.input_lead) - int32_t(received)), kLeadGroup);
  w.put_var(delay_units(h.echo_delay_us), kDelayGroup);
  w.put_bool(h.has_own_state);
  if (h.has_own_state) {
    put_own(w, h.own);
  } else {
    w.put(h.own_digest, 32);
  }
  put_attributes(w, h);
  put_movers(w, h);
  const bool has_base = h.base_tick != 0;
  w.put_bool(has_base);
  view.clear();
  // Room for the most the view can hold, in steps of 8 entries, taken at once: grown by doubling, a
  // view would cost six allocations and hold up to a third more than it needs (a server keeps a
  // round trip's worth of views per client).
  const std::size_t most = base_.size() + added_.size();
  if (view.capacity() < most) view.reserve((most + 7) / 8 * 8);
  if (has_base) {
    w.put_var((h.tick - h.base_tick) / interval_, kSmallGroup);
    // The bitmap, 32 entries a write.
    for (std::size_t i = 0; i < changes_.size(); i += 32) {
      const std::size_t n = std::min<std::size_t>(32, changes_.size() - i);
      uint32_t word = 0;
      for (std::size_t k = 0; k < n; ++k) word |= uint32_t(changes_[i + k].touched) << k;
      w.put(word, int(n));
    }
    for (std::size_t i = 0; i < changes_.size(); ++i) {
      const Change& c = changes_[i];
      const RemotePose& b = base_[i];
      if (!c.touched) {
        view.push_back(b);
        continue;
      }
      if (c.removed) {
        w.put_bool(true);
        w.put_bool(c.gone);
        continue;
      }
      const RemoteState& now = *c.now;
      const bool same_posture = now.ground == b.ground && now.crouched == b.crouched && now.platform == b.platform;
      put_move(w, diff(now.x, b.x), diff(now.y, b.y), diff(now.z, b.z), same_posture);
      if (!same_posture) put_posture(w, now);
      view.push_back(pose_of(now));
      view.back().id = b.id;
    }
  }
  std::sort(added_.begin(), added_.end(), [](const RemoteState& a, const RemoteState& b) { return a.id < b.id; });
  w.put_var(uint32_t(added_.size()), kSmallGroup);
  for (std::size_t i = 0; i < added_.size(); ++i) {
    const RemoteState& a = added_[i];
    if (i == 0) {
      w.put_var(a.id, kFirstIdGroup);
    } else {
      w.put_var(a.id - added_[i - 1].id - 1, kIdGapGroup);
    }
    w.put_delta(a.x);
    w.put_delta(a.y);
    w.put_delta(a.z);
    put_posture(w, a);
    w.put_bool(a.npc);
    if (!a.npc) {
      w.put_var(uint32_t(a.client_id), kClientIdLowGroup);
      w.put_var(uint32_t(a.client_id >> 32), kClientIdHighGroup);
    }
  }
  // The view is the base's survivors (ascending id) merged with the additions (ascending id), from
  // the back so that it needs no other storage.
  const std::size_t kept = view.size();
  view.resize(kept + added_.size());
  std::size_t from_view = kept, from_added = added_.size(), to = view.size();
  while (from_added > 0) {
    if (from_view > 0 && view[from_view - 1].id > added_[from_added - 1].id) {
      view[--to] = view[--from_view];
    } else {
      view[--to] = pose_of(added_[--from_added]);
    }
  }
  put_neighbours(w, view);
  put_seen(w, view);
  return w.finish();
}

void SnapshotWriter::put_seen(BitWriter& w, const PoseView& view) const {
  // Each by its entry in the view just described; one it lacks (or with nothing carried) is left out.
  std::array<std::pair<uint32_t, const SeenAttributes*>, kMaxViewSize> sent;
  std::size_t count = 0;
  for (const SeenAttributes& s : seen_) {
    if (s.mask == 0 || count == sent.size()) continue;
    const auto it = std::lower_bound(view.begin(), view.end(), s.id, [](const RemotePose& p, uint32_t id) { return p.id < id; });
    if (it == view.end() || it->id != s.id) continue;
    const uint32_t index = uint32_t(it - view.begin());
    if (count > 0 && index <= sent[count - 1].first) continue;  // not ascending: the reader would refuse it
    sent[count++] = {index, &s};
  }
  w.put_bool(count > 0);
  if (count == 0) return;
  w.put(uint32_t(count - 1), kSeenCountBits);
  for (std::size_t i = 0; i < count; ++i) {
    w.put(sent[i].first, kSeenIndexBits);
    put_seen_values(w, *sent[i].second);
  }
}

void SnapshotWriter::put_neighbours(BitWriter& w, const PoseView& view) const {
  // Only those the view just described shows as they are: the rest of their state leans on it.
  std::array<std::pair<uint32_t, const SnapshotNeighbour*>, kMaxSnapshotNeighbours> sent;
  std::size_t count = 0;
  for (const SnapshotNeighbour& n : neighbours_.first(std::min(neighbours_.size(), kMaxSnapshotNeighbours))) {
    const CharacterState& s = n.state;
    const RemotePose shown{n.id, s.position.x >> kViewShift, s.position.y >> kViewShift, s.position.z >> kViewShift,
                           uint8_t(s.ground), s.crouched, s.platform};
    const auto it = std::lower_bound(view.begin(), view.end(), n.id, [](const RemotePose& p, uint32_t id) { return p.id < id; });
    if (it != view.end() && *it == shown) sent[count++] = {uint32_t(it - view.begin()), &n};
  }
  w.put_bool(count > 0);
  if (count == 0) return;
  w.put(uint32_t(count - 1), kNeighbourCountBits);
  for (std::size_t i = 0; i < count; ++i) {
    w.put(sent[i].first, kNeighbourIndexBits);
    put_neighbour(w, *sent[i].second);
  }
}

namespace {

SnapshotError read_header(BitReader& r, uint32_t reference_tick, uint32_t interval, SnapshotHeader& h, bool& has_base) {
  h = SnapshotHeader{};
  if (CompactKind(r.get(kKindBits)) != CompactKind::kSnapshot) return SnapshotError::kMalformed;
  h.tick = widen_tick(uint16_t(r.get(kTickBits)), reference_tick);
  if (r.get_bool()) {
    h.repeated_mask = r.get_var(kMaskGroup);
    h.interaction_mask = r.get_var(kMaskGroup);
    h.server_mask = r.get_var(kMaskGroup);
  }
  const uint32_t received = r.get_var(kSmallGroup);
  const int64_t lead = int64_t(unzigzag(r.get_var(kLeadGroup))) + int64_t(received);
  const uint32_t delay = r.get_var(kDelayGroup);
  if (received > 0xffff || lead < INT16_MIN || lead > INT16_MAX || delay > kMaxDelayUnits) return SnapshotError::kBadValue;
  h.received_through = h.tick + received;
  h.input_lead = int16_t(lead);
  h.echo_delay_us = delay * kDelayUnitUs;
  h.has_own_state = r.get_bool();
  if (h.has_own_state) {
    if (!get_own(r, h.own)) return r.ok() ? SnapshotError::kBadValue : SnapshotError::kMalformed;
    h.own_digest = state_digest(h.own);
  } else {
    h.own_digest = r.get(32);
  }
  if (const SnapshotError e = get_attributes(r, h); e != SnapshotError::kNone) return e;
  if (const SnapshotError e = get_movers(r, h); e != SnapshotError::kNone) return e;
  has_base = r.get_bool();
  if (has_base) {
    const uint32_t back = r.get_var(kSmallGroup);
    if (back == 0 || back > 0xffff) return SnapshotError::kBadValue;
    h.base_tick = h.tick - back * std::max<uint32_t>(1, interval);
    if (h.base_tick == 0) return SnapshotError::kBadValue;
  }
  return r.ok() ? SnapshotError::kNone : SnapshotError::kMalformed;
}

// The attributes others see, by their characters' entries in the view just read (ascending, each once).
SnapshotError get_seen(BitReader& r, const RemoteView& view, std::vector<SeenAttributes>* seen) {
  if (!r.get_bool()) return r.ok() ? SnapshotError::kNone : SnapshotError::kMalformed;
  const uint32_t count = r.get(kSeenCountBits) + 1;
  int64_t previous_index = -1;
  for (uint32_t i = 0; i < count; ++i) {
    const uint32_t index = r.get(kSeenIndexBits);
    if (!r.ok()) return SnapshotError::kMalformed;
    if (int64_t(index) <= previous_index || index >= view.size()) return SnapshotError::kBadValue;
    previous_index = index;
    SeenAttributes s;
    s.id = view[index].id;
    if (!get_seen_values(r, s)) return r.ok() ? SnapshotError::kBadValue : SnapshotError::kMalformed;
    if (seen) seen->push_back(s);
  }
  return SnapshotError::kNone;
}

}  // namespace

SnapshotError read_snapshot_header(std::span<const uint8_t> message, uint32_t reference_tick, uint32_t interval,
                                   SnapshotHeader& h) {
  BitReader r(message);
  bool has_base = false;
  return read_header(r, reference_tick, interval, h, has_base);
}

SnapshotError read_snapshot(std::span<const uint8_t> message, uint32_t reference_tick, uint32_t interval,
                            const RemoteView& base, SnapshotHeader& h, RemoteView& view, std::vector<uint32_t>& changed,
                            std::vector<uint32_t>* gone, std::vector<SnapshotNeighbour>* neighbours,
                            std::vector<SeenAttributes>* seen) {
  view.clear();
  changed.clear();
  if (gone) gone->clear();
  if (neighbours) neighbours->clear();
  if (seen) seen->clear();
  BitReader r(message);
  bool has_base = false;
  if (const SnapshotError e = read_header(r, reference_tick, interval, h, has_base); e != SnapshotError::kNone) return e;
  if (has_base) {
    if (base.size() > kMaxViewSize) return SnapshotError::kUnknownBase;
    // The bitmap first, then one change per marked entry, in the base's order.
    uint64_t touched = 0;
    for (std::size_t i = 0; i < base.size(); i += 32) {
      const std::size_t n = std::min<std::size_t>(32, base.size() - i);
      touched |= uint64_t(r.get(int(n))) << i;
    }
    for (std::size_t i = 0; i < base.size(); ++i) {
      const RemoteState& b = base[i];
      if (!((touched >> i) & 1)) {
        view.push_back(b);
        continue;
      }
      if (r.get_bool()) {  // removed: out of view, or gone from the match
        if (r.get_bool() && gone) gone->push_back(b.id);
        continue;
      }
      RemoteState s = b;
      const int64_t x = int64_t(b.x) + r.get_delta(), y = int64_t(b.y) + r.get_delta(), z = int64_t(b.z) + r.get_delta();
      if (!in_range(x) || !in_range(y) || !in_range(z)) return r.ok() ? SnapshotError::kBadValue : SnapshotError::kMalformed;
      s.x = int32_t(x);
      s.y = int32_t(y);
      s.z = int32_t(z);
      if (!r.get_bool() && !get_posture(r, s)) return r.ok() ? SnapshotError::kBadValue : SnapshotError::kMalformed;
      view.push_back(s);
      changed.push_back(s.id);
    }
  }
  const uint32_t added = r.get_var(kSmallGroup);
  if (!r.ok()) return SnapshotError::kMalformed;
  if (added > kMaxViewSize || view.size() + added > kMaxViewSize) return SnapshotError::kTooMany;
  const std::size_t kept = view.size();
  uint32_t previous = 0;
  for (uint32_t i = 0; i < added; ++i) {
    RemoteState s;
    if (i == 0) {
      s.id = r.get_var(kFirstIdGroup);
    } else {
      const uint32_t gap = r.get_var(kIdGapGroup);
      if (gap >= 0xffffffffu - previous) return SnapshotError::kBadValue;
      s.id = previous + gap + 1;
    }
    previous = s.id;
    const int32_t x = r.get_delta(), y = r.get_delta(), z = r.get_delta();
    if (!in_range(x) || !in_range(y) || !in_range(z)) return r.ok() ? SnapshotError::kBadValue : SnapshotError::kMalformed;
    s.x = x;
    s.y = y;
    s.z = z;
    if (!get_posture(r, s)) return r.ok() ? SnapshotError::kBadValue : SnapshotError::kMalformed;
    s.npc = r.get_bool();
    if (!s.npc) {
      const uint32_t low = r.get_var(kClientIdLowGroup);
      s.client_id = uint64_t(r.get_var(kClientIdHighGroup)) << 32 | low;
    }
    // A new character must be new: not one the view still holds.
    const auto it = std::lower_bound(view.begin(), view.begin() + long(kept), s.id,
                                     [](const RemoteState& v, uint32_t id) { return v.id < id; });
    if (s.id == 0 || (it != view.begin() + long(kept) && it->id == s.id)) return SnapshotError::kBadValue;
    view.push_back(s);
    changed.push_back(s.id);
  }
  if (!r.ok()) return SnapshotError::kMalformed;
  std::inplace_merge(view.begin(), view.begin() + long(kept), view.end(),
                     [](const RemoteState& a, const RemoteState& b) { return a.id < b.id; });
  // The changed ones came in the base's order, then the additions: two ascending runs.
  std::inplace_merge(changed.begin(), changed.begin() + long(changed.size() - added), changed.end());
  // The neighbours, by their entries in the view just read (ascending, each once).
  if (r.get_bool()) {
    const uint32_t count = r.get(kNeighbourCountBits) + 1;
    int64_t previous_index = -1;
    for (uint32_t i = 0; i < count; ++i) {
      const uint32_t index = r.get(kNeighbourIndexBits);
      if (!r.ok()) return SnapshotError::kMalformed;
      if (int64_t(index) <= previous_index || index >= view.size()) return SnapshotError::kBadValue;
      previous_index = index;
      SnapshotNeighbour n;
      if (!get_neighbour(r, view[index], n)) return r.ok() ? SnapshotError::kBadValue : SnapshotError::kMalformed;
      if (neighbours) neighbours->push_back(n);
    }
  }
  if (const SnapshotError e = get_seen(r, view, seen); e != SnapshotError::kNone) return e;
  if (!r.finished_cleanly()) return SnapshotError::kMalformed;
  return SnapshotError::kNone;
}

// --- inputs -----------------------------------------------------------------------------------

std::span<const uint8_t> write_inputs(const InputsHeader& h, std::span<const InputCmd> inputs, std::span<uint8_t> out) {
  if (inputs.size() > kMaxCompactInputs) inputs = inputs.last(kMaxCompactInputs);
  BitWriter w(out);
  put_kind(w, CompactKind::kInputs);
  w.put_bool(h.want_state);
  w.put_bool(h.ack_snapshot != 0);
  if (h.ack_snapshot != 0) w.put(h.ack_snapshot & 0xffff, kTickBits);
  w.put(h.newest_tick & 0xffff, kTickBits);
  w.put_var(uint32_t(inputs.size()), kSmallGroup);
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const InputCmd& in = inputs[i];
    if (i > 0) {
      const bool same = in.same_command(inputs[i - 1]);
      w.put_bool(same);
      if (same) continue;
    }
    w.put(uint8_t(in.move_x), kInputAxisBits);
    w.put(uint8_t(in.move_z), kInputAxisBits);
    w.put(in.buttons & kKnownButtons, kButtonBits);
  }
  return w.finish();
}

bool read_inputs(std::span<const uint8_t> message, uint32_t reference_tick, InputsHeader& h, std::vector<InputCmd>& inputs) {
  inputs.clear();
  h = InputsHeader{};
  BitReader r(message);
  if (CompactKind(r.get(kKindBits)) != CompactKind::kInputs) return false;
  h.want_state = r.get_bool();
  if (r.get_bool()) {
    h.ack_snapshot = widen_tick(uint16_t(r.get(kTickBits)), reference_tick);
    if (h.ack_snapshot == 0) return false;
  }
  h.newest_tick = widen_tick(uint16_t(r.get(kTickBits)), reference_tick);
  const uint32_t count = r.get_var(kSmallGroup);
  if (!r.ok() || count > kMaxCompactInputs) return false;
  InputCmd previous;
  for (uint32_t i = 0; i < count; ++i) {
    InputCmd in = previous;
    if (i == 0 || !r.get_bool()) {
      in.move_x = int8_t(uint8_t(r.get(kInputAxisBits)));
      in.move_z = int8_t(uint8_t(r.get(kInputAxisBits)));
      in.buttons = uint8_t(r.get(kButtonBits));
      // As from_wire(): -128 reads as -127; the button bits are the known ones by construction.
      if (in.move_x == -128) in.move_x = -127;
      if (in.move_z == -128) in.move_z = -127;
      in.buttons &= kKnownButtons;
    }
    in.tick = h.newest_tick - (count - 1 - i);
    inputs.push_back(in);
    previous = in;
  }
  return r.finished_cleanly();
}

}  // namespace foothold::proto
