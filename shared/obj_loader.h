#pragma once
// Wavefront OBJ to TriangleMesh. Y is up, units are metres, a face's front is counter-clockwise.
// Vertices may be shared (welded) or not; faces may be triangles or polygons (ear-clipped).
// The material name selects the ground tag: usemtl always_ground / never_ground.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "shared/triangle_mesh.h"

namespace foothold {

struct MeshLoad {
  TriangleMesh mesh;
  std::string error;                  ///< "FILE:LINE: what is wrong"; empty on success
  std::vector<std::string> warnings;  ///< e.g. how many degenerate triangles were skipped
  std::size_t degenerate_skipped = 0; ///< zero-area triangles left out
  bool ok() const { return error.empty(); }
};

/// Parses OBJ text; `source` names it in messages. Never throws on bad data.
MeshLoad parse_obj(std::string_view text, std::string_view source);

/// Reads and parses an OBJ file.
MeshLoad load_obj_file(const std::string& path);

}  // namespace foothold
