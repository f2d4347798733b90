#include "follow/path_follower.h"

#include <cmath>

#include "shared/det_math.h"

namespace foothold::follow {
namespace {

double horizontal_distance(const Vec3& a, const Vec3& b) {
  const double dx = a.x - b.x, dz = a.z - b.z;
  return std::sqrt(dx * dx + dz * dz);
}

// The input that does nothing, for tick `tick`.
InputCmd neutral(uint32_t tick) {
  InputCmd in;
  in.tick = tick;
  return in;
}

// Full stick from `from` toward `to` (horizontally), `fraction` of it (0..1]; `buttons` pressed.
InputCmd toward(const Vec3& from, const Vec3& to, double fraction, uint8_t buttons, uint32_t tick) {
  const double dx = to.x - from.x, dz = to.z - from.z;
  const double len = std::sqrt(dx * dx + dz * dz);
  if (!(len > 0)) return encode_move(0, 0, buttons, tick);
  return encode_move(dx / len * fraction, dz / len * fraction, buttons, tick);
}

// A number drawn from a position and a tick (SplitMix64's mix of them): how long a stuck character
// backs away, so that two stuck against each other, at two places, draw two times.
uint64_t mix(const FixedVec3& p, uint32_t tick) {
  uint64_t z = (uint64_t(uint32_t(p.x)) << 32 | uint32_t(p.z)) ^ (uint64_t(tick) * 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// Paths thrown away at once in a row (PathFollower::ask) before it gives up.
constexpr int kQuickReplans = 3;

}  // namespace

Vec3 path_start(const CharacterState& state, const FollowSettings& s) {
  // The feet, a little above the ground they stand on.
  return to_position(state.position) - Vec3{0, (state.crouched ? s.crouch_height : s.height) / 2 - 0.05, 0};
}

FollowSettings follow_settings(const MoveSettings& settings) {
  FollowSettings s;
  s.tick_rate = settings.tick_rate;
  s.radius = settings.radius;
  s.height = settings.height;
  s.crouch_height = settings.crouch_height;
  s.step_height = settings.step_height;
  s.walk_speed = settings.walk_speed;
  s.corner_reach = settings.radius;
  s.jump_reach = settings.radius / 2;
  s.arrive_reach = det_max(0.3, settings.radius * 0.75);
  s.off_path = det_max(1.5, settings.radius * 4);
  s.stuck_ticks = settings.tick_rate;
  s.narrow_width = 2 * settings.radius + 2 * s.avoid_gap;
  // A fall as deep as a step and off_level takes sqrt(2 h / g) seconds.
  if (settings.gravity > 0)
    s.fall_ticks = int(det_floor(std::sqrt(2 * (s.step_height + s.off_level) / settings.gravity) * settings.tick_rate)) + 1;
  return s;
}

const char* to_string(Replan replan) {
  switch (replan) {
    case Replan::kNone: return "none";
    case Replan::kGoal: return "goal";
    case Replan::kStuck: return "stuck";
    case Replan::kOffPath: return "off_path";
    case Replan::kPartial: return "partial";
    case Replan::kRetry: return "retry";
  }
  return "none";
}

const char* to_string(GiveUp why) {
  switch (why) {
    case GiveUp::kNone: return "none";
    case GiveUp::kNoPath: return "no_path";
    case GiveUp::kUnreachable: return "unreachable";
    case GiveUp::kStuck: return "stuck";
    case GiveUp::kTimeout: return "timeout";
  }
  return "none";
}

void PathFollower::go_to(const Vec3& goal, uint32_t tick) {
  goal_ = goal;
  goal_tick_ = tick;
  deadline_tick_ = 0;
  waited_ = 0;
  first_length_ = 0;
  corners_.clear();
  legs_.clear();
  rest_.clear();
  stuck_in_a_row_ = 0;
  stuck_left_ = 0;
  partial_in_a_row_ = 0;
  no_path_in_a_row_ = 0;
  retry_at_ = 0;
  backing_until_ = 0;
  quick_replans_ = 0;
  failed_ = GiveUp::kNone;
  side_ = 0;
  weigh_at_ = 0;
  waiting_ = false;
  in_narrow_ = false;
  held_ = false;
  crowded_ = false;
  wait_for_ = -1;
  mode_ = Mode::kPlanning;
  pending_ = Replan::kGoal;
  ++counts_.goals;
  ++counts_.paths;
}

void PathFollower::stop() {
  mode_ = Mode::kIdle;
  corners_.clear();
}

void PathFollower::set_path(const Path& path, uint32_t tick) {
  if (mode_ == Mode::kIdle) return;
  const bool first = first_length_ == 0;  // the goal's first path (not a refusal)
  mode_ = Mode::kFollowing;
  backing_until_ = 0;
  air_ = 0;
  path_tick_ = tick;
  if (path.status == PathStatus::kNone || path.corners.empty()) {
    // None (off the mesh: on a mover, in the air): straight for the goal a moment, then again.
    ++no_path_in_a_row_;
    retry_at_ = tick;  // from step(), which knows how long to wait
    corners_.assign(1, quantize_position(goal_));
    legs_.assign(1, Leg::kWalk);
    rest_.assign(1, 0);
    narrows_.clear();
    waiting_ = false;
    in_narrow_ = false;
    next_ = 0;
    complete_ = false;
    return;
  }
  no_path_in_a_row_ = 0;
  retry_at_ = 0;
  corners_.clear();
  legs_.clear();
  for (const Corner& c : path.corners) {
    corners_.push_back(quantize_position(c.point));
    legs_.push_back(c.leg);
  }
  rest_.assign(corners_.size(), 0);
  for (std::size_t i = corners_.size() - 1; i > 0; --i) rest_[i - 1] = rest_[i] + horizontal_distance(corner(i - 1), corner(i));
  narrows_.clear();
  waiting_ = false;
  in_narrow_ = false;
  for (const Narrow& n : path.narrows) {
    if (std::size_t(n.leg) + 1 >= corners_.size()) continue;  // not on the path
    const Vec3 at = to_position(quantize_position(n.point));
    narrows_.push_back({at, rest_[n.leg + 1] + horizontal_distance(at, corner(n.leg + 1)), n.width, n.leg, n.axis});
  }
  complete_ = path.status == PathStatus::kComplete;
  // A partial path that leads nowhere new, twice: the goal cannot be reached from here.
  if (!complete_) {
    partial_in_a_row_ = rest_[0] < 0.5 ? partial_in_a_row_ + 1 : 0;
    if (partial_in_a_row_ >= 2) failed_ = GiveUp::kUnreachable;
  }
  next_ = corners_.size() > 1 ? 1 : 0;
  best_ = rest_[0] + 1e9;  // any way left is progress at first
  best_tick_ = tick;
  if (first) first_length_ = det_max(path.length(), 1e-3);  // the deadline follows from it (step())
}

FollowStep PathFollower::ask(Replan why, uint32_t tick) {
  // A path thrown away as soon as it came, again and again: it cannot be followed from here (the
  // mesh's nearest point to where the character stands is not under it).
  quick_replans_ = tick - path_tick_ <= 1 ? quick_replans_ + 1 : 0;
  if (quick_replans_ > kQuickReplans) return give_up(GiveUp::kStuck, tick);
  mode_ = Mode::kPlanning;
  pending_ = why;
  ++counts_.paths;
  FollowStep out;
  out.input = neutral(tick);
  out.event = FollowEvent::kNeedPath;
  out.replan = why;
  return out;
}

FollowStep PathFollower::give_up(GiveUp why, uint32_t tick) {
  mode_ = Mode::kIdle;
  ++counts_.gave_up;
  FollowStep out;
  out.input = neutral(tick);
  out.event = FollowEvent::kGaveUp;
  out.gave_up = why;
  return out;
}

FollowStep PathFollower::arrive(uint32_t tick) {
  mode_ = Mode::kIdle;
  ++counts_.arrived;
  FollowStep out;
  out.input = neutral(tick);
  out.event = FollowEvent::kArrived;
  return out;
}

bool PathFollower::pass_corners(const Where& w, uint32_t tick, const FollowSettings& s, FollowStep& out) {
  while (next_ + 1 < corners_.size()) {
    const double d = horizontal_distance(w.at, corner(next_));
    if (legs_[next_] == Leg::kJump) {
      // The take-off: jump toward the ledge's corner, from the ground (or the moment after leaving it).
      if (d > s.jump_reach || !w.grounded) return false;
      ++next_;
      ++counts_.jumps;
      out.input = toward(w.at, corner(next_), 1, kButtonJump, tick);
      return true;
    }
    // A corner is passed near it and on its level: a jump's or a drop's landing once landed there.
    const double level = s.step_height + s.off_level, y = corner(next_).y;
    const bool landing = next_ > 0 && legs_[next_ - 1] != Leg::kWalk;
    const bool on_level = w.carried || (w.feet >= y - level && w.feet <= y + level);
    if (d > s.corner_reach || !on_level || (landing && !w.grounded)) return false;
    ++next_;  // a walk's corner, or a drop's edge: on toward the next
  }
  return false;
}

Vec3 PathFollower::steer(const Vec3& at, const Vec3& target, bool weigh, std::span<const Nearby> nearby,
                         const FollowSettings& s) {
  const double dx = target.x - at.x, dz = target.z - at.z, len = std::sqrt(dx * dx + dz * dz);
  if (!(len > 0)) return {dx, 0, dz};
  const double ux = dx / len, uz = dz / len;  // the way, unit; its right is (-uz, ux)
  if (weigh) side_ = in_narrow_ ? 0 : avoid(at, ux, uz, nearby, s);
  if (side_ == 0) return {dx, 0, dz};
  return {ux - uz * side_, 0, uz + ux * side_};
}

double PathFollower::avoid(const Vec3& at, double ux, double uz, std::span<const Nearby> nearby,
                           const FollowSettings& s) {
  if (nearby.empty() || !(s.avoid_time > 0)) return 0;
  const double reach = s.avoid_time * s.walk_speed * 2, apart = 2 * s.radius + s.avoid_gap;
  double side = 0;
  bool oncoming = false;
  // The cheapest tests first (a crowd gives it dozens; most are behind or beside): each reads only
  // what it needs, exactly as to_position() and to_velocity() would give it.
  for (const Nearby& other : nearby) {
    const double rx = other.position.x / kPositionScale - at.x, rz = other.position.z / kPositionScale - at.z;
    if (rx * ux + rz * uz <= 0) continue;  // behind or beside: it is for that one to avoid this one
    if (det_max(rx < 0 ? -rx : rx, rz < 0 ? -rz : rz) > reach) continue;
    const double dy = other.position.y / kPositionScale - at.y;
    if (dy > s.height || -dy > s.height) continue;
    const Vec3 v{other.velocity.x / kVelocityScale, 0, other.velocity.z / kVelocityScale};
    // When it is nearest if both go on (it as it moves, this one at walk speed along the way), and how near.
    const double vx = ux * s.walk_speed - v.x, vz = uz * s.walk_speed - v.z, vv = vx * vx + vz * vz;
    if (!(vv > 0)) continue;
    const double t = (rx * vx + rz * vz) / vv;
    if (t <= 0 || t > s.avoid_time) continue;
    const double mx = rx - vx * t, mz = rz - vz * t;
    if (mx * mx + mz * mz >= apart * apart) continue;
    // Away from the side it will be on (the sooner, the harder); head on (within a centimetre), to
    // the right, as the other turns to its own right.
    const double lateral = mz * ux - mx * uz;  // m . right: > 0, it will be on the right
    side += (lateral > 0.01 ? -1 : 1) * (1 - t / s.avoid_time);
    oncoming |= v.x * ux + v.z * uz < -s.walk_speed / 4;
  }
  // Meeting some coming the other way, it also keeps to its right, as they keep to theirs: two
  // streams through a corridor form two lanes, where each pair's own way round would mix them.
  if (oncoming) side += s.keep_right;
  return det_min(det_max(side, -1.0), 1.0) * s.avoid_turn;
}

bool PathFollower::next_narrow(double left, const FollowSettings& s, std::size_t& first, std::size_t& last) const {
  // Narrow crossings in a row, each within give_way_reach of the last along the path, are one
  // place (a door's one or two; a narrow corridor's many polygons: it never waits inside one).
  for (first = 0; first < narrows_.size(); first = last + 1) {
    while (first < narrows_.size() && narrows_[first].width >= s.narrow_width) ++first;
    if (first >= narrows_.size()) return false;
    last = first;
    while (last + 1 < narrows_.size() && narrows_[last + 1].width < s.narrow_width &&
           narrows_[last].left - narrows_[last + 1].left <= s.give_way_reach)
      ++last;
    if (narrows_[last].left < left) return true;  // its far end is ahead
  }
  return false;
}

bool PathFollower::give_way(const Where& w, double left, uint32_t tick, std::span<const Nearby> nearby,
                            const FollowSettings& s) {
  std::size_t first = 0, last = 0;
  // In a narrow place or a radius from its mouths (the one whose far end is less than a radius
  // behind), it steers round no one (steer()).
  in_narrow_ = next_narrow(left + s.radius, s, first, last) && left < narrows_[first].left + s.radius;
  if (!next_narrow(left, s, first, last)) return false;
  const NarrowAt &in = narrows_[first], &out = narrows_[last];
  const double d = left - in.left;  // to the near mouth, along the path (< 0: past it, in the narrow place)
  if (d > s.give_way_reach) return false;  // not yet
  if (wait_for_ != in.left) {  // a new narrow place
    wait_for_ = in.left;
    wait_since_ = 0;
  }
  if (wait_since_ != 0 && tick - wait_since_ > uint32_t(s.give_way_ticks)) return false;  // waited long enough
  // The way through it (x, z; unit): mouth to mouth, or the leg's way through a wall's thickness.
  Vec3 u = out.point - in.point;
  if (u.x * u.x + u.z * u.z < 0.04) u = corner(in.leg + 1) - corner(in.leg);
  const double ulen = std::sqrt(u.x * u.x + u.z * u.z);
  if (!(ulen > 0)) return false;
  const double ux = u.x / ulen, uz = u.z / ulen;
  const double through = (out.point.x - in.point.x) * ux + (out.point.z - in.point.z) * uz;
  // Whose turn it is: the two ways through take turns of give_way_turn ticks (by the passage's
  // own way, which those coming the other way see too). On its turn, one coming the other way goes
  // first only when give_way_lead nearer its mouth than this one is to its own; off its turn,
  // unless this one is that much nearer.
  Vec3 axis;
  for (std::size_t k = first; k <= last && axis.x == 0 && axis.z == 0; ++k) axis = narrows_[k].axis;
  if (axis.x == 0 && axis.z == 0) axis = canonical_way({ux, 0, uz});
  const uint32_t way = ux * axis.x + uz * axis.z >= 0 ? 0 : 1;
  const uint32_t turn = s.give_way_turn > 0 ? tick / uint32_t(s.give_way_turn) % 2 : way;
  const double lead = turn == way ? -s.give_way_lead : s.give_way_lead;
  bool wait = false;
  for (std::size_t k = 0; k < nearby.size() && !wait; ++k) {
    const Vec3 p = to_position(nearby[k].position);
    if (p.y - w.at.y > s.height || w.at.y - p.y > s.height) continue;  // on another floor
    const double along = (p.x - in.point.x) * ux + (p.z - in.point.z) * uz;
    const double lateral = (p.x - in.point.x) * uz - (p.z - in.point.z) * ux;
    const double vx = nearby[k].velocity.x / kVelocityScale, vz = nearby[k].velocity.z / kVelocityScale;
    const double with = vx * ux + vz * uz;  // its speed along this one's way through
    if (along >= -s.radius && along <= through + s.radius && det_max(lateral, -lateral) <= s.narrow_width / 2 + s.radius) {
      // In it (or in a mouth), not going this one's way: the one further in goes on, the other
      // backs out of its way (the turn takes a tie).
      if (with >= s.walk_speed / 4) continue;
      const double e = along - through;  // to its mouth (< 0: past it), as d is this one's
      wait = turn == way ? e < d : e <= d;
    } else if (along > through + s.radius && with < 0) {
      // Beyond the far mouth, walking toward it. One standing there does not count: it may be
      // waiting for this one (both would wait).
      const double e = horizontal_distance(p, out.point);
      const double toward = (vx * (out.point.x - p.x) + vz * (out.point.z - p.z)) / det_max(e, 1e-6);
      if (e > s.give_way_reach || toward < s.walk_speed / 4) continue;
      wait = turn == way ? e < d + lead : e <= d + lead;
    }
  }
  if (!wait) return false;
  // Where it waits: give_way_hold back from the mouth, give_way_aside to the right of the way in.
  wait_spot_ = in.point + Vec3{-ux * s.give_way_hold - uz * s.give_way_aside, 0, -uz * s.give_way_hold + ux * s.give_way_aside};
  if (wait_since_ == 0) {
    wait_since_ = det_max(tick, 1u);
    ++counts_.gave_way;
  }
  return true;
}

bool PathFollower::wait(const Where& w, double left, uint32_t tick, const FollowSettings& s, FollowStep& out) {
  if (!waiting_) return false;
  best_tick_ = tick;  // waiting is not being stuck
  // Near the mouth: aside, out of the way of those coming out of it, and stand there.
  if (left - wait_for_ > s.give_way_hold + s.give_way_aside) return false;  // on toward it meanwhile
  count_wait(tick);  // nor late: the deadline is for the way, not for the crowd at a door
  const double to_spot = horizontal_distance(w.at, wait_spot_);
  if (to_spot > 0.2) out.input = toward(w.at, wait_spot_, det_min(1.0, to_spot * s.tick_rate / s.walk_speed), 0, tick);
  return true;
}

void PathFollower::count_wait(uint32_t tick) {
  if (tick == waited_tick_) return;
  waited_tick_ = tick;
  ++waited_;
}

bool PathFollower::held_up(const Where& w, const CharacterState& state, const Vec3& target, bool goal_ahead,
                           std::span<const Nearby> nearby, const FollowSettings& s) {
  const double vx = state.velocity.x / kVelocityScale, vz = state.velocity.z / kVelocityScale;
  const double slow = s.walk_speed / 4;
  const bool barely_moving = vx * vx + vz * vz <= slow * slow;
  const double touch = 2 * s.radius + s.avoid_gap;
  for (const Nearby& other : nearby) {
    const double ox = other.position.x / kPositionScale, oz = other.position.z / kPositionScale;
    const double dy = other.position.y / kPositionScale - w.at.y;
    if (dy >= s.height || -dy >= s.height) continue;  // on another level
    // On the goal: no one reaches it before that one leaves, however it walks round meanwhile.
    const double gx = ox - target.x, gz = oz - target.z;
    if (goal_ahead && gx * gx + gz * gz < touch * touch) return true;
    // Pressed against it, or pressed by it (into a wall, a corner).
    const double rx = ox - w.at.x, rz = oz - w.at.z;
    if (barely_moving && rx * rx + rz * rz < touch * touch) return true;
  }
  return false;
}

double PathFollower::across(const Vec3& at) const {
  if (next_ == 0) return 0;
  const Vec3 a = corner(next_ - 1), b = corner(next_);
  const double ex = b.x - a.x, ez = b.z - a.z, len_sq = ex * ex + ez * ez;
  double t = len_sq > 0 ? ((at.x - a.x) * ex + (at.z - a.z) * ez) / len_sq : 0;
  t = det_min(det_max(t, 0.0), 1.0);
  return horizontal_distance(at, {a.x + ex * t, 0, a.z + ez * t});
}

bool PathFollower::off_path(const Where& w, const FollowSettings& s) const {
  if (next_ == 0 || !w.grounded) return false;  // in the air (a jump, a drop, a push): judged on landing
  if (w.fell) return true;
  const Vec3 a = corner(next_ - 1), b = corner(next_);
  const double across = this->across(w.at);
  // A walk's ground may rise and fall between its corners (a hill): its level is judged by a fall.
  // Over a jump or a drop, the character stands on either level until it is in the air.
  const double level = s.step_height + s.off_level;
  const bool off_level = legs_[next_ - 1] != Leg::kWalk && !w.carried &&
                         (w.feet < det_min(a.y, b.y) - level || w.feet > det_max(a.y, b.y) + level);
  return across > s.off_path || off_level;
}

bool PathFollower::stuck(const Where& w, const CharacterState& state, uint32_t tick, const FollowSettings& s,
                         FollowStep& out) {
  // Progress: the way left along the path, shrinking.
  const double left = horizontal_distance(w.at, corner(next_)) + rest_[next_];
  if (left < best_ - s.progress) {
    best_ = left;
    best_tick_ = tick;
    crowded_ = false;
    if (left < stuck_left_ - s.progress) stuck_in_a_row_ = 0;  // past where it was stuck
    return false;
  }
  if (tick - best_tick_ < uint32_t(s.stuck_ticks)) return false;
  ++counts_.stuck;
  stuck_left_ = left;
  // Held up by others meanwhile (held_up()), it is the crowd that keeps it, not the way: it backs
  // off and tries again, and the deadline, moved on by the crowd's time, decides when it gives up.
  if (++stuck_in_a_row_ > s.stuck_replans && !crowded_) {
    out = give_up(GiveUp::kStuck, tick);
    return true;
  }
  if (!s.back_off) {
    out = ask(Replan::kStuck, tick);
    return true;
  }
  // Backing away for a drawn time, and to a drawn side: the new path starts elsewhere, and meets
  // what blocked it (a wall's face square on, another character) from another side.
  // Longer each time it is stuck again where it was: two that keep meeting in a door part further
  // (a deadlock that outlasts stuck_replans grows rarer).
  const uint32_t quarter = uint32_t(s.stuck_ticks) / 4 + 1;
  const uint64_t draw = mix(state.position, tick);
  backing_until_ = tick + (quarter + uint32_t(draw % (2 * quarter))) * uint32_t(stuck_in_a_row_);
  const Vec3 away = w.at - corner(next_);
  const double side = (draw >> 32) & 1 ? 1 : -1;
  backing_way_ = away + Vec3{-away.z * side, 0, away.x * side};  // 45 degrees off straight back
  out.input = toward(w.at, w.at + backing_way_, 1, 0, tick);
  return true;
}

bool PathFollower::past_deadline(uint32_t tick, const FollowSettings& s) {
  if (deadline_tick_ == 0 && first_length_ > 0) {
    // The first path's length at walk speed, deadline_factor times over, plus the slack: in ticks,
    // rounded down (det_floor: no libm), past the goal's tick.
    const double seconds = s.deadline_factor * first_length_ / det_max(s.walk_speed, 0.1) + s.deadline_slack;
    deadline_tick_ = goal_tick_ + uint32_t(det_floor(det_min(seconds * s.tick_rate, 4e9)));
  }
  if (deadline_tick_ == 0) return false;
  // Ticks spent waiting for others (giving way at narrow places, held up by them) move the deadline
  // on, up to the deadline's own length again: a door a crowd comes through from both ends takes
  // its turns, which the path cannot know.
  const uint32_t length = deadline_tick_ - goal_tick_;
  return tick > deadline_tick_ + (waited_ < length ? waited_ : length);
}

FollowStep PathFollower::step(const CharacterState& state, uint32_t tick, const FollowSettings& s,
                              std::span<const Nearby> nearby) {
  FollowStep out;
  out.input = neutral(tick);
  if (mode_ == Mode::kIdle) return out;
  if (mode_ == Mode::kPlanning) {
    out.event = FollowEvent::kNeedPath;
    out.replan = pending_;
    return out;
  }
  if (failed_ != GiveUp::kNone) return give_up(failed_, tick);
  if (past_deadline(tick, s)) return give_up(GiveUp::kTimeout, tick);

  Where w;
  w.at = to_position(state.position);
  w.feet = w.at.y - (state.crouched ? s.crouch_height : s.height) / 2;
  w.grounded = is_grounded(state.ground);
  w.carried = state.platform != 0;
  // A fall it did not take itself (off a ledge on a walk, or pushed off one): a landing after
  // fall_ticks in the air on a walk's leg (a jump's or a drop's landing is expected).
  if (tick != seen_tick_) {  // once a tick, however often it is asked
    seen_tick_ = tick;
    if (!w.grounded) {
      ++air_;
    } else {
      w.fell = air_ >= uint32_t(s.fall_ticks) && next_ > 0 && legs_[next_ - 1] == Leg::kWalk;
      air_ = 0;
    }
  }
  if (backing_until_ != 0) {  // stuck: backing away from the corner it could not reach, then a new path
    // No farther than back_off_reach from the leg it walked: it backs out of a door or a crowd, not
    // off across the level (it does not see ledges).
    if (tick < backing_until_ && across(w.at) <= s.back_off_reach) {
      if (crowded_) count_wait(tick);  // backing out of a crowd that held it up: the crowd's time too
      out.input = toward(w.at, w.at + backing_way_, 1, 0, tick);
      return out;
    }
    backing_until_ = 0;
    return ask(Replan::kStuck, tick);
  }
  if (retry_at_ != 0) {  // no path: straight for the goal, then asked again
    if (no_path_in_a_row_ > s.no_path_retries) return give_up(GiveUp::kNoPath, tick);
    if (tick >= retry_at_ + uint32_t(s.stuck_ticks) / 4) {
      retry_at_ = 0;
      return ask(Replan::kRetry, tick);
    }
    out.input = toward(w.at, goal_, 1, 0, tick);
    return out;
  }
  if (pass_corners(w, tick, s, out)) return out;

  // The goal: the path's last corner, near enough, on its level; also on a mover over it (the mesh
  // knows no movers: a goal under a turntable or a lift at rest is reached standing on it).
  const std::size_t last = corners_.size() - 1;
  if (next_ == last && w.grounded) {
    const Vec3 end = corner(last);
    if (horizontal_distance(w.at, end) <= s.arrive_reach && w.feet >= end.y - s.step_height - s.off_level &&
        w.feet <= end.y + s.step_height + s.off_level) {
      if (complete_) return arrive(tick);
      return ask(Replan::kPartial, tick);
    }
  }
  if (off_path(w, s)) {
    ++counts_.off_path;
    return ask(Replan::kOffPath, tick);
  }
  // Round the others, not on a jump's or a drop's way (where the corners are where the ledge is);
  // the others weighed every avoid_every ticks (wants_nearby()).
  const Vec3 target = corner(next_);
  const double d = horizontal_distance(w.at, target);
  const bool link = legs_[next_] == Leg::kJump || (next_ > 0 && legs_[next_ - 1] != Leg::kWalk);
  const bool weigh = !link && tick >= weigh_at_;
  const double left = d + rest_[next_];  // the way left along the path
  if (weigh) {
    weigh_at_ = tick + uint32_t(det_max(s.avoid_every, 1));
    waiting_ = give_way(w, left, tick, nearby, s);
    held_ = held_up(w, state, target, next_ == last && d <= s.give_way_reach, nearby, s);
  }
  if (held_ && !link) {
    count_wait(tick);
    crowded_ = true;
  }
  if (!link && wait(w, left, tick, s, out)) return out;
  if (stuck(w, state, tick, s, out)) return out;
  // On toward the next corner, slowing on the last tick's worth of the way to the goal.
  double fraction = 1;
  if (next_ == last) {
    const double per_tick = s.walk_speed / s.tick_rate;
    if (per_tick > 0) fraction = det_min(1.0, d / per_tick);
  }
  const Vec3 way = link ? target - w.at : steer(w.at, target, weigh, nearby, s);
  out.input = toward(w.at, w.at + way, fraction, 0, tick);
  return out;
}

}  // namespace foothold::follow
