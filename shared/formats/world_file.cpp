#include "shared/formats/world_file.h"

#include "shared/arena.h"
#include "shared/formats/gltf_loader.h"
#include "shared/formats/obj_loader.h"

namespace foothold {

WorldLoad load_world(const std::string& name_or_path) {
  WorldLoad out;
  TriangleMesh mesh;
  if (name_or_path == "arena") {
    mesh = build_arena_mesh();
  } else {
    auto loaded = is_gltf_path(name_or_path) ? load_gltf_file(name_or_path) : load_obj_file(name_or_path);
    if (!loaded.ok()) {
      out.error = loaded.error;
      return out;
    }
    out.warnings = std::move(loaded.warnings);
    mesh = std::move(loaded.mesh);
  }
  auto built = World::create(mesh, name_or_path);
  if (!built.world) {
    out.error = built.error;
    return out;
  }
  if (built.degenerate_skipped > 0)
    out.warnings.push_back(name_or_path + ": skipped " + std::to_string(built.degenerate_skipped) + " degenerate triangle(s)");
  out.world = std::move(built.world);
  return out;
}

}  // namespace foothold
