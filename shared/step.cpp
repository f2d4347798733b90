#include "shared/step.h"

#include <cmath>

#include "shared/collide_and_slide.h"
#include "shared/ground.h"
#include "shared/push_out.h"

namespace foothold {

namespace {

// Within this vertical distance of its lock height a character counts as locked: one grid step,
// so that rounding to the grid never makes the lock move it back and forth.
constexpr double kLockTolerance = kPositionQuantum;

// Doc 002: the wished horizontal velocity turned to run along the floor plane, keeping its heading
// and its speed, so that walking up or down a slope is as fast as walking on the flat.
Vec3 along_floor(const Vec3& wish_velocity, const Vec3& n) {
  const double speed = length(wish_velocity);
  if (speed == 0 || n.y <= 0) return wish_velocity;
  const Vec3 on_plane = wish_velocity - kUp * (dot(wish_velocity, n) / n.y);
  return on_plane * (speed / length(on_plane));
}

void apply_gravity(Vec3& v, const DerivedSettings& s, double seconds) {
  v.y -= s.gravity * seconds;
  if (v.y < -s.max_fall_speed) v.y = -s.max_fall_speed;
}

bool supports(const Contact& c, const DerivedSettings& s) {
  return c.normal.y > 0 &&
         (c.tag == SurfaceTag::kAlwaysGround || (c.tag == SurfaceTag::kByNormal && walkable_normal(c.normal, s)));
}

// Doc 002's lock: the vertical move that holds a grounded character at exactly rest_gap above its
// floor, whatever height it crossed into range at. For each supporting contact it is
// (rest_gap - gap) / n.y; the largest wins so that no support ends closer than rest_gap.
double lock_offset(const GroundResult& g, const DerivedSettings& s) {
  double dy = -1e300;
  for (int i = 0; i < g.contacts.size(); ++i) {
    const Contact& c = g.contacts[i];
    if (supports(c, s)) dy = std::fmax(dy, (s.rest_gap - c.gap) / c.normal.y);
  }
  return dy == -1e300 ? 0.0 : dy;
}

// The position the grid keeps, and what grounding finds there.
struct Settled {
  Vec3 position;
  GroundResult ground;
};
Settled settle(ContactQueries& q, const Vec3& p) {
  Settled out;
  out.position = to_position(quantize_position(p));
  out.ground = evaluate_ground(q, out.position);
  return out;
}

}  // namespace

StepResult step(const CharacterState& state, const InputCmd& input, const World& world, const DerivedSettings& s,
                StepScratch& scratch) {
  StepResult out;
  StepDiagnostics& diag = out.diagnostics;
  ContactQueries q(world, s, scratch.candidates);

  const Vec3 start = to_position(state.position);
  Vec3 v = to_velocity(state.velocity);
  const Vec3 wish = wish_direction(input);
  const double dt = s.dt;

  // 1. Grounding, as the previous tick left it at this very position (or a spawn left it: airborne).
  const bool grounded = is_grounded(state.ground);
  Vec3 floor_normal = to_normal(state.floor_normal);
  if (floor_normal.y <= 0) floor_normal = {};  // no floor to walk along (a crevice, a pit, or bad data)
  diag.ground_at_start = state.ground;

  // 2. Velocity.
  const Vec3 wish_velocity = wish * s.walk_speed;
  if (grounded && (input.buttons & kButtonJump)) {
    v = wish_velocity + Vec3{0, s.jump_speed, 0};
    diag.jumped = true;
    apply_gravity(v, s, dt / 2);
  } else if (grounded) {
    v = length_sq(floor_normal) > 0 ? along_floor(wish_velocity, floor_normal) : wish_velocity;
  } else {
    if (length_sq(wish) > 0) {
      Vec3 delta = wish_velocity - horizontal(v);
      const double max_change = s.air_acceleration * dt;
      const double len = length(delta);
      if (len > max_change) delta = delta * (max_change / len);
      v += delta;
    }
    apply_gravity(v, s, dt / 2);
  }
  const bool move_grounded = grounded && !diag.jumped;

  // One BVH walk for everything this step is likely to touch: the capsule's bounds grown by its
  // travel (and the snap after it) and the contact band, and vertically by a stair. A query beyond
  // them collects again (contact_queries.h), so this bound affects speed only, never results.
  const double travel = length(v) * dt;
  const double reach = travel * (1 + s.tan_max_slope) + 2 * s.contact_distance + s.safety_margin;
  const double half_h = s.half_segment + s.radius + s.step_height;
  q.prefetch({{start.x - s.radius - reach, start.y - half_h - reach, start.z - s.radius - reach},
              {start.x + s.radius + reach, start.y + half_h + reach, start.z + s.radius + reach}});

  // 3. Collide and slide.
  SlideInput slide_in;
  slide_in.position = start;
  slide_in.velocity = v;
  slide_in.time = dt;
  slide_in.grounded = move_grounded;
  // The supporting point of a character locked on its floor lies (radius + rest_gap) along the
  // floor normal below the lower sphere's centre.
  slide_in.support_y = start.y - s.half_segment - (s.radius + s.rest_gap) * (length_sq(floor_normal) > 0 ? floor_normal.y : 1.0);
  const SlideResult slid = collide_and_slide(q, slide_in);
  v = slid.velocity;
  diag.slide_iterations = slid.iterations;
  diag.stepped_up = slid.stepped_up;

  // From here on every position is judged where the grid will keep it.
  Settled at = settle(q, slid.position);

  // 4. Push-out: the solver never enters geometry, but a spawn, a teleport or a changed world can
  // leave the character inside it.
  if (at.ground.penetration > 0) {
    const PushOutResult po = push_out(q, at.position, move_grounded);
    diag.pushout_iterations = po.iterations;
    diag.pushout_unresolved = !po.resolved;
    at = settle(q, po.position);
  }

  // 5. Snap down after walking off the floor, onto walkable ground within reach.
  if (move_grounded && !at.ground.grounded()) {
    const double moved = length(horizontal(at.position - start));
    const double limit = s.step_height + moved * s.tan_max_slope + s.contact_distance;
    const SweepHit hit = q.sweep(at.position, Vec3{0, -limit, 0});
    if (hit.hit) {
      const Settled landed = settle(q, at.position + Vec3{0, -limit * hit.fraction, 0});
      if (landed.ground.on_floor()) {
        at = landed;
        diag.snapped_down = true;
      }
    }
  }

  // 6. Lock to the floor. A character rising through the air is never grounded.
  const bool rising = !move_grounded && v.y > 0;
  diag.rising = rising;
  if (at.ground.on_floor() && !rising) {
    const double dy = lock_offset(at.ground, s);
    if (std::fabs(dy) > kLockTolerance) {
      const Vec3 move{0, dy, 0};
      const SweepHit hit = q.sweep(at.position, move);
      at = settle(q, at.position + move * (hit.hit ? hit.fraction : 1.0));
      diag.locked_to_floor = true;
    }
  }

  // 7. The ground state is what grounding finds at the rounded position, where the next tick starts,
  // so that rounding can never flip it. Airborne characters get the second half of gravity;
  // grounded ones lose any velocity into their floor.
  const GroundKind ground = rising ? GroundKind::kNone : at.ground.kind;
  if (!is_grounded(ground)) {
    apply_gravity(v, s, dt / 2);
  } else if (at.ground.on_floor()) {
    const Vec3& n = at.ground.floor_contact().normal;
    if (dot(v, n) < 0) v = reject(v, n);
  }
  // A non-finite result (which would be a bug) keeps the character where it was.
  if (!(std::isfinite(at.position.x) && std::isfinite(at.position.y) && std::isfinite(at.position.z) &&
        std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z))) {
    at.position = start;
    v = {};
  }
  diag.position = at.position;
  out.state.position = quantize_position(at.position);
  out.state.velocity = quantize_velocity(v);
  out.state.ground = ground;
  if ((ground == GroundKind::kWalkable || ground == GroundKind::kTagged) && at.ground.on_floor())
    out.state.floor_normal = quantize_normal(at.ground.floor_contact().normal);
  return out;
}

}  // namespace foothold
