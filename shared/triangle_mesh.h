#pragma once
// An indexed triangle mesh as loaded from a file or built in code, before it becomes a World.

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include <string>

#include "shared/animation.h"
#include "shared/vec3.h"

namespace foothold {

/// Ground tag of a triangle, from its OBJ material name (docs/movement.md §3.2).
enum class SurfaceTag : uint8_t {
  kByNormal = 0,      ///< grounded when the contact normal is walkable
  kAlwaysGround = 1,  ///< material "always_ground": any upward contact grounds the character
  kNeverGround = 2,   ///< material "never_ground": never grounds the character, however flat
};

/// The tag a material name selects: always_ground, never_ground, or (any other name) by normal.
SurfaceTag tag_from_material(std::string_view material);
/// "always_ground", "never_ground" or "by_normal".
std::string_view to_string(SurfaceTag tag);

struct MoverMesh;

/// A trigger volume (glTF `extras.foothold.trigger`): a named axis-aligned box that collides with
/// nothing; a game hears characters enter and leave it (server/game.h). One on a mover follows it
/// (shared/triggers.h: trigger_box()).
struct TriggerBox {
  std::string name;  ///< 1 to kMaxTriggerName characters of [A-Za-z0-9_.-], unique in its world
  Vec3 lo, hi;       ///< minimum and maximum corners, metres (lo <= hi; a side may be flat)
  /// 0: a still trigger, its box in world axes; m + 1: it rides mover m, its box in the mover's axes.
  uint16_t mover = 0;
};
/// Most triggers a world may have.
inline constexpr std::size_t kMaxTriggers = 256;
/// Longest trigger name, in characters.
inline constexpr std::size_t kMaxTriggerName = 32;
/// Whether `name` is a valid trigger name: 1 to kMaxTriggerName characters of [A-Za-z0-9_.-].
bool valid_trigger_name(std::string_view name);

/// Triangles over shared vertices. Y up, metres; a face's front is counter-clockwise.
struct TriangleMesh {
  /// One triangle.
  struct Face {
    std::array<uint32_t, 3> v{};             ///< indices into `vertices`, counter-clockwise seen from the front
    SurfaceTag tag = SurfaceTag::kByNormal;  ///< ground tag of the triangle
  };
  std::vector<Vec3> vertices;  ///< positions, metres, world axes
  std::vector<Face> faces;     ///< triangles, in order (a World keeps this order as triangle indices)
  /// Geometry that moves (movement.md §15.1), in order (a World keeps it as mover indices). The
  /// movers' own meshes have no movers of their own.
  std::vector<MoverMesh> movers;
  /// Trigger volumes, in order (a World keeps it as trigger indices); never collision geometry.
  /// Only a world's own mesh has them, not a mover's.
  std::vector<TriggerBox> triggers;
};

/// Most movers a world may have (CharacterState::platform holds index + 1 in 16 bits).
inline constexpr std::size_t kMaxMovers = 4096;

/// A mover: triangles in its own axes, and the chain of animated (or still) nodes that places them.
struct MoverMesh {
  std::string name;         ///< for messages and tools (the glTF node's name, or the arena's)
  std::vector<Link> chain;  ///< root first; the mover's pose at a tick is chain_pose()
  TriangleMesh mesh;        ///< in the mover's own axes
  /// Driven by the game (glTF extras.foothold.driven): it starts still at its animation's start and
  /// moves only when the game tells it to (shared/mover_clock.h); else it runs on the world's clock.
  bool driven = false;
};

/// Builds meshes in code: the embedded arena and the tests' small worlds. Every shape is closed
/// where it is a solid, with fronts facing out, so that one-sided collision sees what a player sees.
/// Coordinates are metres, world axes (Y up). Every triangle gets its own vertices (none are shared).
class MeshBuilder {
 public:
  /// One triangle; a, b, c counter-clockwise seen from the front.
  void triangle(const Vec3& a, const Vec3& b, const Vec3& c, SurfaceTag tag = SurfaceTag::kByNormal);
  /// A planar quad as the triangles (a, b, c) and (a, c, d); corners counter-clockwise seen from the front.
  void quad(const Vec3& a, const Vec3& b, const Vec3& c, const Vec3& d, SurfaceTag tag = SurfaceTag::kByNormal);
  /// One triangle whose winding is chosen so that its front faces along `toward` (a, b, c kept when
  /// `toward` is parallel to the plane).
  void triangle_facing(const Vec3& a, const Vec3& b, const Vec3& c, const Vec3& toward,
                       SurfaceTag tag = SurfaceTag::kByNormal);
  /// A planar quad whose winding is chosen so that its front faces along `toward`.
  void quad_facing(const Vec3& a, const Vec3& b, const Vec3& c, const Vec3& d, const Vec3& toward,
                   SurfaceTag tag = SurfaceTag::kByNormal);
  /// A closed prism: a convex profile in the XY plane (counter-clockwise seen from +Z) extruded
  /// from z0 to z1 (the profile's own z is ignored). `face_tags[i]` tags the side face from profile[i]
  /// to profile[(i + 1) % n]; missing tags and both end caps are kByNormal.
  void prism_z(const std::vector<Vec3>& profile, double z0, double z1, const std::vector<SurfaceTag>& face_tags = {});
  /// A horizontal floor over [x0, x1] x [z0, z1] at height y facing up, split into cells of about `cell`
  /// metres (the count per axis rounded, at least one): many internal edges.
  void floor_grid(double x0, double z0, double x1, double z1, double y, double cell,
                  SurfaceTag tag = SurfaceTag::kByNormal);
  /// A closed axis-aligned box from corner `min` to corner `max`, with outward faces. Only the top face
  /// gets `tag` (it is hexahedron()'s top_tag); the others are kByNormal.
  void box(const Vec3& min, const Vec3& max, SurfaceTag tag = SurfaceTag::kByNormal);
  /// A closed convex solid given by its 8 corners: bottom face b0..b3 and top face t0..t3, each
  /// counter-clockwise seen from above (so walls lean, overhang or slope as the corners say).
  /// Only the top face gets `top_tag`; the bottom and the sides are kByNormal.
  void hexahedron(const std::array<Vec3, 4>& bottom, const std::array<Vec3, 4>& top,
                  SurfaceTag top_tag = SurfaceTag::kByNormal);

  /// The mesh built so far; the builder is left empty.
  TriangleMesh take();

 private:
  uint32_t vertex(const Vec3& p);
  TriangleMesh mesh_;
};

}  // namespace foothold
