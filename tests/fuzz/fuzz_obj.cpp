// libFuzzer: OBJ worlds from untrusted files, built and walked on.

#include <cstdint>
#include <string_view>

#include "shared/formats/obj_loader.h"
#include "walk_world.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace foothold;
  const auto loaded = parse_obj(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.obj");
  if (loaded.ok()) fuzz::build_and_walk(loaded.mesh);
  return 0;
}
