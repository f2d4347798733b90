#include "shared/step.h"

#include <cmath>

#include "shared/collide_and_slide.h"
#include "shared/ground.h"
#include "shared/push_out.h"
#include "shared/tolerances.h"

// step() is the phases of docs/movement.md §4, in order, each a function below named after its
// phase. They pass plain values; the ContactQueries object carries the step's candidates.

namespace foothold {

namespace {

// A candidate position as the grid will keep it, and what grounding finds there (movement.md §1).
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

void apply_gravity(Vec3& v, const DerivedSettings& s, double seconds) {
  v.y -= s.gravity * seconds;
  if (v.y < -s.max_fall_speed) v.y = -s.max_fall_speed;
}

// §4.1: the ground the previous tick found at this very position. Only a floor with an upward
// normal can be walked along; a crevice, a pit (or bad data) leaves the zero vector.
struct StartGround {
  bool grounded = false;
  Vec3 floor_normal;  ///< unit, or zero without a floor to walk along
};
StartGround start_ground(const CharacterState& state) {
  StartGround g;
  g.grounded = is_grounded(state.ground);
  g.floor_normal = to_normal(state.floor_normal);
  if (g.floor_normal.y <= 0) g.floor_normal = {};
  return g;
}

// §5.1: the wished horizontal velocity turned to run along the floor plane, keeping its heading
// and its speed, so that walking up or down a slope is as fast as walking on the flat.
Vec3 along_floor(const Vec3& wish_velocity, const Vec3& n) {
  const double speed = length(wish_velocity);
  if (speed == 0 || n.y <= 0) return wish_velocity;
  const Vec3 on_plane = wish_velocity - kUp * (dot(wish_velocity, n) / n.y);
  return on_plane * (speed / length(on_plane));
}

// §5.2: whether this tick jumps, and the buffered press it leaves. A jump needs a fresh press (not a
// held button); a press waits up to buffer_ticks for ground to jump from, and ground means standing
// now or having stood no more than coyote_ticks ago without jumping since.
struct JumpDecision {
  bool jump = false;
  uint8_t buffer = 255;  ///< the age of the press still waiting, or 255
};
JumpDecision decide_jump(const CharacterState& state, const InputCmd& input, const DerivedSettings& s) {
  const bool held = (input.buttons & kButtonJump) != 0;
  const int age = held && !state.jump_held ? 0 : state.jump_buffer == 255 ? 255 : state.jump_buffer + 1;
  const bool wants = age <= s.buffer_ticks;
  const bool can = is_grounded(state.ground) || (state.air_ticks >= 1 && state.air_ticks <= s.coyote_ticks);
  if (wants && can) return {true, 255};
  return {false, uint8_t(wants ? age : 255)};
}

// §5: walking along the floor, jumping, or steering in the air with the first half of gravity.
Vec3 velocity_for_tick(const Vec3& v_in, const StartGround& ground, bool jump, const InputCmd& input,
                       const DerivedSettings& s, StepDiagnostics& diag) {
  const Vec3 wish = wish_direction(input);
  const Vec3 wish_velocity = wish * s.walk_speed;
  Vec3 v = v_in;
  if (jump) {
    v = wish_velocity + Vec3{0, s.jump_speed, 0};
    diag.jumped = true;
    apply_gravity(v, s, s.dt / 2);
  } else if (ground.grounded) {
    v = length_sq(ground.floor_normal) > 0 ? along_floor(wish_velocity, ground.floor_normal) : wish_velocity;
  } else {
    if (length_sq(wish) > 0) {
      Vec3 delta = wish_velocity - horizontal(v);
      const double max_change = s.air_acceleration * s.dt;
      const double len = length(delta);
      if (len > max_change) delta = delta * (max_change / len);
      v += delta;
    }
    apply_gravity(v, s, s.dt / 2);
  }
  return v;
}

// §4.3: one BVH walk for everything this step is likely to touch: the capsule's bounds grown by its
// travel (and the snap after it) and the contact band, and vertically by a stair. A query beyond
// them gathers again (contact_queries.h), so this bound affects speed only, never results.
void gather_candidates(ContactQueries& q, const Vec3& start, const Vec3& v, const DerivedSettings& s,
                       CandidateCache* cache) {
  const double travel = length(v) * s.dt;
  const double reach = travel * (1 + s.tan_max_slope) + 2 * s.contact_distance + s.safety_margin;
  const double half_h = s.half_segment + s.radius + s.step_height;
  q.prefetch({{start.x - s.radius - reach, start.y - half_h - reach, start.z - s.radius - reach},
              {start.x + s.radius + reach, start.y + half_h + reach, start.z + s.radius + reach}},
             cache);
}

// §6, §7: collide and slide, climbing stairs when moving grounded.
SlideResult slide(ContactQueries& q, const Vec3& start, const Vec3& v, bool move_grounded, const Vec3& floor_normal,
                  TouchList& touches) {
  const DerivedSettings& s = q.settings();
  SlideInput in;
  in.position = start;
  in.velocity = v;
  in.time = s.dt;
  in.grounded = move_grounded;
  // The supporting point of a character locked on its floor lies (radius + rest_gap) along the
  // floor normal below the lower sphere's centre (§7's stair-height limit is measured from it).
  in.support_y = start.y - s.half_segment - (s.radius + s.rest_gap) * (length_sq(floor_normal) > 0 ? floor_normal.y : 1.0);
  in.floor_normal = floor_normal;
  return collide_and_slide(q, in, touches);
}

// The phases from here on move `at` in place: a Settled holds a whole contact list, too big to copy
// on every phase.

// §8: the solver never enters geometry, but a spawn, a teleport or a changed world can leave the
// character inside it.
void push_out_if_inside(ContactQueries& q, Settled& at, bool move_grounded, StepDiagnostics& diag) {
  if (!(at.ground.penetration > 0)) return;
  const PushOutResult po = push_out(q, at.position, move_grounded);
  diag.pushout_iterations = po.iterations;
  diag.pushout_unresolved = !po.resolved;
  at = settle(q, po.position);
}

// §9: after walking off the floor, down onto walkable ground within reach.
void snap_down(ContactQueries& q, Settled& at, const Vec3& start, bool move_grounded, StepDiagnostics& diag) {
  if (!move_grounded || at.ground.grounded()) return;
  const DerivedSettings& s = q.settings();
  const double moved = length(horizontal(at.position - start));
  const double limit = s.step_height + moved * s.tan_max_slope + s.contact_distance;
  const SweepHit hit = q.sweep(at.position, Vec3{0, -limit, 0});
  if (!hit.hit) return;
  Settled landed = settle(q, at.position + Vec3{0, -limit * hit.fraction, 0});
  if (!landed.ground.on_floor()) return;
  diag.snapped_down = true;
  at = landed;
}

// §10: the vertical move that holds a grounded character at exactly rest_gap above its floor,
// whatever height it crossed into range at. For each supporting contact it is
// (rest_gap - gap) / n.y; the largest wins so that no support ends closer than rest_gap.
double lock_offset(const GroundResult& g, const DerivedSettings& s) {
  bool any = false;
  double dy = 0;
  for (int i = 0; i < g.contacts.size(); ++i) {
    const Contact& c = g.contacts[i];
    if (!supports(c, s) && i != g.floor) continue;  // the floor may be a perch (§3.5)
    const double need = (s.rest_gap - c.gap) / c.normal.y;
    dy = any ? std::fmax(dy, need) : need;
    any = true;
  }
  return dy;
}

// §10: on the floor, the lock to rest_gap above it, by a sweep so that it never enters anything.
void lock_to_floor(ContactQueries& q, Settled& at, bool rising, StepDiagnostics& diag) {
  if (!at.ground.on_floor() || rising) return;
  const double dy = lock_offset(at.ground, q.settings());
  if (!(std::fabs(dy) > tolerance::kLockTolerance)) return;
  const Vec3 move{0, dy, 0};
  const SweepHit hit = q.sweep(at.position, move);
  diag.locked_to_floor = true;
  at = settle(q, at.position + move * (hit.hit ? hit.fraction : 1.0));
}

// §11, §12: the ground state is what grounding finds at the rounded position, where the next tick
// starts, so that rounding can never flip it. Airborne characters get the second half of gravity;
// grounded ones lose any velocity into their floor. The surfaces within contact distance join the
// touches.
void finish_tick(const Settled& at, Vec3 v, bool rising, const Vec3& start, const DerivedSettings& s,
                 StepResult& out) {
  const GroundKind ground = rising ? GroundKind::kNone : at.ground.kind;
  if (!is_grounded(ground)) {
    apply_gravity(v, s, s.dt / 2);
  } else if (at.ground.on_floor()) {
    const Vec3& n = at.ground.floor_contact().normal;
    if (dot(v, n) < 0) v = reject(v, n);
  }
  Vec3 position = at.position;
  // A non-finite result (which would be a bug) keeps the character where it was.
  if (!(std::isfinite(position.x) && std::isfinite(position.y) && std::isfinite(position.z) && std::isfinite(v.x) &&
        std::isfinite(v.y) && std::isfinite(v.z))) {
    position = start;
    v = {};
  }
  out.diagnostics.position = position;
  out.state.position = quantize_position(position);
  out.state.velocity = quantize_velocity(v);
  out.state.ground = ground;
  const bool has_floor = (ground == GroundKind::kWalkable || ground == GroundKind::kTagged) && at.ground.on_floor();
  if (has_floor) out.state.floor_normal = quantize_normal(at.ground.floor_contact().normal);
  for (int i = 0; i < at.ground.contacts.size(); ++i) {
    const Contact& c = at.ground.contacts[i];
    Touch t;
    t.triangle = c.triangle;
    t.tag = c.tag;
    t.normal = c.normal;
    t.floor = has_floor && i == at.ground.floor;
    out.touches.add(t);
  }
}

}  // namespace

StepResult step(const CharacterState& state, const InputCmd& input, const World& world, const DerivedSettings& s,
                StepScratch& scratch) {
  StepResult out;
  StepDiagnostics& diag = out.diagnostics;
  ContactQueries q(world, s, scratch.candidates);
  const Vec3 start = to_position(state.position);

  const StartGround ground = start_ground(state);
  diag.ground_at_start = state.ground;
  const JumpDecision jump = decide_jump(state, input, s);
  Vec3 v = velocity_for_tick(to_velocity(state.velocity), ground, jump.jump, input, s, diag);
  const bool move_grounded = ground.grounded && !diag.jumped;  // §4.2
  gather_candidates(q, start, v, s, scratch.cache);

  const SlideResult slid = slide(q, start, v, move_grounded, ground.floor_normal, out.touches);
  v = slid.velocity;
  diag.slide_iterations = slid.iterations;
  diag.stepped_up = slid.stepped_up;

  // From here on every position is judged where the grid will keep it.
  Settled at = settle(q, slid.position);
  push_out_if_inside(q, at, move_grounded, diag);
  snap_down(q, at, start, move_grounded, diag);
  const bool rising = !move_grounded && v.y > 0;  // §5.2: never grounded
  diag.rising = rising;
  lock_to_floor(q, at, rising, diag);
  finish_tick(at, v, rising, start, s, out);
  // §5.2: the jump state the next tick starts from.
  out.state.air_ticks = diag.jumped                          ? uint8_t(255)
                        : is_grounded(out.state.ground)      ? uint8_t(0)
                        : state.air_ticks >= 254             ? uint8_t(255)
                                                             : uint8_t(state.air_ticks + 1);
  out.state.jump_buffer = jump.buffer;
  out.state.jump_held = (input.buttons & kButtonJump) != 0;
  return out;
}

}  // namespace foothold
