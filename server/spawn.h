#pragma once
// Where a joining character appears: a spot derived from its id, so that a recording knows it too.

#include <cstdint>

#include "shared/character_state.h"
#include "shared/world.h"

namespace foothold::server {

/// The spawn state of character `id` (airborne, at rest). In the arena: spread over its open floor;
/// in any other world: spread over the middle of its bounds, just above them.
CharacterState spawn_state_for(const World& world, uint32_t id);

}  // namespace foothold::server
