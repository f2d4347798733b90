#include "shared/game_command.h"

namespace foothold {

std::string_view to_string(GameCommandKind kind) {
  switch (kind) {
    case GameCommandKind::kTeleport: return "teleport";
    case GameCommandKind::kVelocity: return "velocity";
    case GameCommandKind::kFreeze: return "freeze";
    case GameCommandKind::kProfile: return "profile";
    case GameCommandKind::kRemove: return "remove";
    case GameCommandKind::kAttribute: return "attribute";
    case GameCommandKind::kMatchAttribute: return "match_attribute";
  }
  return "invalid";
}

namespace {
// The character is in the air, standing on nothing, and has no coyote jump left: a teleport or a
// launch is not a walk off a ledge.
void leave_ground(CharacterState& s) {
  s.ground = GroundKind::kNone;
  s.floor_normal = {};
  s.air_ticks = 255;
  s.platform = 0;
  s.platform_offset = {};
}
}  // namespace

void apply_command(const GameCommand& c, CharacterState& s) {
  switch (c.kind) {
    case GameCommandKind::kTeleport:
      s.position = c.vector;
      leave_ground(s);
      return;
    case GameCommandKind::kVelocity:
      s.velocity = c.vector;
      leave_ground(s);
      return;
    case GameCommandKind::kFreeze: s.frozen = c.value != 0; return;
    case GameCommandKind::kProfile:
      if (c.value >= 0 && c.value <= kMaxProfiles) s.profile = uint8_t(c.value);
      return;
    case GameCommandKind::kRemove:
    case GameCommandKind::kAttribute:
    case GameCommandKind::kMatchAttribute: return;
  }
}

}  // namespace foothold
