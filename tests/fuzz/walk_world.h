#pragma once
// For the world fuzz targets: build a world from whatever mesh a file gave, and take a few steps in
// its middle. The step must cope with any geometry.

#include "shared/step.h"
#include "shared/triggers.h"
#include "shared/world.h"

namespace foothold::fuzz {

inline void build_and_walk(const TriangleMesh& mesh) {
  if (mesh.faces.size() > 2000) return;
  auto built = World::create(mesh, "fuzz");
  if (!built.world) return;
  const auto s = derive(MoveSettings{});
  StepScratch scratch;
  const Aabb& b = built.world->bounds();
  CharacterState st = spawn_state((b.lo + b.hi) * 0.5);
  for (uint32_t t = 1; t <= 8; ++t) {
    st = step(st, encode_move(1, 0.5, t % 3 == 0 ? kButtonJump : 0, t), *built.world, s, scratch).state;
    (void)triggers_containing(*built.world, st, s, nullptr);  // whatever boxes a file gave (issue #66)
  }
}

}  // namespace foothold::fuzz
