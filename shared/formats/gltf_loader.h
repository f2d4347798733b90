#pragma once
// glTF 2.0 (.gltf with external or data-URI buffers, or binary .glb) to TriangleMesh, through
// Debian's tinygltf. glTF is Y up and in metres, as Foothold is; a front face is counter-clockwise.
//
// What becomes collision geometry: every mesh of every node of the default scene (or of the first
// scene), placed by the node hierarchy's transforms (TRS or matrix, parent first; a transform that
// mirrors (negative determinant) reverses the winding, as glTF requires); primitives in TRIANGLES,
// TRIANGLE_STRIP and TRIANGLE_FAN mode, indexed or not. Other modes are skipped and counted in a
// warning. Tags as in OBJ: a material named always_ground or never_ground, or
// extras {"foothold": {"ground": "always"|"never"}} on the material or on a node (inherited by its
// children; the material's wins). extras {"foothold": {"collide": false}} on a node leaves it and its
// children out (decoration). extras {"foothold": {"trigger": "NAME"}} on a node makes it and its
// children a trigger volume (TriangleMesh::triggers, in the order the scene is walked): their
// triangles collide with nothing, and the volume is the axis-aligned box of every position of their
// meshes as the node transforms place them (extras.foothold.shape, if given, must be "box"): in
// world axes, or, under an animated node, in that mover's axes, riding it (shared/triggers.h). An
// animated trigger node, an animated node under a trigger, a trigger inside another, two of the same
// name, more than kMaxTriggers or one without a triangle mesh are errors. A decoration's triggers
// are left out with it. Images are never decoded.

#include <cstdint>
#include <string>

#include "shared/formats/obj_loader.h"

namespace foothold {

/// Reads a .gltf or .glb file (by its extension); `path` names it in messages. Errors name the file
/// and the glTF element at fault (e.g. "level.gltf: accessors[3]: ...").
MeshLoad load_gltf_file(const std::string& path);

/// Reads glTF from memory (tests and fuzzing): `binary` selects .glb; external buffers are resolved
/// relative to `base_dir`. `name` names it in messages.
MeshLoad load_gltf_memory(const uint8_t* data, std::size_t size, bool binary, const std::string& name,
                          const std::string& base_dir = "");

/// True when `path` ends in .gltf or .glb (case-insensitive).
bool is_gltf_path(const std::string& path);

/// Writes a mesh as a binary glTF (.glb): one node, one mesh, one primitive per tag, the tags as
/// materials named by_normal, always_ground and never_ground. Returns an error message, or "".
std::string write_glb(const TriangleMesh& mesh, const std::string& path);

}  // namespace foothold
