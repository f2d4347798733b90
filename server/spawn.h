#pragma once
// Where a joining character appears: a spot derived from its id, so that a recording knows it too.

#include <cstdint>

#include "shared/character_state.h"
#include "shared/world.h"

namespace foothold::server {

/// The spawn state of character `id` (airborne, at rest). In the arena: spread over its open floor;
/// in any other world: spread over the middle of its bounds, just above them.
/// Spots form a 16 x 16 grid (1.2 m apart in the arena, 1.5 m elsewhere; world X and Z), so ids
/// 256 apart share a spot: harmless, as characters do not collide. Same world and id, same state.
CharacterState spawn_state_for(const World& world, uint32_t id);

}  // namespace foothold::server
