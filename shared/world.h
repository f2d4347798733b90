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
#include <string_view>
#include <vector>

#include "shared/geometry.h"
#include "shared/triangle_mesh.h"

class btCollisionWorld;

namespace foothold {

/// One triangle of the world, ready for the exact tests.
struct WorldTriangle {
  Triangle tri;  ///< vertices (metres, world axes) and unit front normal
  Vec3 lo, hi;  ///< axis-aligned bounds, metres
  SurfaceTag tag = SurfaceTag::kByNormal;  ///< ground tag (movement.md §3.2)
};

/// A mover of the world (movement.md §15.1): its triangles in its own axes, and how it moves.
struct Mover {
  std::string name;                   ///< for messages and tools
  std::vector<Link> chain;            ///< root first: its pose at a tick is chain_pose(chain, ...)
  std::vector<WorldTriangle> local;   ///< in the mover's own axes (bounds in those axes too)
  /// Driven by the game: still at its animation's start until the game moves it (shared/mover_clock.h).
  bool driven = false;
};

/// A triangle with its unit front normal (counter-clockwise seen from the front) and bounds; a
/// degenerate one (twice its area below tolerance::kDegenerateTwiceArea, or not finite) has a zero normal.
WorldTriangle make_world_triangle(const Vec3& a, const Vec3& b, const Vec3& c, SurfaceTag tag);

/// An axis-aligned box, metres.
struct Aabb {
  Vec3 lo, hi;  ///< minimum and maximum corners, metres, world axes
};

/// The static triangle world (movement.md §2): immutable once built, shared read-only by every step.
/// Owns its triangles and its Bullet objects; not copyable or movable (hold it by the unique_ptr).
class World {
 public:
  /// Result of create().
  struct Build {
    std::unique_ptr<World> world;        ///< the world; null on error
    std::string error;                   ///< "NAME: what is wrong"; empty on success
    std::size_t degenerate_skipped = 0;  ///< triangles dropped as degenerate (tolerance::kDegenerateTwiceArea)
  };
  /// Builds a world from a mesh and its movers. Degenerate triangles are dropped (and counted);
  /// vertex indices out of range, coordinates beyond kWorldLimit (or not finite), a mesh with no
  /// usable static triangle, a mover without a usable triangle or with a malformed animation are
  /// errors; so are more than kMaxTriggers triggers, a trigger whose name is not valid_trigger_name()
  /// or is another's, whose box is not finite, inside +-kWorldLimit and lo <= hi, or that rides a
  /// mover the mesh does not have. `name` is used in messages. The mesh is copied: it need not outlive the world.
  /// Triangle indices are the mesh's face order with the dropped faces left out; movers' triangles
  /// come after them (MoverFrame), mover by mover.
  static Build create(const TriangleMesh& mesh, std::string name);

  ~World();
  World(const World&) = delete;
  World& operator=(const World&) = delete;

  /// The name given to create() (for load_world(): "arena" or the file path).
  const std::string& name() const { return name_; }
  /// Number of static triangles; their indices run from 0 to triangle_count() - 1.
  std::size_t triangle_count() const { return triangles_.size(); }
  /// One triangle by index. Precondition: index < triangle_count() (not checked).
  const WorldTriangle& triangle(uint32_t index) const { return triangles_[index]; }
  /// Bounds of all triangles, metres.
  const Aabb& bounds() const { return bounds_; }
  /// The movers, in the mesh's order (index m is CharacterState::platform m + 1).
  const std::vector<Mover>& movers() const { return movers_; }
  /// The trigger volumes, in the mesh's order (index t is the trigger index the game API names).
  const std::vector<TriggerBox>& triggers() const { return triggers_; }
  /// The index of the trigger named `name` in triggers(), or -1 when there is none.
  int trigger_index(std::string_view name) const;
  /// Content hash of every triangle (exact coordinates and tag, in order; not the name), of every
  /// mover's triangles and animation, and of every trigger's name and box; peers compare it. A world
  /// without movers or triggers hashes as it did before they existed.
  uint64_t hash() const { return hash_; }

  /// Replaces `out` with the indices of the triangles whose bounds overlap `box`, ascending.
  /// `out` keeps its capacity, so a caller that reuses it allocates nothing in the steady state.
  void collect(const Aabb& box, std::vector<uint32_t>& out) const;

  /// Replaces `out` with the indices of the triangles whose BVH nodes the segment from `from` to `to`
  /// crosses (a superset of those it touches), ascending. Bullet chooses them; exact tests are the
  /// caller's (shared/ray_query.h).
  void collect_along(const Vec3& from, const Vec3& to, std::vector<uint32_t>& out) const;

  /// The Bullet collision world holding the mesh (for tools and the Bullet comparison benchmark).
  /// Owned by this World: the reference is valid as long as the World is.
  btCollisionWorld& collision_world() const;

 private:
  World();
  struct Bullet;
  std::string name_;
  std::vector<WorldTriangle> triangles_;
  std::vector<Mover> movers_;
  std::vector<TriggerBox> triggers_;
  Aabb bounds_;
  uint64_t hash_ = 0;
  std::unique_ptr<Bullet> bullet_;
};

}  // namespace foothold
