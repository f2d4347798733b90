#pragma once
// Grounding (docs/movement.md §3): is the character standing on something, and why.

#include "shared/character_state.h"
#include "shared/contact_queries.h"

namespace foothold {

/// What grounding found at one capsule position.
struct GroundResult {
  GroundKind kind = GroundKind::kNone;  ///< why the character is grounded, or kNone (movement.md §3)
  /// Contacts within contact_distance, nearest first. Inner points are pruned whenever they could
  /// matter, that is whenever the nearest contact does not itself support the character.
  ContactList contacts;
  /// For kWalkable and kTagged: the index in `contacts` of the supporting floor contact; else -1.
  int floor = -1;
  /// The deepest penetration among the contacts (metres, > 0), or 0 when nothing penetrates.
  double penetration = 0;

  /// True for any kind but kNone (crevices and pits included).
  bool grounded() const { return is_grounded(kind); }
  /// True when a contact supports the character (kWalkable, kTagged): it has a floor to walk along.
  bool on_floor() const { return floor >= 0; }
  /// The supporting floor contact. Precondition: on_floor().
  const Contact& floor_contact() const { return contacts[floor]; }
};

/// True when a unit contact normal is walkable: n.y >= cos(max_slope). Ignores tags; see supports().
inline bool walkable_normal(const Vec3& n, const DerivedSettings& s) { return n.y >= s.cos_max_slope; }

/// True when a contact supports the character (movement.md §3.2): its normal points up and its
/// triangle is tagged always_ground, or is untagged with a walkable normal. never_ground never does.
/// The one place this test is written: grounding, the floor lock and the touch list all ask it.
inline bool supports(const Contact& c, const DerivedSettings& s) {
  return c.normal.y > 0 &&
         (c.tag == SurfaceTag::kAlwaysGround || (c.tag == SurfaceTag::kByNormal && walkable_normal(c.normal, s)));
}

/// Evaluates grounding for the character centred at `center`:
///  1. contacts: closest points of nearby triangles within contact_distance (one-sided);
///  2. inner points pruned: a sphere cast from the capsule toward each point must reach that point's
///     own triangle first;
///  3. a contact whose normal points up grounds the character when it is walkable (n.y >=
///     cos(max_slope)), or when its triangle is tagged always_ground; never_ground triangles never do;
///  4. otherwise the character is wedged, and grounded, when two normals form a crevice whose crease
///     descends no steeper than max_slope, or three normals form a pit.
/// `center` is the capsule centre, metres; the result does not depend on the queries' earlier use.
GroundResult evaluate_ground(ContactQueries& queries, const Vec3& center);
/// The same, into `out` (every field replaced): a step grounds several times, and a GroundResult
/// holds a whole ContactList, so it reuses one instead of building and copying a new one each time.
void evaluate_ground(ContactQueries& queries, const Vec3& center, GroundResult& out);

}  // namespace foothold
