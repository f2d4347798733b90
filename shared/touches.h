#pragma once
// What a character touched during a step (docs/movement.md §12): for footsteps, triggers, damage
// floors and sounds, as Quake's touch list and Jolt's active contacts. A report: the step never reads
// it back, and it never crosses a tick.

#include <array>
#include <cstdint>

#include "shared/triangle_mesh.h"
#include "shared/vec3.h"

namespace foothold {

/// What kind of thing a touch is.
enum class TouchKind : uint8_t {
  kSurface = 0,  ///< a static triangle of the World
  kMover = 1,    ///< a triangle of a mover (movement.md §15.1)
  kCharacter = 2,  ///< another character's capsule (movement.md §16)
};

/// One thing the character touched during a step (movement.md §12).
struct Touch {
  TouchKind kind = TouchKind::kSurface;  ///< what was touched
  uint32_t triangle = 0;                 ///< the triangle index (ContactQueries::triangle(); movers' from World::triangle_count() on)
  uint16_t mover = 0;                    ///< kMover: the mover's index
  uint32_t character = 0;                ///< kCharacter: the other character's id
  SurfaceTag tag = SurfaceTag::kByNormal;  ///< the triangle's ground tag
  Vec3 normal;                           ///< unit contact normal, pointing toward the character
  bool floor = false;                    ///< the character stands on it at the end of the tick
  bool blocked = false;                  ///< it stopped the character's motion during the tick
};

/// Marks `t` as a mover's triangle when `mover` (ContactQueries::mover_of()) is not -1, or as
/// another character when `character` (ContactQueries::character_of()) is not -1.
inline void mark_owner(Touch& t, int mover, int64_t character) {
  if (mover >= 0) {
    t.kind = TouchKind::kMover;
    t.mover = uint16_t(mover);
  } else if (character >= 0) {
    t.kind = TouchKind::kCharacter;
    t.character = uint32_t(character);
  }
}

/// What a step touched: unique per triangle, sorted by triangle index; fixed capacity, no heap.
class TouchList {
 public:
  /// Most touches kept per step.
  static constexpr int kCapacity = 16;
  /// Number of touches held.
  int size() const { return count_; }
  /// Touch i, in ascending triangle order. Precondition: 0 <= i < size() (not checked).
  const Touch& operator[](int i) const { return items_[size_t(i)]; }
  /// How many times add() had to drop a touch because the list was full (the list keeps the lowest
  /// triangle indices; a triangle dropped twice counts twice); 0 almost always.
  int dropped() const { return dropped_; }
  /// Adds a touch, or merges its flags into the entry for the same triangle (the earlier normal stays).
  void add(const Touch& touch);
  /// Empty again, as a new list (the entries past size() are never read, so they stay as they are).
  void clear() {
    count_ = 0;
    dropped_ = 0;
  }

 private:
  std::array<Touch, kCapacity> items_{};
  int count_ = 0;
  int dropped_ = 0;
};

}  // namespace foothold
