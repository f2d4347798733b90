// libFuzzer: OBJ worlds from untrusted files, built and walked on.

#include <cstdint>
#include <string_view>

#include "shared/obj_loader.h"
#include "shared/step.h"
#include "shared/world.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace foothold;
  const auto loaded = parse_obj(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.obj");
  if (!loaded.ok() || loaded.mesh.faces.size() > 2000) return 0;
  auto built = World::create(loaded.mesh, "fuzz");
  if (!built.world) return 0;
  // A few steps in the world's middle: the step must cope with any geometry.
  const auto s = derive(MoveSettings{});
  StepScratch scratch;
  const Aabb& b = built.world->bounds();
  CharacterState st = spawn_state((b.lo + b.hi) * 0.5);
  for (uint32_t t = 1; t <= 8; ++t) st = step(st, encode_move(1, 0.5, t % 3 == 0 ? kButtonJump : 0, t), *built.world, s, scratch).state;
  return 0;
}
