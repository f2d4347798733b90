#pragma once
// The static world: a triangle mesh in a Bullet btCollisionWorld (one btBvhTriangleMeshShape), plus
// our own double-precision copy of every triangle with its normal, tag and bounds.
//
// Bullet's BVH answers one question per step: which triangles overlap the step's swept bounds
// (processAllTriangles). Every exact test on those candidates is ours (geometry.h), in a defined
// order, so server and clients agree to the bit.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "shared/geometry.h"
#include "shared/triangle_mesh.h"

class btCollisionWorld;

namespace foothold {

/// One triangle of the world, ready for the exact tests.
struct WorldTriangle {
  Triangle tri;
  Vec3 lo, hi;  ///< axis-aligned bounds, metres
  SurfaceTag tag = SurfaceTag::kByNormal;
};

/// An axis-aligned box, metres.
struct Aabb {
  Vec3 lo, hi;
};

class World {
 public:
  /// Builds a world from a mesh. Degenerate triangles are dropped (and counted); vertex indices out
  /// of range and coordinates beyond kWorldLimit are errors. `name` is used in messages.
  struct Build {
    std::unique_ptr<World> world;
    std::string error;
    std::size_t degenerate_skipped = 0;
  };
  static Build create(const TriangleMesh& mesh, std::string name);

  ~World();
  World(const World&) = delete;
  World& operator=(const World&) = delete;

  const std::string& name() const { return name_; }
  std::size_t triangle_count() const { return triangles_.size(); }
  const WorldTriangle& triangle(uint32_t index) const { return triangles_[index]; }
  /// Bounds of all triangles.
  const Aabb& bounds() const { return bounds_; }
  /// Content hash of every triangle (exact coordinates and tag, in order); peers compare it.
  uint64_t hash() const { return hash_; }

  /// Replaces `out` with the indices of the triangles whose bounds overlap `box`, ascending.
  /// `out` keeps its capacity, so a caller that reuses it allocates nothing in the steady state.
  void collect(const Aabb& box, std::vector<uint32_t>& out) const;

  /// The Bullet collision world holding the mesh (for tools and the Bullet comparison benchmark).
  btCollisionWorld& collision_world() const;

 private:
  World();
  struct Bullet;
  std::string name_;
  std::vector<WorldTriangle> triangles_;
  Aabb bounds_;
  uint64_t hash_ = 0;
  std::unique_ptr<Bullet> bullet_;
};

/// Loads a world by name: "arena" selects the embedded arena, anything else is an OBJ file path.
/// Warnings (e.g. skipped degenerate triangles) are appended to `warnings`.
struct WorldLoad {
  std::unique_ptr<World> world;
  std::string error;
  std::vector<std::string> warnings;
};
WorldLoad load_world(const std::string& name_or_path);

}  // namespace foothold
