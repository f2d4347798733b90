#pragma once
// Every tolerance the movement core uses, in one place, each with its unit and its reason
// (docs/movement.md §14). Three kinds:
//  - degeneracy guards: below them a length or a direction means nothing and a fallback is used;
//    they lie far below anything a real world produces (the position quantum is ~1e-3 m);
//  - noise bands: comparisons that must not be decided by rounding noise;
//  - design constants of a mechanism, named after it.
// The physical margins (safety_margin, contact_distance, rest_gap) are settings, not tolerances.
// Changing any value here changes results: the scenario traces must then be re-examined.

#include "shared/fixed_point.h"

namespace foothold::tolerance {

// ---- Degeneracy guards --------------------------------------------------------------------------

/// m. A closest-point distance below this has no direction: the contact normal falls back to the
/// triangle's own normal (the core touches or pierces the triangle).
inline constexpr double kContactDirection = 1e-12;

/// m². A segment (or a vector used as one) whose squared length is at most this is a point.
inline constexpr double kPointSegmentSq = 1e-18;

/// m². A squared length at most this is zero: a motion with no part across a cylinder's axis, an
/// edge with no extent in the ground plane (1e-12 m).
inline constexpr double kZeroLengthSq = 1e-24;

/// m². Twice a triangle's area below this (a sliver a micrometre wide) gives no usable normal: the
/// triangle is degenerate and is dropped from the world.
inline constexpr double kDegenerateTwiceArea = 1e-10;

/// Unit normal's y. A triangle with |n.y| at most this is vertical for the upright-capsule fast
/// path (which divides by n.y); a hit with n.y above minus this faces no further down than a wall.
inline constexpr double kVerticalNormalY = 1e-6;

/// Unit vector's y. A direction with |y| at most this is horizontal: a vertical triangle offers both
/// capsule caps to a sweep; a crease this level cannot be climbed at a capped speed.
inline constexpr double kHorizontalY = 1e-9;

/// Unit². A plane whose normal has a horizontal part with squared length below this is a flat floor
/// or ceiling: no velocity along it can keep a chosen vertical speed.
inline constexpr double kFlatPlaneHorizontalSq = 1e-12;

/// m². A motion shorter than 1e-9 m is no motion: the slide is over.
inline constexpr double kNegligibleMotionSq = 1e-18;

// ---- Noise bands --------------------------------------------------------------------------------

/// m. Distances that differ by less than this are equal: a cast reaching a shared edge at the same
/// moment as the contact's own triangle, a stair rise exactly at step_height, a push-out that did
/// not really get lower, a back-off too small to make.
inline constexpr double kDistanceNoise = 1e-9;

/// m. Which side of an edge a point lies on, within rounding of a cross product.
inline constexpr double kEdgeSide = 1e-12;

/// Cosine. A motion approaches a contact it already touches when its cosine with the contact
/// normal is below minus this; grazing along the contact is not approaching it.
inline constexpr double kApproachCosine = 1e-9;

/// Fraction of a sweep. The "no hit yet" time of a sweep lies just past the end of the motion, so
/// that a hit exactly at the end still counts.
inline constexpr double kNoHitFraction = 1.0 + 1e-12;

/// m/s. A capped vertical speed exceeded by less than this is not exceeded.
inline constexpr double kSpeedNoise = 1e-12;

/// Dot product of unit normals. Two touching planes at this or below meet at an acute angle
/// (docs/movement.md §6.2: a right angle counts as acute, with rounding on the acute side).
inline constexpr double kAcuteDot = 1e-9;

/// Dot product of unit normals: planes within 1 degree of each other are one plane for the touching
/// set and for crevices and pits (movement.md §6.2, §3.4). Real levels exported through float32 have
/// seams between faces meant to be coplanar that differ by up to ~0.02 degrees; a crease between them
/// would point nowhere useful. cos(1 degree).
inline constexpr double kCoplanarDot = 0.9998476951563913;

/// Sine of one degree. A motion blocked at its very start by a face it approaches at less than
/// this angle only grazes it (movement.md §6.1): the bare capsule moves on within the safety margin.
inline constexpr double kGrazeSine = 0.01745240643728351;

/// Dot product of a unit normal and a unit direction. A normal opposes a slide direction (a crevice
/// or a pit, §3.4) when their dot product is below minus this: a face parallel to the slide does not.
inline constexpr double kOpposeDot = 1e-6;

/// Relative and m. An inner-point cast travels this far past its contact so that the contact's own
/// triangle is surely reached within the cast (§3.3).
inline constexpr double kCastOvershoot = 1e-9;

/// m. Within this vertical distance of its lock height a character counts as locked (§10): one
/// position quantum, so that rounding to the grid never makes the lock move it back and forth.
inline constexpr double kLockTolerance = kPositionQuantum;

/// A contact whose normal rises less than this (about 84° from the horizontal) takes no part in the
/// floor lock (§10): a vertical move hardly changes its gap, so the lock it asks for, (rest_gap -
/// gap) / n.y, grows without bound. An always_ground triangle touched at its edge gives such normals:
/// before this bound, one threw a character walking along the arena's tagged wedge to the world's
/// limit in one tick.
inline constexpr double kLockMinNormalY = 0.1;

// ---- Design constants ---------------------------------------------------------------------------

/// Unit². The back-off from a non-walkable surface (§6.1) is horizontal only when the normal's
/// horizontal part is longer than 1/2 (the face is steeper than 30°): dividing by it would
/// otherwise magnify the back-off more than twice.
inline constexpr double kBackOffHorizontalSq = 0.25;

/// m. A stair attempt needs at least this much horizontal motion (§7).
inline constexpr double kStairMinApproach = 1e-6;

/// m. A raised forward move shorter than this (a tenth of a position quantum) is no progress:
/// the stair attempt fails.
inline constexpr double kStairMinAdvance = 1e-4;

/// Share of the walkable reach. The second stair attempt moves the nosing to within this share of
/// the largest walkable offset (radius + safety_margin) * sin(max_slope), so that rounding cannot
/// leave the landing contact just outside the walkable cone (§7).
inline constexpr double kNosingSpare = 0.9;

/// Share of contact_distance. Push-out looks for a lower free spot (§8.2) only when it raised the
/// character by more than this share: less is within the floor lock's reach anyway.
inline constexpr double kPushOutRiseShare = 0.25;

/// Metres: how far above a crushed character the crush rule looks for a free spot (movement.md
/// §15.3). Higher than any mover a level would crush a character under; beyond it the character stays.
inline constexpr double kCrushSearchHeight = 16;

/// Metres: half the side of the square that stands for a fence between two characters (movement.md
/// §16). Far beyond anything a character reaches in one tick, so the square acts as the whole plane.
inline constexpr double kFenceHalfSize = 8;
/// A fence normal with |y| below this is taken as tilted enough to build its square's edges from
/// cross(n, up); nearer vertical, from cross(n, X).
inline constexpr double kFenceVertical = 0.999;

/// m. A sweep skips a triangle whose distance from the capsule exceeds the motion's length by more
/// than this: no point of the capsule can close the gap in one motion. A thousand times any rounding
/// of those two lengths, so that the cull never drops a contact the full sweep would find. Affects
/// speed only, never results.
inline constexpr double kOutOfReachSpare = 1e-6;

/// m. Slack around the box a character's candidate cache is gathered for (CandidateCache): a walking
/// character's next steps stay inside it. Affects speed only, never results.
inline constexpr double kCacheSlack = 0.5;

/// m. Slack added around a query that reaches outside the step's gathered candidates (§4.3), so
/// that a wandering step gathers again rarely. Affects speed only, never results.
inline constexpr double kGatherSlack = 1.0;

}  // namespace foothold::tolerance
