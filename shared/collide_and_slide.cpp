#include "shared/collide_and_slide.h"

#include <array>
#include <cmath>

#include "shared/det_math.h"
#include "shared/ground.h"
#include "shared/tolerances.h"

namespace foothold {

namespace {

using tolerance::kAcuteDot;

struct Touching {
  uint32_t triangle = 0;
  Vec3 normal;
};

// Solves for the velocity that keeps vertical speed `target_y`, slides along the plane (v . n = 0)
// and is closest to v horizontally. Falls back to the plain rejection for a plane with no horizontal
// extent (a flat ceiling), where no such velocity exists.
Vec3 keep_vertical(const Vec3& v, const Vec3& n, double target_y) {
  const Vec3 nh = horizontal(n);
  const double nh_sq = length_sq(nh);
  if (nh_sq < tolerance::kFlatPlaneHorizontalSq) return reject(v, n);
  const Vec3 hv = horizontal(v);
  const Vec3 h = hv - nh * ((dot(hv, nh) + target_y * n.y) / nh_sq);
  return {h.x, target_y, h.z};
}

}  // namespace

// The highest vertical speed a non-walkable surface may leave. It never lifts: a grounded character
// keeps its vertical speed exactly; an airborne one rising keeps its rise (so a jump peaks as on the
// flat), and one falling slides down no slower than its fall alone would make it (`fall_share` of the
// fall survives the contact: sin^2 of the slope for a plane, d.y^2 for a crease d). Only the climb that
// a horizontal push into the surface would add is refused.
double vertical_cap(double vy, bool grounded, double fall_share) {
  if (grounded || vy >= 0) return vy;
  return vy * fall_share;
}

Vec3 slide_along_plane(const Vec3& v, const Vec3& n, bool walkable, bool grounded) {
  if (dot(v, n) >= 0) return v;
  const Vec3 rejected = reject(v, n);
  if (walkable) return rejected;
  const double cap = vertical_cap(v.y, grounded, n.y > 0 ? 1 - n.y * n.y : 1);
  if (grounded) return keep_vertical(v, n, cap);
  return rejected.y > cap ? keep_vertical(v, n, cap) : rejected;
}

namespace {

class Solver {
 public:
  Solver(ContactQueries& q, const SlideInput& in, TouchList& touches)
      : q_(q), s_(q.settings()), in_(in), touches_(touches), floor_(in.floor_normal.y > 0 ? in.floor_normal : kUp) {}

  SlideResult run() {
    SlideResult out;
    Vec3 p = in_.position;
    Vec3 v = in_.velocity;
    double time_left = in_.time;
    for (; out.iterations < s_.max_iterations; ++out.iterations) {
      const Vec3 motion = v * time_left;
      if (length_sq(motion) < tolerance::kNegligibleMotionSq) break;
      SweepHit hit = q_.sweep(p, motion);
      bool grazed = false;
      if (hit.hit && hit.fraction == 0 && dot(motion, hit.normal) > -tolerance::kGrazeSine * length(motion)) {
        // §6.1: blocked at the very start by a face the motion only grazes (within a degree: rounding,
        // or a near-coplanar neighbour of the plane being slid along). The margin is there to absorb
        // exactly this: the bare capsule moves on, and a later hit backs it off again.
        hit = q_.sweep_shape(q_.capsule(p), motion);
        grazed = true;
      }
      if (!hit.hit) {
        p += motion;
        time_left = 0;
        break;
      }
      report(hit);
      // Never over another character (§16): its fence is a plane far taller than a stair, so the
      // attempt would only cost three sweeps to fail.
      if (in_.grounded && !out.stepped_up && !walkable_normal(hit.normal, s_) &&
          hit.normal.y > -tolerance::kVerticalNormalY && q_.character_of(hit.triangle) < 0) {
        Vec3 stepped;
        if (step_up(p, motion, stepped)) {
          p = stepped;
          time_left = 0;
          out.stepped_up = true;
          break;
        }
      }
      p += motion * hit.fraction;
      time_left *= 1 - hit.fraction;
      if (hit.fraction == 0 || grazed) p = back_off(p, hit);

      // Forget surfaces we have slid away from; remember the one just hit.
      for (int i = touching_count_ - 1; i >= 0; --i)
        if (q_.gap_to(touching_[i].triangle, p) > 2 * s_.safety_margin) forget(i);
      Vec3 n = hit.normal;
      bool met_as_wall = false;
      if (in_.grounded) {
        // Walking (§6.3): a walkable face ahead becomes the floor; anything steeper is met as the
        // upright wall it rises into, so that it stops the character at its foot instead of lifting it.
        if (walkable(n)) {
          floor_ = n;
        } else {
          n = as_wall(n);
          met_as_wall = true;
        }
      }
      remember({hit.triangle, n});

      if (!respond(v)) {
        v = {};
        break;
      }
      if (in_.grounded) {
        v = along_floor_plane(v);
        if (met_as_wall) v = along_foot(v, hit.normal);
      }
    }
    out.position = p;
    out.velocity = v;
    return out;
  }

 private:
  bool walkable(const Vec3& n) const { return walkable_normal(n, s_); }

  // The upright wall a steep face rises into: its normal without the vertical part (a face with no
  // horizontal extent stays as it is).
  static Vec3 as_wall(const Vec3& n) {
    const Vec3 nh = horizontal(n);
    const double len_sq = length_sq(nh);
    return len_sq < tolerance::kFlatPlaneHorizontalSq ? n : nh / std::sqrt(len_sq);
  }

  // A walking character's velocity stays on its floor: the horizontal part the touching rules left,
  // with the vertical speed the floor plane gives it. It never climbs or leaves the floor by sliding.
  Vec3 along_floor_plane(const Vec3& v) const {
    return {v.x, -(v.x * floor_.x + v.z * floor_.z) / floor_.y, v.z};
  }

  // Along the foot of a steep face that leans back (§6.3). The upright wall it was met as holds off
  // only the velocity's horizontal part; a floor that falls toward the face carries the rest down
  // into it, and every later sweep would stop at once against it: the character stood still for
  // good, pressed into the corner where a stair's side meets the next riser. Then the velocity
  // follows the line where the floor meets the face. A velocity that only grazes the face is left
  // as it was: the sweep lets it pass (§6.1).
  Vec3 along_foot(const Vec3& v, const Vec3& face) const {
    if (!(dot(v, face) < -tolerance::kGrazeSine * length(v))) return v;
    const Vec3 d = normalized_or_zero(cross(floor_, face));
    return d * dot(v, d);
  }

  // The touching rules (movement.md §6.2). Returns false when the character must stop (an acute pit).
  bool respond(Vec3& v) {
    const Touching& current = touching_[touching_count_ - 1];
    if (touching_count_ == 1) {
      v = slide_along_plane(v, current.normal, walkable(current.normal), in_.grounded);
      return true;
    }
    if (touching_count_ == 2) {
      const Touching& other = touching_[0];
      if (dot(other.normal, current.normal) <= kAcuteDot) {
        v = along_crease(v, other.normal, current.normal);
      } else {
        keep_only_current();
        v = slide_along_plane(v, current.normal, walkable(current.normal), in_.grounded);
      }
      return true;
    }
    // Three: A and B are the older ones, C the current.
    const Touching a = touching_[0], b = touching_[1], c = touching_[2];
    const bool a_acute = dot(c.normal, a.normal) <= kAcuteDot;
    const bool b_acute = dot(c.normal, b.normal) <= kAcuteDot;
    if (!a_acute && !b_acute) {
      keep_only_current();
      v = slide_along_plane(v, c.normal, walkable(c.normal), in_.grounded);
    } else if (a_acute && b_acute) {
      return false;
    } else if (!a_acute) {
      touching_[0] = b;
      touching_[1] = c;
      touching_count_ = 2;
      v = along_crease(v, b.normal, c.normal);
    } else {
      touching_[0] = a;
      touching_[1] = c;
      touching_count_ = 2;
      v = along_crease(v, a.normal, c.normal);
    }
    return true;
  }

  // Velocity along the crease of two acute planes. A crease steeper than the slope limit formed by
  // a non-walkable plane is climbed no faster than the character was already rising.
  Vec3 along_crease(const Vec3& v, const Vec3& n1, const Vec3& n2) const {
    const Vec3 d = normalized_or_zero(cross(n1, n2));
    Vec3 r = d * dot(v, d);
    const bool steep = std::fabs(d.y) > s_.sin_max_slope && (!walkable(n1) || !walkable(n2));
    if (steep) {
      const double cap = vertical_cap(v.y, in_.grounded, d.y * d.y);
      if (r.y > cap + tolerance::kSpeedNoise) r = std::fabs(d.y) > tolerance::kHorizontalY ? d * (cap / d.y) : Vec3{};
    }
    return r;
  }

  // A hit at the very start means we began closer than the safety margin (rounding to the grid
  // moves a character by up to half a quantum per axis). Back away to restore the margin, without
  // entering anything else. From a surface that is not walkable the way out is horizontal, so that
  // grazing a steep face never lifts the character (a jump along a wall peaks as on the flat).
  Vec3 back_off(const Vec3& p, const SweepHit& hit) {
    const double gap = q_.gap_to(hit.triangle, p);
    // By up to the safety margin (movement.md §6.1). Anything deeper is push-out's to resolve.
    const double need = det_min(s_.safety_margin - gap, s_.safety_margin);
    if (!(need > tolerance::kDistanceNoise)) return p;
    Vec3 push = hit.normal * need;
    const Vec3 nh = horizontal(hit.normal);
    if (!walkable(hit.normal) && length_sq(nh) > tolerance::kBackOffHorizontalSq) push = nh * (need / length_sq(nh));
    const SweepHit block = q_.sweep(p, push);
    return p + push * (block.hit ? block.fraction : 1.0);
  }

  // Stairs: up by at most step_height, forward by the remaining horizontal motion, then down onto
  // walkable ground no more than step_height above the current support. When the capsule's round
  // base lands on the stair's nosing at a steep angle, a second attempt moves just far enough
  // further (at most one radius) for the nosing to be walkable.
  bool step_up(const Vec3& p, const Vec3& motion, Vec3& out) {
    const Vec3 horiz = horizontal(motion);
    const double horiz_len = length(horiz);
    if (horiz_len < tolerance::kStairMinApproach || s_.step_height <= 0) return false;
    const Vec3 dir = horiz / horiz_len;
    const SweepHit up = q_.sweep(p, Vec3{0, s_.step_height, 0});
    const double raised = s_.step_height * (up.hit ? up.fraction : 1.0);
    if (raised < s_.safety_margin) return false;
    const Vec3 p_up = p + Vec3{0, raised, 0};
    double forward = horiz_len;
    for (int attempt = 0; attempt < 2; ++attempt) {
      const SweepHit fwd = q_.sweep(p_up, dir * forward);
      const double moved = forward * (fwd.hit ? fwd.fraction : 1.0);
      if (moved < tolerance::kStairMinAdvance) return false;
      const Vec3 p_fwd = p_up + dir * moved;
      const double down_len = raised + s_.contact_distance;
      const SweepHit down = q_.sweep(p_fwd, Vec3{0, -down_len, 0});
      if (!down.hit) return false;  // nothing underneath: not a stair
      const Vec3 landed = p_fwd + Vec3{0, -down_len * down.fraction, 0};
      const GroundResult g = evaluate_ground(q_, landed);
      if (g.on_floor() && supports(g.floor_contact(), s_)) {  // on the tread, not perched on its nosing
        const double rise = g.floor_contact().point.y - in_.support_y;
        if (rise > s_.step_height + tolerance::kDistanceNoise) return false;
        // Blocked at the raised height too and no higher than before: the obstacle is a wall, not
        // a stair (a thin obstacle stepped over entirely is fine).
        if (fwd.hit && rise < s_.safety_margin) return false;
        out = landed;
        return true;
      }
      if (attempt == 1 || fwd.hit) return false;
      // How far the nosing is ahead of the core, beyond what a walkable normal allows.
      const Vec3 nose = horizontal(down_contact_point(landed, down.triangle) - landed);
      const double ahead = dot(nose, dir);
      const double extra = ahead - (s_.radius + s_.safety_margin) * s_.sin_max_slope * tolerance::kNosingSpare;
      if (!(extra > 0) || extra > s_.radius) return false;
      forward = horiz_len + extra;
    }
    return false;
  }

  Vec3 down_contact_point(const Vec3& center, uint32_t triangle) const {
    const Capsule c = q_.capsule(center);
    return closest_segment_triangle(c.bottom(), c.top(), q_.triangle(triangle).tri).on_triangle;
  }

  void report(const SweepHit& hit) {
    Touch t;
    t.triangle = hit.triangle;
    t.tag = q_.triangle(hit.triangle).tag;
    mark_owner(t, q_.mover_of(hit.triangle), q_.character_of(hit.triangle));
    t.normal = hit.normal;
    t.blocked = true;
    touches_.add(t);
  }

  void remember(const Touching& t) {
    // The same triangle, or a plane within kCoplanarDot of one already touched, replaces it: one
    // plane, never a crease between near-coplanar faces (movement.md §6.2).
    for (int i = 0; i < touching_count_; ++i) {
      if (touching_[i].triangle == t.triangle || dot(touching_[i].normal, t.normal) >= tolerance::kCoplanarDot) {
        forget(i);
        break;
      }
    }
    if (touching_count_ == 3) forget(0);
    touching_[touching_count_++] = t;
  }
  void forget(int i) {
    for (int k = i; k + 1 < touching_count_; ++k) touching_[k] = touching_[k + 1];
    --touching_count_;
  }
  void keep_only_current() {
    touching_[0] = touching_[touching_count_ - 1];
    touching_count_ = 1;
  }

  ContactQueries& q_;
  const DerivedSettings& s_;
  const SlideInput& in_;
  TouchList& touches_;
  Vec3 floor_;  ///< the plane a walking character moves along (up without a floor: a crevice, a pit)
  std::array<Touching, 3> touching_{};
  int touching_count_ = 0;
};

}  // namespace

SlideResult collide_and_slide(ContactQueries& queries, const SlideInput& in, TouchList& touches) {
  return Solver(queries, in, touches).run();
}

}  // namespace foothold
