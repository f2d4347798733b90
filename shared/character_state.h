#pragma once
// The state of one character between ticks: plain integers, trivially copyable, comparable, hashable.

#include <cstdint>
#include <optional>
#include <string_view>
#include <type_traits>

#include "shared/fixed_point.h"

namespace foothold {

/// Why a character is grounded (or that it is not).
enum class GroundKind : uint8_t {
  kNone = 0,      ///< airborne: gravity applies
  kWalkable = 1,  ///< standing on a surface no steeper than max_slope_deg
  kTagged = 2,    ///< standing on a surface tagged always_ground
  kCrevice = 3,   ///< wedged between two steep faces whose crease does not descend steeply
  kPit = 4,       ///< wedged between three steep faces
};
/// Number of GroundKind values (they are 0 .. kGroundKindCount - 1).
inline constexpr int kGroundKindCount = 5;
/// Most movement profiles a settings file holds (MoveSettings::profiles): a state's `profile` is 0
/// (the base settings) to kMaxProfiles, which is what the wire carries (WIRE_FORMAT.md).
inline constexpr int kMaxProfiles = 15;

/// "none", "walkable", "tagged", "crevice" or "pit" ("invalid" for a value out of range).
std::string_view to_string(GroundKind kind);
/// The inverse of to_string(); nothing for any other text (including "invalid").
std::optional<GroundKind> parse_ground_kind(std::string_view text);
/// True for every kind but kNone (a crevice or a pit is grounded too, movement.md §3.4).
constexpr bool is_grounded(GroundKind k) { return k != GroundKind::kNone; }

/// A character between ticks. Position is the capsule centre. The ground state (kind and floor
/// normal) is what grounding found at exactly this position; the next step starts from it.
struct CharacterState {
  FixedVec3 position;               ///< capsule centre, 1/1024 m
  FixedVec3 velocity;               ///< 1/65536 m/s, world axes
  GroundKind ground = GroundKind::kNone;  ///< what grounding found at `position` (kNone while rising)
  FixedNormal floor_normal;         ///< unit contact normal of the floor (1/16384) when walkable or tagged; else zero
  /// Ticks since the character last stood on the ground (0: it stands now), for coyote time
  /// (movement.md §5.2); 255: longer than that matters, or it jumped since.
  uint8_t air_ticks = 255;
  /// Ticks since a jump was pressed that has not happened yet, for the jump buffer (§5.2); 255: none.
  uint8_t jump_buffer = 255;
  /// The jump button was down on the previous tick: a jump needs a fresh press (§5.2).
  bool jump_held = false;
  /// Crouched: the capsule is crouch_height tall, its feet where the standing one's are (§5.4).
  bool crouched = false;
  /// The mover the character stands on, as its index + 1 (0: none, it stands on static ground or is
  /// airborne). While it is set, `platform_offset` is where the character is, and `position` is only
  /// that place in world axes, rounded (movement.md §15.2).
  uint16_t platform = 0;
  /// The capsule centre in the platform's own axes, 1/1024 m; zero when `platform` is 0.
  FixedVec3 platform_offset;
  /// A game froze the character: step() takes its input as neutral (no move, no jump press, the
  /// crouch button as its posture is), while gravity, movers and the others still act on it.
  bool frozen = false;
  /// The movement profile it moves with: 0 the base settings, k the k-th of MoveSettings::profiles
  /// (ascending name). An index with no profile moves with the base settings. At most kMaxProfiles.
  uint8_t profile = 0;
  /// An external velocity a game gave (GameControl::push: knockback), 1/65536 m/s, horizontal (its
  /// y is always 0): it moves the character through the same collide-and-slide as its own velocity,
  /// on the ground and in the air, loses what points into the walls it meets, and push_friction (on
  /// the ground) or push_air_friction (in the air) takes it to zero (movement.md §5.5).
  FixedVec3 push;
  bool operator==(const CharacterState&) const = default;
  /// Stable checksum of every field (not of the struct's memory). `frozen` and `profile` are fed
  /// only when either is set, and `push` only while it is not zero, so a state no game touched keeps
  /// the hash it had before they existed.
  uint64_t hash() const;
  /// hash() folded to 32 bits: what a snapshot carries instead of the state when no correction is
  /// expected (WIRE_FORMAT.md).
  uint32_t digest() const {
    const uint64_t h = hash();
    return uint32_t(h) ^ uint32_t(h >> 32);
  }
};
static_assert(std::is_trivially_copyable_v<CharacterState>);

/// A character at rest with its capsule centre at `position` (metres, rounded to the grid and clamped
/// to +-kWorldLimit), airborne until its first step.
CharacterState spawn_state(const Vec3& position);

}  // namespace foothold
