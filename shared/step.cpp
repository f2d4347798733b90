#include "shared/step.h"

#include <cmath>

#include "shared/collide_and_slide.h"
#include "shared/ground.h"
#include "shared/push_out.h"

namespace foothold {

namespace {

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

// Doc 002's lock: hold a grounded character at exactly rest_gap above its floor, whatever height it
// crossed into range at. For each supporting contact the vertical move that brings it to rest_gap is
// (rest_gap - gap) / n.y; the largest wins so that no support ends closer than rest_gap. The move is
// swept, so a ceiling stops it.
bool lock_to_floor(ContactQueries& q, Vec3& p, const GroundResult& g) {
  const DerivedSettings& s = q.settings();
  double dy = -1e300;
  for (int i = 0; i < g.contacts.size(); ++i) {
    const Contact& c = g.contacts[i];
    if (c.normal.y <= 0) continue;
    const bool supports = c.tag == SurfaceTag::kAlwaysGround || (c.tag == SurfaceTag::kByNormal && walkable_normal(c.normal, s));
    if (supports) dy = std::fmax(dy, (s.rest_gap - c.gap) / c.normal.y);
  }
  // Within half a quantum the position is already as locked as the grid can hold it; moving would
  // only trade one rounding for another.
  if (!(std::fabs(dy) >= kPositionQuantum / 2) || dy == -1e300) return false;
  const Vec3 move{0, dy, 0};
  const SweepHit hit = q.sweep(p, move);
  p += move * (hit.hit ? hit.fraction : 1.0);
  return true;
}

}  // namespace

StepResult step(const CharacterState& state, const InputCmd& input, const World& world, const DerivedSettings& s,
                StepScratch& scratch) {
  StepResult out;
  StepDiagnostics& diag = out.diagnostics;
  ContactQueries q(world, s, scratch.candidates);

  const Vec3 start = to_position(state.position);
  Vec3 p = start;
  Vec3 v = to_velocity(state.velocity);
  const Vec3 wish = wish_direction(input);
  const double dt = s.dt;

  // One BVH walk for everything this step can reach: the capsule's bounds grown by the farthest it
  // can travel, step and snap in one tick. A query beyond them collects again (contact_queries.h).
  const double reach = (length(v) + s.walk_speed + s.jump_speed + s.gravity * dt) * dt + 2 * s.step_height +
                       2 * s.contact_distance + s.safety_margin + s.radius;
  const double half_h = s.half_segment + s.radius;
  q.prefetch({{p.x - s.radius - reach, p.y - half_h - reach, p.z - s.radius - reach},
              {p.x + s.radius + reach, p.y + half_h + reach, p.z + s.radius + reach}});

  // 1. Grounding. The state's own ground kind says whether the last tick ended grounded (a rising
  // character is not); the contacts here give the floor to walk along.
  const GroundResult g0 = evaluate_ground(q, p);
  diag.ground_at_start = g0.kind;
  const bool grounded = is_grounded(state.ground) && g0.grounded();

  // 2. Velocity.
  const Vec3 wish_velocity = wish * s.walk_speed;
  if (grounded && (input.buttons & kButtonJump)) {
    v = wish_velocity + Vec3{0, s.jump_speed, 0};
    diag.jumped = true;
    apply_gravity(v, s, dt / 2);
  } else if (grounded) {
    v = g0.on_floor() ? along_floor(wish_velocity, g0.floor_contact().normal) : wish_velocity;
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

  // 3. Collide and slide.
  SlideInput slide_in;
  slide_in.position = p;
  slide_in.velocity = v;
  slide_in.time = dt;
  slide_in.grounded = move_grounded;
  slide_in.support_y = g0.on_floor() ? g0.floor_contact().point.y : p.y - s.half_segment - s.radius;
  const SlideResult slid = collide_and_slide(q, slide_in);
  p = slid.position;
  v = slid.velocity;
  diag.slide_iterations = slid.iterations;
  diag.stepped_up = slid.stepped_up;

  // 4. Push-out: the solver never enters geometry, but a spawn, a teleport or a changed world can
  // leave the character inside it.
  GroundResult g1 = evaluate_ground(q, p);
  if (g1.penetration > 0) {
    const PushOutResult po = push_out(q, p, move_grounded);
    p = po.position;
    diag.pushout_iterations = po.iterations;
    diag.pushout_unresolved = !po.resolved;
    g1 = evaluate_ground(q, p);
  }

  // 5. Snap down after walking off the floor, onto walkable ground within reach.
  if (move_grounded && !g1.grounded()) {
    const double travel = length(horizontal(p - start));
    const double limit = s.step_height + travel * s.tan_max_slope + s.contact_distance;
    const SweepHit hit = q.sweep(p, Vec3{0, -limit, 0});
    if (hit.hit) {
      const Vec3 landed = p + Vec3{0, -limit * hit.fraction, 0};
      GroundResult g = evaluate_ground(q, landed);
      if (g.on_floor()) {
        p = landed;
        g1 = g;
        diag.snapped_down = true;
      }
    }
  }

  // 6. Lock to the floor, or fall.
  const bool rising = !move_grounded && v.y > 0;
  GroundKind ground = rising ? GroundKind::kNone : g1.kind;
  if (g1.on_floor() && !rising) diag.locked_to_floor = lock_to_floor(q, p, g1);
  if (!is_grounded(ground)) {
    apply_gravity(v, s, dt / 2);
  } else if (g1.on_floor()) {
    const Vec3& n = g1.floor_contact().normal;
    if (dot(v, n) < 0) v = reject(v, n);
  }

  // 7. Round to the grid. A non-finite result (which would be a bug) keeps the character where it was.
  if (!(std::isfinite(p.x) && std::isfinite(p.y) && std::isfinite(p.z))) {
    p = start;
    v = {};
    ground = GroundKind::kNone;
  }
  diag.position = p;
  out.state.position = quantize_position(p);
  out.state.velocity = quantize_velocity(v);
  out.state.ground = ground;
  return out;
}

}  // namespace foothold
