#pragma once
// Which trigger volumes (World::triggers(), from glTF extras.foothold.trigger) a character is in: the
// one rule the server's game host and a replay of its game both apply (server/game_host.cpp), so a
// game hears the same enters and leaves from the same states.
//
// A character is in a trigger when its capsule (the upright core segment of its posture, standing or
// crouched, and its radius, of its movement profile) overlaps the trigger's box: the distance from
// the segment to the box is less than the radius. Touching from outside is not inside. Plain IEEE
// operations on the state's exact position (a multiple of 1/1024 m): deterministic everywhere.
//
// A trigger on a mover (a lift's "on_lift" volume) follows it: its box at the end of a tick is the
// world-axes box of its own box's eight corners as the mover is posed then (MoverFrame::pose). For
// a mover that only translates that is the box itself, moved; while a mover turns, a box that holds
// the turned one (a little more than the volume), so triggers on turning movers are best kept small.

#include <bitset>
#include <cstdint>
#include <optional>

#include "shared/character_state.h"
#include "shared/mover_frame.h"
#include "shared/settings.h"
#include "shared/world.h"

namespace foothold {

/// The triggers a character is in, by trigger index (bit t: World::triggers()[t]).
using TriggerSet = std::bitset<kMaxTriggers>;

/// Whether an upright capsule, its core segment from `centre` - `half_segment` to `centre` +
/// `half_segment` along Y (metres), overlaps the box [lo, hi]: closer to it than `radius`.
bool capsule_overlaps_box(const Vec3& centre, double half_segment, double radius, const Vec3& lo, const Vec3& hi);

/// Where trigger `trigger` is at the end of the tick `frame` was built for: its box, or for one on a
/// mover the world-axes box of its posed corners. Nothing when it rides a mover and `frame` is null
/// or has no such mover: then it holds nobody.
std::optional<Aabb> trigger_box(const TriggerBox& trigger, const MoverFrame* frame);

/// The triggers of `world` that the character in `state` is in at the end of the tick `frame` was
/// built for (the world's movers at that tick; null for a world without movers); `settings` as
/// derive() made them (the state's profile and posture choose its capsule). Empty when the world has
/// no triggers. Costs one box test per trigger (and a pose of eight corners per moving one);
/// allocates nothing.
TriggerSet triggers_containing(const World& world, const CharacterState& state, const DerivedSettings& settings,
                               const MoverFrame* frame);

}  // namespace foothold
