#include "shared/game_command.h"

#include <algorithm>

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
    case GameCommandKind::kPush: return "push";
    case GameCommandKind::kMover: return "mover";
    case GameCommandKind::kSpawn: return "spawn";
  }
  return "invalid";
}

namespace {

bool within(int32_t raw, double lo, double hi, double scale) { return double(raw) >= lo * scale && double(raw) <= hi * scale; }

// Within the world's static bounds grown by kTeleportMargin: where a teleport or a spawn may put a character.
bool placeable(const FixedVec3& p, const Aabb& b) {
  const double m = kTeleportMargin;
  return within(p.x, b.lo.x - m, b.hi.x + m, kPositionScale) && within(p.y, b.lo.y - m, b.hi.y + m, kPositionScale) &&
         within(p.z, b.lo.z - m, b.hi.z + m, kPositionScale);
}

}  // namespace

std::string_view command_problem(const GameCommand& c, const Aabb& b) {
  switch (c.kind) {
    case GameCommandKind::kTeleport:
      return placeable(c.vector, b) ? std::string_view() : "a teleport outside the world's bounds and their margin";
    case GameCommandKind::kSpawn:
      if (!placeable(c.vector, b)) return "a spawn outside the world's bounds and their margin";
      return c.value >= 0 && c.value <= kMaxProfiles ? std::string_view() : "a spawn's profile out of range";
    case GameCommandKind::kVelocity:
    case GameCommandKind::kPush: {
      const double v = kMaxCommandSpeed;
      const FixedVec3& u = c.vector;
      const bool in = within(u.x, -v, v, kVelocityScale) && within(u.y, -v, v, kVelocityScale) && within(u.z, -v, v, kVelocityScale);
      if (in) return {};
      return c.kind == GameCommandKind::kPush ? "a push over the most a command may set"
                                              : "a velocity over the most a command may set";
    }
    case GameCommandKind::kFreeze: return c.value == 0 || c.value == 1 ? std::string_view() : "a freeze other than 0 or 1";
    case GameCommandKind::kProfile:
      return c.value >= 0 && c.value <= kMaxProfiles ? std::string_view() : "a profile out of range";
    case GameCommandKind::kRemove:
    case GameCommandKind::kMover: return {};
    case GameCommandKind::kAttribute:
    case GameCommandKind::kMatchAttribute:
      return c.slot < kMaxCommandSlots ? std::string_view() : "an attribute slot out of range";
  }
  return "an unknown command";
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

// a + b on the 1/65536 m/s grid, held to +-kMaxCommandSpeed: pushes given tick after tick add up,
// never past what one command may set (nor near the fixed-point range).
int32_t add_held(int32_t a, int32_t b) {
  const int64_t limit = int64_t(kMaxCommandSpeed * kVelocityScale);
  return int32_t(std::clamp<int64_t>(int64_t(a) + int64_t(b), -limit, limit));
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
    case GameCommandKind::kPush:
      s.push.x = add_held(s.push.x, c.vector.x);
      s.push.z = add_held(s.push.z, c.vector.z);
      if (c.vector.y != 0) {
        s.velocity.y = add_held(s.velocity.y, c.vector.y);
        if (c.vector.y > 0) leave_ground(s);
      }
      return;
    case GameCommandKind::kFreeze: s.frozen = c.value != 0; return;
    case GameCommandKind::kProfile:
      if (c.value >= 0 && c.value <= kMaxProfiles) s.profile = uint8_t(c.value);
      return;
    case GameCommandKind::kRemove:
    case GameCommandKind::kAttribute:
    case GameCommandKind::kMatchAttribute:
    case GameCommandKind::kMover:
    case GameCommandKind::kSpawn: return;  // a join, not a change of a state (spawn_state())
  }
}

CharacterState spawn_state(const GameCommand& c) {
  CharacterState s;
  s.position = c.vector;
  if (c.value >= 0 && c.value <= kMaxProfiles) s.profile = uint8_t(c.value);
  return s;
}

}  // namespace foothold
