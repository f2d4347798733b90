#pragma once
// What a game running on the server tells the simulation to do (server/game.h), as plain data: the
// server applies each one at a tick boundary, the recorder keeps them, and re-simulation applies the
// same ones at the same ticks without the game's code. So what a command does to a character's
// state lives here, in the code every side runs, and nowhere else.

#include <cstdint>
#include <string_view>

#include "shared/character_state.h"
#include "shared/world.h"

namespace foothold {

/// What a command does.
enum class GameCommandKind : uint8_t {
  kTeleport = 1,        ///< `vector` is the new capsule centre (1/1024 m)
  kVelocity = 2,        ///< `vector` is the new velocity (1/65536 m/s): jump pads, knockback
  kFreeze = 3,          ///< `value` 1 freezes (inputs ignored, gravity still acts), 0 unfreezes
  kProfile = 4,         ///< `value` is the movement profile's index (MoveSettings::profile_index)
  kRemove = 5,          ///< the character's client is disconnected (its leave is in the same tick)
  kAttribute = 6,       ///< the character's attribute `slot` becomes `value`
  kMatchAttribute = 7,  ///< the match's attribute `slot` becomes `value` (`character` is 0)
  kPush = 8,            ///< `vector` (1/65536 m/s) is added to the push: knockback (recording format 11)
  /// Mover `character` (its index in World::movers(), not a character) does MoverAction `slot` at rate
  /// or speed `value` (1/65536 of its animation's), to key `vector.x` (shared/mover_clock.h;
  /// recording format 12)
  kMover = 9,
  /// A character the game drives (an NPC, no client) joins as `character`, its capsule centre at
  /// `vector` (1/1024 m), standing still in the air, with movement profile `value`; its join is in
  /// the same tick's joins, its inputs in the tick's inputs like a client's (recording format 13)
  kSpawn = 10,
};
/// The largest GameCommandKind.
inline constexpr uint8_t kLastGameCommandKind = 10;

/// "teleport", "velocity", "freeze", "profile", "remove", "attribute", "match_attribute", "push", "mover",
/// "spawn"
/// ("invalid" for a value out of range).
std::string_view to_string(GameCommandKind kind);

/// One command, for one tick boundary: applied before that tick's steps, in the order given.
struct GameCommand {
  GameCommandKind kind = GameCommandKind::kTeleport;
  uint32_t character = 0;  ///< the character's id (0 for a match attribute; a mover's index for kMover)
  FixedVec3 vector;        ///< kTeleport: position; kVelocity: velocity; kPush: the push added
  int32_t value = 0;       ///< kFreeze, kProfile, kAttribute, kMatchAttribute; kMover: rate or speed
  uint8_t slot = 0;        ///< kAttribute, kMatchAttribute: the attribute's index; kMover: its MoverAction
  bool operator==(const GameCommand&) const = default;
};

/// How far outside the world's bounds (World::bounds(): its static triangles) a teleport may put a
/// character, metres on each axis: room to drop it in from above or stand it beside the level, far
/// short of the fixed-point range (kWorldLimit), where a position would be clamped.
inline constexpr double kTeleportMargin = 1000;
/// The fastest velocity a command may set, m/s on each axis (a jump pad, a knockback): a fifth of the
/// fixed-point range (kVelocityLimit), where a velocity would be clamped.
inline constexpr double kMaxCommandSpeed = 200;
/// Attribute slots a command may name (the server's kMaxAttributes, which shared/ cannot include).
inline constexpr int kMaxCommandSlots = 16;

/// Why `command` is out of range in a world whose static triangles have `bounds`, or empty when it is
/// in range: a teleport or a spawn outside `bounds` grown by kTeleportMargin, a velocity or a push over
/// kMaxCommandSpeed on an axis, a freeze other than 0 or 1, a profile (of a profile command or a spawn) outside [0, kMaxProfiles], an attribute slot of
/// kMaxCommandSlots or more, an unknown kind (a mover command needs the world's movers as well:
/// mover_command_problem()). The server gives no such command (GameControl refuses
/// it), so a recording that holds one is not a server's: replay refuses it the same way.
std::string_view command_problem(const GameCommand& command, const Aabb& bounds);

/// True for the kinds that change a character's state (teleport, velocity, freeze, profile, push): what
/// apply_command() does something with, and what a client sees as a correction of its own class.
constexpr bool changes_state(GameCommandKind k) {
  return k == GameCommandKind::kTeleport || k == GameCommandKind::kVelocity || k == GameCommandKind::kFreeze ||
         k == GameCommandKind::kProfile || k == GameCommandKind::kPush;
}

/// Applies a state-changing command to `state` (nothing for the other kinds).
///  - teleport: the capsule centre moves there, velocity kept; the character is airborne until its
///    next step grounds it (it left whatever it stood on, a mover too), with no coyote jump;
///  - velocity: the velocity becomes the command's and the character leaves the ground (a grounded
///    character's velocity would otherwise be its input's at the next step), with no coyote jump;
///  - freeze: `state.frozen` becomes value != 0;
///  - profile: `state.profile` becomes value (a value out of [0, kMaxProfiles] leaves it unchanged);
///  - push: the vector's horizontal part is added to `state.push` (each axis then held to
///    +-kMaxCommandSpeed); its vertical part is a launch, added to the velocity's y (held the same
///    way), and an upward one lifts the character off the ground as a velocity command does. The
///    character's own velocity is otherwise left alone: on the ground its input still steers it.
void apply_command(const GameCommand& command, CharacterState& state);

/// The state a kSpawn command's character starts in: its capsule centre at the command's vector,
/// standing still, in the air (it lands by its steps), with the command's movement profile.
CharacterState spawn_state(const GameCommand& command);

}  // namespace foothold
