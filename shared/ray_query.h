#pragma once
// Rays and overlaps against a moment of the game: the static world, the movers as placed at a tick,
// and upright character capsules wherever the caller puts them (the server's lag compensation puts
// them where a client drew them: server/rewind.h). Every answer is exact arithmetic of our own in
// IEEE doubles (Bullet's BVH only chooses the candidate triangles, as for the step), so it is the
// same on every machine and for any order of the inputs.

#include <cstdint>
#include <span>
#include <vector>

#include "shared/mover_frame.h"
#include "shared/triangle_mesh.h"
#include "shared/vec3.h"
#include "shared/world.h"

namespace foothold {

/// An upright capsule of a character, for queries.
struct QueryCapsule {
  uint32_t id = 0;            ///< the character's id
  Vec3 center;                ///< capsule centre, metres
  double half_segment = 0.5;  ///< half the core segment's length, metres
  double radius = 0.4;        ///< metres
};

/// What a ray hit first.
struct RayHit {
  enum class Kind : uint8_t { kNone = 0, kSurface = 1, kMover = 2, kCharacter = 3 };
  Kind kind = Kind::kNone;
  double distance = 0;      ///< from the origin along the ray, metres
  Vec3 point;               ///< where, metres
  Vec3 normal;              ///< unit, facing the ray's origin side
  uint32_t triangle = 0;    ///< kSurface: the world's triangle; kMover: the placed triangle (MoverFrame)
  uint16_t mover = 0;       ///< kMover: the mover's index
  uint32_t character = 0;   ///< kCharacter: its id
  SurfaceTag tag = SurfaceTag::kByNormal;  ///< kSurface, kMover: the triangle's tag
  bool operator==(const RayHit&) const = default;
};

/// Reusable memory for queries (one per thread).
struct QueryScratch {
  std::vector<uint32_t> triangles;
};

/// The first thing the ray from `origin` along `direction` (any non-zero length; normalised here)
/// meets within `length` metres: a triangle of `world` (front or back), of `movers` (may be null) or a
/// capsule of `characters` other than `exclude` (0: none excluded). Ties go to the nearer, then a
/// character before a mover before a surface, then the lower id or index. Nothing for a zero or
/// non-finite direction, or a length that is not positive and finite.
RayHit cast_ray(const World& world, const MoverFrame* movers, std::span<const QueryCapsule> characters, const Vec3& origin,
                const Vec3& direction, double length, uint32_t exclude, QueryScratch& scratch);

/// The ids of the capsules of `characters` (other than `exclude`) that an upright capsule at `center`
/// (`half_segment` 0: a sphere) of `radius` overlaps (touching counts), ascending; appended to `out`
/// after clearing it.
void overlap_characters(std::span<const QueryCapsule> characters, const Vec3& center, double half_segment, double radius,
                        uint32_t exclude, std::vector<uint32_t>& out);

/// The distance along the unit ray `d` from `o` to the capsule `c`'s surface, or a negative number
/// when it misses (0 when `o` is inside it). Exposed for tests.
double ray_capsule(const Vec3& o, const Vec3& d, const QueryCapsule& c);

}  // namespace foothold
