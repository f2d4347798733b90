#include "shared/step.h"

#include <cmath>
#include <optional>

#include "shared/collide_and_slide.h"
#include "shared/det_math.h"
#include "shared/ground.h"
#include "shared/push_out.h"
#include "shared/tolerances.h"

// step() is the phases of docs/movement.md §4, in order, each a function below named after its
// phase. They pass plain values; the ContactQueries object carries the step's candidates.

namespace foothold {

namespace {

// The grid a position is kept on (movement.md §1): the world's, or for a character riding a mover
// the same 1/1024 m grid in the mover's own axes, so that riding never drifts by rounding (§15.2).
struct Grid {
  int mover = -1;  ///< -1: the world's grid
  Pose pose;       ///< the mover's pose at this tick (mover >= 0)
  Pose to_local;   ///< its inverse

  static Grid of(const MoverFrame& frame, int m) {
    Grid g;
    g.mover = m;
    g.pose = frame.pose(std::size_t(m));
    g.to_local = inverse(g.pose);
    return g;
  }
  /// The grid point nearest to `p` (in the grid's axes), in world axes.
  Vec3 snap(const Vec3& p) const {
    if (mover < 0) return to_position(quantize_position(p));
    return apply(pose, to_position(quantize_position(apply(to_local, p))));
  }
  /// `p` (a grid point from snap()) as the integers the state keeps, in the grid's own axes.
  FixedVec3 local(const Vec3& p) const { return quantize_position(mover < 0 ? p : apply(to_local, p)); }
};

// A candidate position as the grid will keep it, and what grounding finds there (movement.md §1).
struct Settled {
  Vec3 position;
  GroundResult ground;
};
// Into `out`, whose contact list is reused (a whole ContactList is too big to build and copy on
// every phase). `p` is taken by value: it may be out's own position.
void settle(ContactQueries& q, const Grid& grid, Vec3 p, Settled& out) {
  out.position = grid.snap(p);
  evaluate_ground(q, out.position, out.ground);
}
Settled settle(ContactQueries& q, const Grid& grid, const Vec3& p) {
  Settled out;
  settle(q, grid, p, out);
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

// §5.4: a crouched character is the same step with a shorter capsule (the same bottom) and its own
// ground speed.
DerivedSettings crouched_settings(const DerivedSettings& s) {
  DerivedSettings c = s;
  c.half_segment = s.crouch_half_segment;
  c.walk_speed = s.crouch_speed;
  return c;
}

// §16: the plane halfway between this character's capsule and another's, as everyone sees both:
// `normal` points from the other toward this one, `gap` is surface to surface. Nothing when the
// other is beyond kNeighbourRange, or when the gap cannot be under `max_gap`.
struct FencePlane {
  Vec3 mid;     ///< a point of the plane, metres
  Vec3 normal;  ///< unit, toward this character
  double gap = 0;
};
std::optional<FencePlane> fence_plane(const Vec3& me, double my_half, uint32_t self_id, const OtherCharacter& o,
                                      const MoverFrame* frame, const DerivedSettings& standing, double max_gap) {
  const Vec3 c = seen_centre(o, frame);
  const Vec3 apart = horizontal(me - c);
  const double apart_sq = length_sq(apart);
  if (!(apart_sq < kNeighbourRange * kNeighbourRange)) return std::nullopt;
  // The distance below is at least the horizontal one, also as rounded (the same terms, plus a
  // square): most neighbours in a crowd are ruled out here, before the closest points.
  if (!(std::sqrt(apart_sq) - 2 * standing.radius < max_gap)) return std::nullopt;
  // The closest points of the two upright core segments: at one height where they overlap in
  // height (the middle of the overlap), else at the nearer ends.
  const double half = o.crouched ? standing.crouch_half_segment : standing.half_segment;
  const double lo = det_max(me.y - my_half, c.y - half), hi = det_min(me.y + my_half, c.y + half);
  Vec3 pa = me, pb = c;
  if (lo <= hi) {
    pa.y = pb.y = (lo + hi) / 2;
  } else if (me.y > c.y) {
    pa.y = me.y - my_half, pb.y = c.y + half;
  } else {
    pa.y = me.y + my_half, pb.y = c.y - half;
  }
  const double d = length(pa - pb);
  FencePlane f;
  f.normal = d > tolerance::kDistanceNoise ? (pa - pb) / d : Vec3{self_id > o.id ? 1.0 : -1.0, 0, 0};
  f.gap = d - 2 * standing.radius;
  f.mid = pb + f.normal * (standing.radius + f.gap / 2);
  return f;
}

// §5.4: the posture this tick runs in and where it starts. Crouching drops the centre by
// crouch_drop, so the feet stay where they were (the crouched capsule lies inside the standing one,
// so there is always room). Standing up sweeps the crouched capsule up by crouch_drop: the top
// sphere's path covers exactly what the standing capsule adds. Anything in the way keeps it crouched.
struct Posture {
  bool crouched = false;
  Vec3 start;
};
Posture choose_posture(const CharacterState& state, const InputCmd& input, const Vec3& start, const World& world,
                       const DerivedSettings& crouching, StepScratch& scratch, const MoverFrame* frame) {
  const bool wants = (input.buttons & kButtonCrouch) != 0;
  if (wants == state.crouched) return {state.crouched, start};
  const Vec3 rise{0, crouching.crouch_drop, 0};
  if (wants) return {true, start - rise};
  // The fences too (§16): the others see this one crouched this tick and keep to their side of the
  // plane between the crouched capsules, so standing up may not cross it.
  ContactQueries q(world, crouching, scratch.candidates, frame);
  q.set_fences(scratch.fences.data(), scratch.fence_owners.data(), scratch.fences.size());
  if (q.sweep(start, rise).hit) return {true, start};
  return {false, start + rise};
}

// §15.1: the movers at this tick: the caller's frame when it was built for this tick, else one
// built here (the same poses, only slower).
const MoverFrame* movers_for_tick(const World& world, const InputCmd& input, const DerivedSettings& s,
                                  const MoverFrame* given, StepScratch& scratch) {
  if (world.movers().empty()) return nullptr;
  if (given && given->tick() == input.tick && given->mover_count() == world.movers().size()) return given;
  scratch.frame.build(world, input.tick, s.tick_rate);
  return &scratch.frame;
}

// §15.2: a character standing on a mover at the end of the last tick goes with it first: from where
// its offset was then to where it is now, swept through everything but that mover (a ceiling stops
// it; the crush rule may follow).
struct CarryMotion {
  int mover = -1;      ///< the mover it rode in on, or -1
  Vec3 before, after;  ///< its offset placed at the mover's previous and current pose, metres
};
CarryMotion carry_motion(const CharacterState& state, const MoverFrame* frame) {
  CarryMotion m;
  if (!frame || state.platform == 0 || state.platform > frame->mover_count()) return m;
  m.mover = state.platform - 1;
  const Vec3 offset = to_position(state.platform_offset);
  m.before = apply(frame->previous_pose(std::size_t(m.mover)), offset);
  m.after = apply(frame->pose(std::size_t(m.mover)), offset);
  return m;
}
// Where the tick starts: the carried position, or the state's own for a character on no mover.
Vec3 carry_with_platform(const CharacterState& state, const CarryMotion& m, const World& world, const MoverFrame* frame,
                         const DerivedSettings& s, StepScratch& scratch) {
  if (m.mover < 0) return to_position(state.position);
  DerivedSettings posture_settings;
  const DerivedSettings& ps = state.crouched ? (posture_settings = crouched_settings(s)) : s;
  ContactQueries q(world, ps, scratch.candidates, frame);
  q.set_fences(scratch.fences.data(), scratch.fence_owners.data(), scratch.fences.size());
  q.ignore_mover(m.mover);
  const SweepHit hit = q.sweep(m.before, m.after - m.before);
  return hit.hit ? m.before + (m.after - m.before) * hit.fraction : m.after;
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

// A frozen character's input: its tick, no stick, no button but crouch when it is crouched (so the
// posture phase keeps the posture it has).
InputCmd neutral_input(const InputCmd& given, const CharacterState& state) {
  InputCmd in;
  in.tick = given.tick;
  in.buttons = state.crouched ? kButtonCrouch : 0;
  return in;
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

// §5.5: a game's push (CharacterState::push) moves the character beside its own velocity: along
// its floor while it moves grounded (at the same speed, as a walk does), as it is in the air.
Vec3 push_motion(const Vec3& push, const StartGround& ground, bool move_grounded) {
  return move_grounded && length_sq(ground.floor_normal) > 0 ? along_floor(push, ground.floor_normal) : push;
}

// §5.5: what of `p` the surfaces that stopped the slide leave: the part into each one too steep to
// walk (against a wall a push slides along it; a slope it walks up takes nothing). `flat` measures
// against each surface's horizontal normal, so that a horizontal push stays horizontal.
Vec3 clip_push(Vec3 p, const TouchList& touches, double cos_max_slope, bool flat) {
  for (int i = 0; i < touches.size(); ++i) {
    const Touch& t = touches[i];
    if (!t.blocked || t.normal.y >= cos_max_slope) continue;
    Vec3 n = flat ? horizontal(t.normal) : t.normal;
    const double len = length(n);
    if (!(len > 0)) continue;
    n = n * (1 / len);
    const double into = dot(p, n);
    if (into < 0) p -= n * into;
  }
  return p;
}

// §5.5: the push after a tick's friction: `friction` m/s^2 (push_friction on the ground,
// push_air_friction in the air) takes its length toward zero, its heading kept.
FixedVec3 push_after_friction(const Vec3& p, double friction, double dt) {
  const double len = length(p);
  const double left = len - friction * dt;
  if (!(left > 0)) return {};
  FixedVec3 out = quantize_velocity(p * (left / len));
  out.y = 0;
  return out;
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
void push_out_if_inside(ContactQueries& q, const Grid& grid, Settled& at, bool move_grounded, StepDiagnostics& diag) {
  if (!(at.ground.penetration > 0)) return;
  const PushOutResult po = push_out(q, at.position, move_grounded);
  diag.pushout_iterations = po.iterations;
  diag.pushout_unresolved = !po.resolved;
  settle(q, grid, po.position, at);
}

// §9: after walking off the floor, down onto walkable ground within reach.
void snap_down(ContactQueries& q, const Grid& grid, Settled& at, const Vec3& start, bool move_grounded,
               StepDiagnostics& diag) {
  if (!move_grounded || at.ground.grounded()) return;
  const DerivedSettings& s = q.settings();
  const double moved = length(horizontal(at.position - start));
  const double limit = s.step_height + moved * s.tan_max_slope + s.contact_distance;
  const SweepHit hit = q.sweep(at.position, Vec3{0, -limit, 0});
  if (!hit.hit) return;
  Settled landed = settle(q, grid, at.position + Vec3{0, -limit * hit.fraction, 0});
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
    if (!(c.normal.y >= tolerance::kLockMinNormalY)) continue;  // no vertical move rests on it (§10)
    const double need = (s.rest_gap - c.gap) / c.normal.y;
    dy = any ? det_max(dy, need) : need;
    any = true;
  }
  return dy;
}

// §10: on the floor, the lock to rest_gap above it, by a sweep so that it never enters anything.
void lock_to_floor(ContactQueries& q, const Grid& grid, Settled& at, bool rising, StepDiagnostics& diag) {
  if (!at.ground.on_floor() || rising) return;
  const double dy = lock_offset(at.ground, q.settings());
  if (!(std::fabs(dy) > tolerance::kLockTolerance)) return;
  const Vec3 move{0, dy, 0};
  const SweepHit hit = q.sweep(at.position, move);
  diag.locked_to_floor = true;
  settle(q, grid, at.position + move * (hit.hit ? hit.fraction : 1.0), at);
}

// §15.3: a mover that moved into the character this tick pushes it out before it moves.
void pushed_by_movers(ContactQueries& q, Vec3& start, bool grounded, StepDiagnostics& diag) {
  // Far from every mover (most characters, most ticks) no mover's triangle can be among the contacts:
  // the answer is known without the ground query and the walk of the world's tree it would start.
  if (!q.mover_within(start, q.settings().contact_distance)) return;
  const GroundResult at = evaluate_ground(q, start);
  if (!(at.penetration > 0)) return;
  bool by_mover = false;
  for (int i = 0; i < at.contacts.size(); ++i) by_mover |= at.contacts[i].gap < 0 && q.mover_of(at.contacts[i].triangle) >= 0;
  if (!by_mover) return;
  const PushOutResult po = push_out(q, start, grounded);
  diag.pushed_by_mover = true;
  diag.pushout_iterations += po.iterations;
  start = po.position;
}

// §15.3, the crush rule: a character that still overlaps something at the end of a tick in a world
// with movers (a mover pressed it into a wall or a ceiling, where no push gets it out) goes to the
// nearest spot straight above where no surface lies within the safety margin and its centre is not
// inside a solid (the first surface above it does not face up), searched in steps of a quarter
// radius up to kCrushSearchHeight.
void crush_rule(ContactQueries& q, const Grid& grid, Settled& at, StepDiagnostics& diag) {
  if (!(at.ground.penetration > 0)) return;
  const DerivedSettings& s = q.settings();
  diag.crushed = true;
  const double step_up = s.radius / 4;
  ContactList near;
  for (int k = 1; k * step_up <= tolerance::kCrushSearchHeight; ++k) {
    const Vec3 p = grid.snap(at.position + Vec3{0, k * step_up, 0});
    q.contacts(p, s.safety_margin, near);
    if (near.size() > 0 && near[0].gap < s.safety_margin) continue;
    bool faces_up = false;
    if (q.first_crossing_above(p, tolerance::kCrushSearchHeight, faces_up) && faces_up) continue;
    settle(q, grid, p, at);
    return;
  }
}

// §15.2: which grid the character ends the tick on. Standing on a mover's triangle, that mover's;
// else the world's. A change of grid rounds again and grounds again there; when a mover's grid
// would not leave the character standing on that mover, the world's grid is taken instead.
Grid end_grid(ContactQueries& q, const Grid& grid, Settled& at, bool rising) {
  const int mover = !rising && at.ground.on_floor() ? q.mover_of(at.ground.floor_contact().triangle) : -1;
  if (mover == grid.mover) return grid;
  if (mover >= 0) {
    const Grid g = Grid::of(*q.movers(), mover);
    Settled there = settle(q, g, at.position);
    if (there.ground.on_floor() && q.mover_of(there.ground.floor_contact().triangle) == mover) {
      at = there;
      return g;
    }
  }
  if (grid.mover < 0) return grid;
  settle(q, Grid{}, at.position, at);
  return Grid{};
}

// §16: the other characters this tick. Each one near enough to reach within the tick becomes a
// fence: the plane halfway between the two capsules as everyone sees them (published positions,
// carried by their movers), which this character's capsule may not cross. The other one keeps to
// the other side of the same plane, so whatever both do in this tick, in whatever order anyone
// computes it, they cannot overlap; a mover carrying its rider is stopped by them too. Returns the
// push that moves this character half of every overlap it starts the tick in (a spawn, a mover's
// push), the same rule from both sides.
Vec3 build_fences(const CharacterState& state, const InputCmd& input, bool jump, const DerivedSettings& standing,
                  const Surroundings& around, const MoverFrame* frame, const World& world, const CarryMotion& carry,
                  StepScratch& scratch, StepResult& out) {
  scratch.fences.clear();
  scratch.fence_owners.clear();
  if (around.others.empty() && !around.crowd) return {};
  const DerivedSettings& s = standing;
  // The farthest this character can get this tick, before its velocity is known: its mover's carry,
  // the fastest its velocity can be (a walk, with a jump if it jumps; airborne, its speed now plus a
  // tick of steering and gravity), a stair when it moves at all, the snap and the contact band.
  const double fastest = det_max(s.walk_speed, s.crouch_speed);
  const double speed = jump ? fastest + s.jump_speed
                       : is_grounded(state.ground) ? fastest * length(wish_direction(input))
                                                   : length(to_velocity(state.velocity)) + (s.air_acceleration + s.gravity) * s.dt;
  // A push adds its speed (along a floor at most that: along_floor keeps a speed).
  const double travel = (state.push != FixedVec3{} ? speed + length(to_velocity(state.push)) : speed) * s.dt;
  const double reach = length(carry.after - carry.before) + travel * (1 + s.tan_max_slope) +
                       (travel > 0 ? s.step_height : 0) + 2 * s.contact_distance + s.safety_margin;
  // Only the others whose surfaces may come within twice the reach (fence_plane's test): from the
  // crowd, only those are copied.
  std::span<const OtherCharacter> others = around.others;
  if (around.crowd) {
    around.crowd->neighbours(around.crowd_index, scratch.near, 2 * s.radius + 2 * reach);
    others = scratch.near;
  }
  const Vec3 me = seen_centre(as_other(around.self_id, state), frame);
  const double my_half = state.crouched ? standing.crouch_half_segment : standing.half_segment;
  Vec3 push;
  for (const OtherCharacter& o : others) {
    if (o.id == around.self_id) continue;
    const auto plane = fence_plane(me, my_half, around.self_id, o, frame, standing, 2 * reach);
    if (!plane) continue;
    const Vec3& n = plane->normal;
    const double gap = plane->gap;
    if (!(gap < 2 * reach)) continue;
    ++out.diagnostics.characters_near;
    if (gap < 0) push += n * (-gap / 2);
    // The fence: the plane halfway between the surfaces, facing this character, centred on the
    // point of the plane nearest it.
    const Vec3& mid = plane->mid;
    scratch.fences.push_back(fence_triangle(me - n * dot(me - mid, n), n));
    scratch.fence_owners.push_back(o.id);
    if (gap <= s.contact_distance) {
      Touch t;
      t.kind = TouchKind::kCharacter;
      t.character = o.id;
      t.triangle = uint32_t(world.triangle_count() + (frame ? frame->triangle_count() : 0) + scratch.fences.size() - 1);
      t.tag = SurfaceTag::kNeverGround;
      t.normal = n;
      out.touches.add(t);
    }
  }
  return push;
}

// §16: characters that overlap are each moved half the overlap apart, by a sweep (a wall stops it).
void push_apart(ContactQueries& q, const Vec3& push, Vec3& start, StepDiagnostics& diag) {
  if (!(length_sq(push) > 0)) return;
  const SweepHit hit = q.sweep(start, push);
  start += push * (hit.hit ? hit.fraction : 1.0);
  diag.pushed_apart = true;
}

// §11, §12: the ground state is what grounding finds at the rounded position, where the next tick
// starts, so that rounding can never flip it. Airborne characters get the second half of gravity;
// grounded ones lose any velocity into their floor. The surfaces within contact distance join the
// touches.
void finish_tick(const ContactQueries& q, const Grid& grid, const Settled& at, Vec3 v, bool rising, const Vec3& start,
                 const DerivedSettings& s, StepResult& out) {
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
  if (grid.mover >= 0) {
    out.state.platform = uint16_t(grid.mover + 1);
    out.state.platform_offset = grid.local(position);
  }
  out.state.velocity = quantize_velocity(v);
  out.state.ground = ground;
  const bool has_floor = (ground == GroundKind::kWalkable || ground == GroundKind::kTagged) && at.ground.on_floor();
  if (has_floor) out.state.floor_normal = quantize_normal(at.ground.floor_contact().normal);
  for (int i = 0; i < at.ground.contacts.size(); ++i) {
    const Contact& c = at.ground.contacts[i];
    Touch t;
    t.triangle = c.triangle;
    t.tag = c.tag;
    mark_owner(t, q.mover_of(c.triangle), q.character_of(c.triangle));
    t.normal = c.normal;
    t.floor = has_floor && i == at.ground.floor;
    out.touches.add(t);
  }
}

}  // namespace

StepResult step(const CharacterState& state, const InputCmd& given, const World& world,
                const DerivedSettings& settings, StepScratch& scratch, const Surroundings& around) {
  StepResult out;
  step(state, given, world, settings, scratch, around, out);
  return out;
}

void step(const CharacterState& state, const InputCmd& given, const World& world, const DerivedSettings& settings,
          StepScratch& scratch, const Surroundings& around, StepResult& out) {
  // As a new StepResult: the phases below fill the state and the diagnostics a field at a time.
  out.state = CharacterState{};
  out.diagnostics = StepDiagnostics{};
  out.touches.clear();
  StepDiagnostics& diag = out.diagnostics;
  // The character's movement profile (the base's when its index names none): profiles share the
  // capsule's shape and the tick, so only speeds, jump and gravity differ from here on.
  const DerivedSettings& standing = settings.for_profile(state.profile);
  // A frozen character's input is neutral: no move, no jump press (none buffered either), the
  // crouch button as its posture is, so it keeps it. Everything else acts as on any character.
  const InputCmd input = state.frozen ? neutral_input(given, state) : given;
  const MoverFrame* frame = movers_for_tick(world, input, standing, around.movers, scratch);
  // §16: the fences from the other characters, which every sweep from here on respects.
  const CarryMotion motion = carry_motion(state, frame);
  const JumpDecision jump = state.frozen ? JumpDecision{} : decide_jump(state, input, standing);
  const Vec3 push = build_fences(state, input, jump.jump, standing, around, frame, world, motion, scratch, out);
  // §15.2: a rider goes with its mover first.
  const Vec3 carried = carry_with_platform(state, motion, world, frame, standing, scratch);
  // §5.4: the posture; every later phase runs with its capsule.
  const bool posture_matters = state.crouched || (input.buttons & kButtonCrouch) != 0;
  // Made only when it may be used: a whole DerivedSettings cleared in every step was a tenth of
  // step()'s own time.
  std::optional<DerivedSettings> crouching;
  if (posture_matters) crouching.emplace(crouched_settings(standing));
  const Posture posture = posture_matters ? choose_posture(state, input, carried, world, *crouching, scratch, frame)
                                          : Posture{false, carried};
  const DerivedSettings& s = posture.crouched ? *crouching : standing;
  out.state.crouched = posture.crouched;
  ContactQueries q(world, s, scratch.candidates, frame);
  q.set_fences(scratch.fences.data(), scratch.fence_owners.data(), scratch.fences.size());
  // A rider's positions round on its mover's grid (§15.2); everyone else's on the world's.
  Grid grid = motion.mover >= 0 ? Grid::of(*frame, motion.mover) : Grid{};
  Vec3 start = posture.start;
  push_apart(q, push, start, diag);

  const StartGround ground = start_ground(state);
  diag.ground_at_start = state.ground;
  if (frame) pushed_by_movers(q, start, ground.grounded, diag);
  Vec3 v = velocity_for_tick(to_velocity(state.velocity), ground, jump.jump, input, s, diag);
  const bool move_grounded = ground.grounded && !diag.jumped;  // §4.2
  // §5.5: a push moves the character with its own velocity, through the same slide. Without one,
  // nothing below is computed (a state no game pushed steps bit for bit as before pushes existed).
  const bool pushed = state.push != FixedVec3{};
  const Vec3 external = pushed ? push_motion(to_velocity(state.push), ground, move_grounded) : Vec3{};
  gather_candidates(q, start, pushed ? v + external : v, s, scratch.cache);

  const SlideResult slid = slide(q, start, pushed ? v + external : v, move_grounded, ground.floor_normal, out.touches);
  v = slid.velocity;
  // What the walls left of the push is the push's; the rest of the slid velocity is the character's.
  Vec3 push_left;
  if (pushed) {
    const bool climbed = slid.stepped_up;  // a stair's riser stopped the sweep, not the character
    push_left = climbed ? to_velocity(state.push) : clip_push(to_velocity(state.push), out.touches, s.cos_max_slope, true);
    v -= climbed ? external : clip_push(external, out.touches, s.cos_max_slope, false);
  }
  diag.slide_iterations = slid.iterations;
  diag.stepped_up = slid.stepped_up;

  // From here on every position is judged where the grid will keep it.
  Settled at = settle(q, grid, slid.position);
  push_out_if_inside(q, grid, at, move_grounded, diag);
  snap_down(q, grid, at, start, move_grounded, diag);
  const bool rising = !move_grounded && v.y > 0;  // §5.2: never grounded
  diag.rising = rising;
  lock_to_floor(q, grid, at, rising, diag);
  if (frame) {
    crush_rule(q, grid, at, diag);
    grid = end_grid(q, grid, at, rising);
    // §15.2: stepping or jumping off a mover keeps its velocity.
    if (motion.mover >= 0 && grid.mover != motion.mover) v += (motion.after - motion.before) / s.dt;
  }
  finish_tick(q, grid, at, v, rising, start, s, out);
  // §5.2: the jump state the next tick starts from.
  out.state.air_ticks = diag.jumped                          ? uint8_t(255)
                        : is_grounded(out.state.ground)      ? uint8_t(0)
                        : state.air_ticks >= 254             ? uint8_t(255)
                                                             : uint8_t(state.air_ticks + 1);
  out.state.jump_buffer = jump.buffer;
  out.state.jump_held = (input.buttons & kButtonJump) != 0;
  // What a game set stays until it changes it (game_command.h).
  out.state.frozen = state.frozen;
  out.state.profile = state.profile;
  if (pushed)
    out.state.push = push_after_friction(push_left, is_grounded(out.state.ground) ? s.push_friction : s.push_air_friction, s.dt);
}

}  // namespace foothold
