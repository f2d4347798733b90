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

/// Result of reading an OBJ file or text.
struct MeshLoad {
  TriangleMesh mesh;                  ///< the triangles read (empty on error)
  std::string error;                  ///< "FILE:LINE: what is wrong"; empty on success
  std::vector<std::string> warnings;  ///< e.g. how many degenerate triangles were skipped
  std::size_t degenerate_skipped = 0; ///< zero-area triangles left out
  /// True when there is no error.
  bool ok() const { return error.empty(); }
};

/// Parses OBJ text; `source` names it in messages. Never throws on bad data: a malformed line, a bad
/// index, a coordinate beyond +-kWorldLimit or a file without a usable triangle is an error.
MeshLoad parse_obj(std::string_view text, std::string_view source);

/// Reads and parses an OBJ file; `path` names it in messages. An unreadable file is an error.
MeshLoad load_obj_file(const std::string& path);

}  // namespace foothold
