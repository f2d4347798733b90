#include "server/spawn.h"

#include "shared/arena.h"

namespace foothold::server {

CharacterState spawn_state_for(const World& world, uint32_t id) {
  // A 16 x 16 grid of spots, 1.5 m apart (1.2 m in the arena). Past 256 characters spots are shared:
  // characters that overlap are pushed apart half each by their first steps (movement.md §16).
  const double col = double(id % 16), row = double((id / 16) % 16);
  if (world.name() == "arena") {
    // The open north-east quarter of the arena, clear of every feature.
    return spawn_state({arena::kOpenFloor.x - 6 + col * 1.2, 1.5, arena::kOpenFloor.z - 6 + row * 1.2});
  }
  const Aabb& b = world.bounds();
  const Vec3 mid = (b.lo + b.hi) * 0.5;
  return spawn_state({mid.x + (col - 7.5) * 1.5, b.hi.y + 2, mid.z + (row - 7.5) * 1.5});
}

}  // namespace foothold::server
