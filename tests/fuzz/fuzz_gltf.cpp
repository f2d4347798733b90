// libFuzzer: glTF worlds (.gltf JSON or binary .glb, by the first bytes) from untrusted files,
// built and walked on. External files are never read (no base directory is given).

#include <cstdint>
#include <cstring>

#include "shared/gltf_loader.h"
#include "shared/step.h"
#include "shared/world.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace foothold;
  const bool binary = size >= 4 && std::memcmp(data, "glTF", 4) == 0;
  const auto loaded = load_gltf_memory(data, size, binary, "fuzz.gltf", "/nonexistent-fuzz-dir");
  if (!loaded.ok() || loaded.mesh.faces.size() > 2000) return 0;
  auto built = World::create(loaded.mesh, "fuzz");
  if (!built.world) return 0;
  const auto s = derive(MoveSettings{});
  StepScratch scratch;
  const Aabb& b = built.world->bounds();
  CharacterState st = spawn_state((b.lo + b.hi) * 0.5);
  for (uint32_t t = 1; t <= 8; ++t) st = step(st, encode_move(1, 0.5, t % 3 == 0 ? kButtonJump : 0, t), *built.world, s, scratch).state;
  return 0;
}
