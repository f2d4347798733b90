#pragma once
// Collide-and-slide (docs/movement.md §6, §7): move the character along its velocity, sliding along what it
// hits, climbing stairs, and stopping in acute pits.

#include "shared/contact_queries.h"
#include "shared/touches.h"

namespace foothold {

/// What collide_and_slide() moves.
struct SlideInput {
  Vec3 position;        ///< capsule centre at the start, metres
  Vec3 velocity;        ///< metres per second
  double time = 0;      ///< seconds to move for (one tick)
  bool grounded = false;///< grounded at the start and not jumping: climbs stairs, never climbs steep faces
  double support_y = 0; ///< world Y of the supporting ground point, metres: stairs rise at most step_height above it (§7)
  Vec3 floor_normal;    ///< unit normal of the floor a grounded character walks along; zero: none (it walks level)
};

/// Where collide_and_slide() left the character.
struct SlideResult {
  Vec3 position;        ///< capsule centre at the end, metres (not rounded to the grid)
  Vec3 velocity;        ///< m/s: the velocity after the planes it met removed what pointed into them
  int iterations = 0;   ///< sweeps that hit and slid on; the sweep that ends the motion (free, a stair,
                        ///< an acute pit) is not counted, so a free move reports 0
  bool stepped_up = false;  ///< climbed a stair (movement.md §7); the motion ended there
};

/// Runs the solver loop: at most max_iterations sweeps. The capsule always stops safety_margin short
/// of what it hits. The touching set and its one-, two- and three-plane rules decide how the velocity
/// continues. A grounded character blocked by an upright wall or a too-steep slope first tries to
/// step up (at most step_height, once per tick). Every surface a sweep stops at is added to `touches`
/// as blocked. `queries` and `touches` are only used during the call.
SlideResult collide_and_slide(ContactQueries& queries, const SlideInput& in, TouchList& touches);

/// The velocity after sliding along one plane of unit normal n. Walkable planes reject the part of v
/// into them. Other planes never lift the character: a grounded character keeps its vertical speed
/// exactly, an airborne one never gains more upward speed than it had (movement.md §6.3). v in m/s;
/// `walkable`: n is walkable; `grounded`: the character moves grounded. A v not into the plane is kept.
Vec3 slide_along_plane(const Vec3& v, const Vec3& n, bool walkable, bool grounded);

}  // namespace foothold
