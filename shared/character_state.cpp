#include "shared/character_state.h"

#include "shared/hash.h"

namespace foothold {

namespace {
constexpr std::string_view kGroundNames[kGroundKindCount] = {"none", "walkable", "tagged", "crevice", "pit"};
}

std::string_view to_string(GroundKind kind) {
  const auto i = static_cast<size_t>(kind);
  return i < kGroundKindCount ? kGroundNames[i] : std::string_view("invalid");
}

std::optional<GroundKind> parse_ground_kind(std::string_view text) {
  for (int i = 0; i < kGroundKindCount; ++i)
    if (kGroundNames[i] == text) return static_cast<GroundKind>(i);
  return std::nullopt;
}

uint64_t CharacterState::hash() const {
  Hasher h;
  h.add_i32(position.x);
  h.add_i32(position.y);
  h.add_i32(position.z);
  h.add_i32(velocity.x);
  h.add_i32(velocity.y);
  h.add_i32(velocity.z);
  h.add_u8(static_cast<uint8_t>(ground));
  h.add_u32(uint16_t(floor_normal.x));
  h.add_u32(uint16_t(floor_normal.y));
  h.add_u32(uint16_t(floor_normal.z));
  h.add_u8(air_ticks);
  h.add_u8(jump_buffer);
  h.add_u8(jump_held ? 1 : 0);
  h.add_u8(crouched ? 1 : 0);
  h.add_u32(platform);
  h.add_i32(platform_offset.x);
  h.add_i32(platform_offset.y);
  h.add_i32(platform_offset.z);
  // Only when either is set: a state no game touched hashes as it did before they existed, so
  // recordings and digests of such states keep their values.
  if (frozen || profile != 0) {
    h.add_u8(frozen ? 1 : 0);
    h.add_u8(profile);
  }
  if (push != FixedVec3{}) {
    h.add_u8(0x50);  // 'P': a push hashed where frozen and profile alone would not collide with it
    h.add_i32(push.x);
    h.add_i32(push.y);
    h.add_i32(push.z);
  }
  return h.value();
}

CharacterState spawn_state(const Vec3& position) {
  CharacterState s;
  s.position = quantize_position(position);
  return s;
}

}  // namespace foothold
