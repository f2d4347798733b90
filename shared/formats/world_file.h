#pragma once
// Worlds by name: the embedded arena, or a level file (glTF with its movers, or OBJ).

#include <memory>
#include <string>
#include <vector>

#include "shared/world.h"

namespace foothold {

/// Result of load_world().
struct WorldLoad {
  std::unique_ptr<World> world;       ///< the world; null on error
  std::string error;                  ///< what went wrong, naming the file; empty on success
  std::vector<std::string> warnings;  ///< e.g. skipped degenerate triangles
};
/// Loads a world by name: "arena" selects the embedded arena, a path ending in .gltf or .glb a glTF
/// file (with its movers), anything else an OBJ file path.
/// Warnings (e.g. skipped degenerate triangles) go to the result's `warnings`.
WorldLoad load_world(const std::string& name_or_path);

}  // namespace foothold
