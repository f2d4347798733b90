#pragma once
// Which trigger volumes (World::triggers(), from glTF extras.foothold.trigger) a character is in: the
// one rule the server's game host and a replay of its game both apply (server/game_host.cpp), so a
// game hears the same enters and leaves from the same states.
//
// A character is in a trigger when its capsule (the upright core segment of its posture, standing or
// crouched, and its radius, of its movement profile) overlaps the trigger's box: the distance from
// the segment to the box is less than the radius. Touching from outside is not inside. Plain IEEE
// operations on the state's exact position (a multiple of 1/1024 m): deterministic everywhere.

#include <bitset>
#include <cstdint>

#include "shared/character_state.h"
#include "shared/settings.h"
#include "shared/world.h"

namespace foothold {

/// The triggers a character is in, by trigger index (bit t: World::triggers()[t]).
using TriggerSet = std::bitset<kMaxTriggers>;

/// Whether an upright capsule, its core segment from `centre` - `half_segment` to `centre` +
/// `half_segment` along Y (metres), overlaps the box [lo, hi]: closer to it than `radius`.
bool capsule_overlaps_box(const Vec3& centre, double half_segment, double radius, const Vec3& lo, const Vec3& hi);

/// The triggers of `world` that the character in `state` is in; `settings` as derive() made them
/// (the state's profile and posture choose its capsule). Empty when the world has no triggers.
/// Costs one box test per trigger; allocates nothing.
TriggerSet triggers_containing(const World& world, const CharacterState& state, const DerivedSettings& settings);

}  // namespace foothold
