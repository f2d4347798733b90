#pragma once
// The queries the movement step asks of the world, run over one step's candidate triangles:
// sweeps of the character's capsule and the contacts around it. Results are reduced in ascending
// triangle order with strict comparisons, so ties always go to the lower triangle index.

#include <array>
#include <cstdint>
#include <vector>

#include "shared/geometry.h"
#include "shared/mover_frame.h"
#include "shared/settings.h"
#include "shared/world.h"

namespace foothold {

/// A contact with one triangle, as seen from a capsule position.
struct Contact {
  uint32_t triangle = 0;  ///< the World's triangle index
  Vec3 point;        ///< closest point on the triangle, metres
  Vec3 normal;       ///< unit, from the triangle toward the capsule's core segment
  Vec3 core_point;   ///< closest point on the capsule's core segment, metres
  double gap = 0;    ///< metres from the capsule's surface; negative when penetrating
  SurfaceTag tag = SurfaceTag::kByNormal;  ///< the triangle's ground tag
};

/// A fixed-capacity list of contacts, nearest first (ties by triangle index); no heap.
class ContactList {
 public:
  /// Most contacts kept; beyond it the farthest are dropped.
  static constexpr int kCapacity = 32;

  ContactList() = default;
  ContactList(const ContactList&) = default;
  /// Copies the contacts held, not the whole capacity (about 2.8 kB): a step assigns ground
  /// results several times, and most hold a contact or two.
  ContactList& operator=(const ContactList& other) {
    for (int i = 0; i < other.count_; ++i) items_[size_t(i)] = other.items_[size_t(i)];
    count_ = other.count_;
    return *this;
  }

  /// Number of contacts held.
  int size() const { return count_; }
  /// Contact i, nearest first. Precondition: 0 <= i < size() (not checked).
  const Contact& operator[](int i) const { return items_[size_t(i)]; }
  /// Empties the list.
  void clear() { count_ = 0; }
  /// Inserts in order; when full, the farthest contact is dropped.
  void insert(const Contact& c);
  /// Removes contact i, keeping the order of the rest. Precondition: 0 <= i < size().
  void remove(int i);

 private:
  std::array<Contact, kCapacity> items_{};
  int count_ = 0;
};

/// The first contact along a sweep.
struct SweepHit {
  bool hit = false;     ///< false: the whole motion is free (the other fields keep their defaults)
  double fraction = 1;  ///< of the motion, [0, 1]; 1 when nothing was hit
  uint32_t triangle = 0;  ///< the World's triangle index hit (ties: the lowest index)
  Vec3 normal;          ///< unit contact normal at the time of impact, toward the capsule; only when hit
};

/// The world queries of one step, over the candidates it has collected (movement.md §2, §4.3).
/// Keeps references to `world`, `settings` and `candidates`: all three must outlive this object.
/// Positions are capsule centres in metres, world axes.
/// One character's candidate triangles kept from one step to the next (optional, owned by the caller,
/// one per character): while a step's gather box lies inside the box they were gathered for, the BVH
/// is not walked again. They are exactly the triangles overlapping `covered`, so reusing them
/// changes no result, only where the memory reads go.
struct CandidateCache {
  Aabb covered;                     ///< the box the candidates were gathered for, metres
  std::vector<uint32_t> candidates; ///< every triangle overlapping `covered`, ascending
  bool valid = false;
};

class ContactQueries {
 public:
  /// `candidates` is scratch storage: the triangles collected so far (the caller reuses it across
  /// steps so that its capacity stays). Queries outside the bounds collected so far collect again, so
  /// every answer depends only on the world and the query, never on what was collected before.
  /// `movers` (null for a world without movers) places the world's movers at this tick: their
  /// triangles are candidates like static ones, with indices from world.triangle_count() on.
  ContactQueries(const World& world, const DerivedSettings& settings, std::vector<uint32_t>& candidates,
                 const MoverFrame* movers = nullptr)
      : world_(world), settings_(settings), candidates_(candidates), movers_(movers),
        static_count_(uint32_t(world.triangle_count())) {
    candidates_.clear();
  }
  /// Keeps references to the world, the settings and the candidate storage (one step's lifetime):
  /// temporaries would dangle, so they do not compile.
  ContactQueries(World&&, const DerivedSettings&, std::vector<uint32_t>&, const MoverFrame* = nullptr) = delete;
  ContactQueries(const World&, DerivedSettings&&, std::vector<uint32_t>&, const MoverFrame* = nullptr) = delete;

  /// Triangle i: a static one (i < world().triangle_count()), a mover's placed at this tick, or a
  /// fence between this character and another (set_fences()).
  const WorldTriangle& triangle(uint32_t i) const {
    if (i < static_count_) return world_.triangle(i);
    if (i < fence_base_) return movers_->triangle(i - static_count_);
    return fences_[i - fence_base_];
  }
  /// The mover triangle i belongs to, or -1 for a static triangle or a fence.
  int mover_of(uint32_t i) const {
    return i < static_count_ || i >= fence_base_ ? -1 : int(movers_->mover_of(i - static_count_));
  }
  /// The other character a fence triangle stands for, or -1 for any other triangle.
  int64_t character_of(uint32_t i) const { return i < fence_base_ ? -1 : int64_t(fence_owners_[i - fence_base_]); }
  /// Adds `count` fence triangles (movement.md §16): sweeps stop at them as at any surface, but they
  /// are never contacts, so they never ground, push out or wedge the character. `owners[k]` is the
  /// other character's id for fences[k]. Both arrays must outlive the queries.
  void set_fences(const WorldTriangle* fences, const uint32_t* owners, std::size_t count) {
    fences_ = fences;
    fence_owners_ = owners;
    fence_count_ = uint32_t(count);
    any_ = false;  // collect again, fences included
  }
  /// The movers at this tick (null without).
  const MoverFrame* movers() const { return movers_; }
  /// Makes sweeps pass through mover m's triangles (-1: none), for carrying a character with it.
  void ignore_mover(int m) { ignored_mover_ = m; }

  /// Collects the candidates for `box` (metres) ahead of the queries: one BVH walk for a whole step.
  /// Replaces what was collected before; a later query outside `box` still collects again. With a
  /// `cache` that covers `box`, its candidates are taken instead (and a cache that does not is
  /// refilled, for `box` grown by kCacheSlack).
  void prefetch(const Aabb& box, CandidateCache* cache = nullptr);

  /// The character's capsule centred at `center`, grown by `inflate` metres.
  Capsule capsule(const Vec3& center, double inflate = 0) const {
    return {center, settings_.half_segment, settings_.radius + inflate};
  }

  /// Sweeps the capsule, grown by the safety margin, from `center` by `motion`: stopping at the hit
  /// leaves exactly the safety margin between the character and the surface.
  SweepHit sweep(const Vec3& center, const Vec3& motion) { return sweep_shape(capsule(center, settings_.safety_margin), motion); }

  /// Sweeps an arbitrary capsule (e.g. a sphere, for contact-point validation) over the candidates.
  SweepHit sweep_shape(const Capsule& shape, const Vec3& motion);

  /// Replaces `out` with the contacts of the character's capsule centred at `center` whose gap is at
  /// most `max_gap` metres (one-sided: triangles facing away are skipped), nearest first.
  void contacts(const Vec3& center, double max_gap, ContactList& out);

  /// Whether any mover's triangle lies within contacts()'s reach of `center` for `max_gap`: when
  /// none does, contacts(center, max_gap, ...) holds no mover triangle. Collects nothing.
  bool mover_within(const Vec3& center, double max_gap) const;

  /// The first triangle the vertical line through `point` crosses going up, within `reach` metres:
  /// true with `faces_up` set to whether that triangle's front faces up; false when none is crossed.
  /// A point whose first crossing above faces up is inside a closed solid (movement.md §15.3).
  bool first_crossing_above(const Vec3& point, double reach, bool& faces_up);

  /// Gap (metres) between the character at `center` and one triangle (+infinity when it faces away).
  double gap_to(uint32_t triangle, const Vec3& center) const;

  /// The world the queries run in.
  const World& world() const { return world_; }
  /// The settings the capsule and margins come from.
  const DerivedSettings& settings() const { return settings_; }

 private:
  const World& world_;
  const DerivedSettings& settings_;
  void ensure(const Vec3& lo, const Vec3& hi);
  Aabb contact_box(const Vec3& center, double max_gap) const;  // the bounds contacts() looks within
  void add_mover_candidates(const Aabb& box);
  std::vector<uint32_t>& candidates_;
  const MoverFrame* movers_;
  uint32_t static_count_;
  uint32_t fence_base_ = static_count_ + uint32_t(movers_ ? movers_->triangle_count() : 0);
  const WorldTriangle* fences_ = nullptr;
  const uint32_t* fence_owners_ = nullptr;
  uint32_t fence_count_ = 0;
  int ignored_mover_ = -1;
  Aabb covered_;
  bool any_ = false;
};

}  // namespace foothold
