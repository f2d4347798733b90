// libFuzzer: glTF worlds (.gltf JSON or binary .glb, by the first bytes) from untrusted files,
// built and walked on. External files are never read (the base directory does not exist).

#include <cstdint>
#include <cstring>

#include "shared/formats/gltf_loader.h"
#include "walk_world.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace foothold;
  const bool binary = size >= 4 && std::memcmp(data, "glTF", 4) == 0;
  const auto loaded = load_gltf_memory(data, size, binary, "fuzz.gltf", "/nonexistent-fuzz-dir");
  if (loaded.ok()) fuzz::build_and_walk(loaded.mesh);
  return 0;
}
