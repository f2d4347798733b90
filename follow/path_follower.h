#pragma once
// The path follower (issue #67): a character the server drives walks a path (follow/path.h) by the
// stick input this turns the path into, tick by tick, the same input a player's client would send.
//
//   follow::PathFollower f;
//   f.go_to(goal, tick);
//   each tick, before the step:
//     follow::FollowStep s = f.step(state, tick, settings, nearby);  // settings: follow_settings(MoveSettings)
//     if (s.event == follow::FollowEvent::kNeedPath) {
//       f.set_path(control.path(follow::path_start(state, settings), f.goal()), tick);  // or nav's query
//       s = f.step(state, tick, settings, nearby);
//     }
//     use s.input (kArrived, kGaveUp: the goal is over; the input is neutral)
//
// What it does: it walks straight at the next corner and turns for the one after when its capsule
// is a radius from it, so it cuts the corner as far as the capsule can (the mesh keeps a radius
// from every wall: the capsule brushes the wall's corner and slides round it). At a jump's corner it
// jumps toward the next (a ledge up within the jump's reach); at a drop's, it walks off. Given the
// characters near it, it steers round those it would meet within FollowSettings::avoid_time (away
// from the side they will be on; head on, to its right, as they turn to theirs; not in a narrow
// place, where there is no room to), so that a crowd passes each other. At a narrow place on its
// path (a door one character wide: Path::narrows) it gives way to one coming the other way, further
// in or coming to the far mouth (who goes first takes turns by the way through: give_way_turn),
// waiting beside the near mouth (FollowSettings::narrow_width, give_way_reach). It asks for a new
// path (FollowEvent::kNeedPath, with the reason) when it is pushed off its path (farther than
// FollowSettings::off_path from the leg it walks, or landed from a fall it did not take), when it
// has made no progress for a second (stuck: blocked by a character, a mover, a wall the mesh does
// not know; it backs away for a moment first, so that two that block each other in a door part),
// and when it reaches the end of a partial path without reaching the goal. It gives up
// (FollowEvent::kGaveUp, with the reason) when there is no path (asked again a few times: a mover
// may have lifted it off the mesh), when partial paths lead it no nearer, when it is stuck again
// and again where it was stuck before (FollowSettings::stuck_replans), or when the goal takes far
// longer than its first path's length at walk speed (the time it gave way at doors aside).
//
// Plain data in (a character's state, a path, a tick), plain data out (an input, an event), and
// deterministic: the corners are taken to the position grid (1/1024 m), and every decision is IEEE
// arithmetic on those integers and the state's (no libm but sqrt; det_math.h for the rest), so the
// same state and path give the same input on every machine.

#include <cstdint>
#include <span>
#include <vector>

#include "follow/path.h"
#include "shared/character_state.h"
#include "shared/fixed_point.h"
#include "shared/input.h"
#include "shared/settings.h"

namespace foothold::follow {

/// What the follower needs of the movement settings, and its tuning (follow_settings() fills it).
struct FollowSettings {
  int tick_rate = 60;          ///< ticks per second
  double radius = 0.4;         ///< capsule radius, metres
  double height = 1.8;         ///< capsule height standing, metres
  double crouch_height = 1.2;  ///< capsule height crouched, metres
  double step_height = 0.35;   ///< highest step walked up, metres
  double walk_speed = 5;       ///< metres per second
  /// A walk corner is passed this near (horizontally, metres): a capsule radius, so that it turns as
  /// the capsule reaches the wall's corner.
  double corner_reach = 0.4;
  /// A jump's take-off corner is reached this near, metres.
  double jump_reach = 0.2;
  /// The goal is reached this near, horizontally, metres (and within a step and a margin, vertically).
  double arrive_reach = 0.3;
  /// Farther than this from the leg it walks, horizontally (metres), it asks for a new path.
  double off_path = 1.0;
  /// Off its level by more than this and a step, vertically (metres), it asks for a new path: on a
  /// jump's or a drop's way, off both ends' levels; on a walk's, landed from a fall that deep.
  double off_level = 0.5;
  /// Ticks in the air of a fall as deep as step_height + off_level (from the gravity).
  int fall_ticks = 18;
  /// The way left must shrink by this much (metres) to count as progress.
  double progress = 0.3;
  /// Ticks without progress that make it stuck: a second.
  int stuck_ticks = 60;
  /// New paths being stuck may ask for in a row (stuck again before it gets past where it was stuck
  /// last); stuck once more, it gives up. Each backs away longer (back_off): a crowd's jam in a door
  /// or a corridor parts within five where it may not within three (foothold-nav walk on the rooms
  /// and corridor levels, 400 seeds each).
  int stuck_replans = 5;
  /// Stuck, it first backs away from the corner it heads for, 45 degrees to a side (out of a doorway
  /// another character blocks from the other side, which backs away too; off a wall's face it met
  /// square on), for between stuck_ticks / 4 and 3 stuck_ticks / 4 ticks times the times it has
  /// been stuck there in a row, time and side drawn from its position: two that block each other
  /// draw apart, further each time they meet again, and the one that comes back first passes. It
  /// stops sooner once back_off_reach from the leg it walked.
  bool back_off = true;
  /// Metres from the leg it walks that backing away goes at most (horizontally): far enough to
  /// clear a door's crowd (nearer limits leave more jams unresolved: foothold-nav walk on the rooms
  /// level), near enough that it does not wander off the level's edge (it does not see ledges).
  double back_off_reach = 4;
  /// Paths it may be refused in a row (none: it stands off the mesh, lifted by a mover, or in the
  /// air) before it gives up; meanwhile it heads straight for the goal and asks again after
  /// stuck_ticks / 4.
  int no_path_retries = 3;
  /// Seconds ahead it looks for a character it would meet (its capsule within avoid_gap of its own),
  /// walking on as it does while the other keeps its velocity; 0: it avoids none. In a narrow place
  /// (narrow_width) and a radius about its mouths it steers round no one: there is no room to pass
  /// there, and the turn only presses it into a jamb, where it stands pushing.
  double avoid_time = 1.0;
  /// Metres between two capsules it steers to keep, passing.
  double avoid_gap = 0.2;
  /// How hard it steers round one it would meet at once (the sooner, the harder): the sideways
  /// part of its heading, against 1 along the way.
  double avoid_turn = 1.5;
  /// Meeting one coming the other way (head on within avoid_time), how much it turns to its right
  /// besides, in avoid_turn's units: two streams in a corridor part into lanes, where each pair's
  /// own way round mixed them into a jam (foothold-nav walk on the corridor level, seeds 1-400:
  /// 18 goals given up with 0, none with 0.25, 6 with 0.5).
  double keep_right = 0.25;
  /// It weighs the others every avoid_every ticks and keeps that steering (the sideways part of its
  /// heading) between: a second's look ahead changes little in a tick, and weighing a crowd is most
  /// of a follower's cost (PathFollower::wants_nearby() tells its caller when to gather them).
  int avoid_every = 2;
  /// A place on its path narrower than this (metres a capsule's centre can stand on across the
  /// path: follow::Narrow) is one character wide: two that meet there do not pass, as that needs
  /// their centres two radii and avoid_gap apart and, steering as they do, a gap's slack. Coming to
  /// one, it gives way to one coming the other way. (Narrower bounds put the mouth a door's
  /// thickness further in, and the one waiting in the way out: more jams on the rooms level.)
  double narrow_width = 1.2;
  /// Metres before a narrow place's near mouth (along the path) from which it looks for one coming
  /// the other way: one in the narrow place not walking its way and further in than this one (the
  /// one further in goes on, the other backs out of its way), or one walking toward the far mouth
  /// (who goes first: give_way_turn). Then it waits until the way is clear.
  double give_way_reach = 3;
  /// Metres before the mouth it waits at, clear of the way out (it walks on to there).
  double give_way_hold = 1.5;
  /// Metres to the right of the way in that it waits, clear of the mouth.
  double give_way_aside = 1.0;
  /// Ticks at most it waits at one narrow place: then it goes in, and the others give way to it.
  int give_way_ticks = 120;
  /// When some come to a narrow place from both ends, the two ways through it take turns of this
  /// many ticks (by the tick number: every follower, on every machine, sees the same turn): on its
  /// way's turn, a follower goes first unless one coming the other way is give_way_lead metres
  /// nearer its mouth; off its turn, it waits unless it is that much nearer. Both see the same
  /// distances, so one of two goes and the other waits, and a queue on either side goes through
  /// in a batch. 0: the nearer goes first, a tie by the way.
  int give_way_turn = 120;
  /// Metres nearer its mouth that one coming off its turn must be to go before one on its turn.
  double give_way_lead = 1;
  /// A goal takes at most deadline_factor times its first path's length at walk speed, plus
  /// deadline_slack seconds, plus the ticks it waited at narrow places (giving way), up to that
  /// deadline's length again; then it gives up.
  double deadline_factor = 4;
  double deadline_slack = 8;
};

/// The follower's settings for a character of `settings` (its base profile), the tuning as above.
FollowSettings follow_settings(const MoveSettings& settings);

/// Where to ask for a character's path from (FollowEvent::kNeedPath): its feet, 5 cm up. The mesh
/// lies on the ground, and from the capsule's centre a ledge beside the character can be nearer
/// than the floor under it.
Vec3 path_start(const CharacterState& state, const FollowSettings& settings);

/// Another character as a follower steers round it (step()'s `nearby`): where it is and how it
/// moves, as the tick before left it. Two fields of its state, so that a crowd's neighbours are
/// cheap to gather.
struct Nearby {
  FixedVec3 position;  ///< capsule centre, 1/1024 m (CharacterState::position)
  FixedVec3 velocity;  ///< 1/65536 m/s (CharacterState::velocity)
};
/// `state` as a follower steers round it.
inline Nearby nearby_of(const CharacterState& state) { return {state.position, state.velocity}; }

/// What a step() asks of its caller.
enum class FollowEvent : uint8_t {
  kNone,      ///< following (or idle): use the input
  kNeedPath,  ///< give it a path (set_path()) from where the character is to goal(), then step() again
  kArrived,   ///< the goal is reached (once; idle after)
  kGaveUp,    ///< the goal is given up (once; idle after): FollowStep::gave_up says why
};

/// Why a step() asks for a path.
enum class Replan : uint8_t {
  kNone,
  kGoal,     ///< a new goal (go_to())
  kStuck,    ///< no progress for stuck_ticks: blocked
  kOffPath,  ///< pushed off the path: too far from its leg, or off its level (a fall)
  kPartial,  ///< the end of a partial path is reached, the goal is not
  kRetry,    ///< the last path asked for was none (no_path_retries)
};

/// Why a goal was given up.
enum class GiveUp : uint8_t {
  kNone,
  kNoPath,       ///< no path at all, no_path_retries times over (an end off the mesh): the path says so
  kUnreachable,  ///< partial paths that end where the character already is: the path says so
  kStuck,        ///< stuck through stuck_replans new paths in a row
  kTimeout,      ///< the goal took longer than its deadline
};

/// "none", "goal", "stuck", "off_path", "partial", "retry".
const char* to_string(Replan replan);
/// "none", "no_path", "unreachable", "stuck", "timeout".
const char* to_string(GiveUp why);

/// One step()'s answer.
struct FollowStep {
  InputCmd input;                       ///< the input for the tick (its tick number set)
  FollowEvent event = FollowEvent::kNone;
  Replan replan = Replan::kNone;        ///< with kNeedPath: why
  GiveUp gave_up = GiveUp::kNone;       ///< with kGaveUp: why
};

/// Counts since the follower was made, for figures.
struct FollowCounts {
  uint32_t goals = 0;       ///< go_to() calls
  uint32_t arrived = 0;     ///< goals reached
  uint32_t gave_up = 0;     ///< goals given up
  uint32_t paths = 0;       ///< paths asked for (every reason)
  uint32_t stuck = 0;       ///< times it was stuck (each asked for a path, or gave up)
  uint32_t off_path = 0;    ///< times it was off its path
  uint32_t jumps = 0;       ///< jumps pressed
  uint32_t gave_way = 0;    ///< times it waited at a narrow place for one coming the other way
};

/// Follows one character's paths. A value: copy it, keep one per character.
class PathFollower {
 public:
  /// A new goal (metres: a point on the ground, or a capsule centre), from tick `tick` on: the next
  /// step() asks for a path to it.
  void go_to(const Vec3& goal, uint32_t tick);
  /// No goal: neutral input from now on.
  void stop();
  /// The path asked for (FollowEvent::kNeedPath), from where the character is to goal(), at `tick`.
  void set_path(const Path& path, uint32_t tick);
  /// The input for tick `tick` of the character in `state` (as the tick before left it), with the
  /// characters near it in `nearby` (as the tick before left them, itself left out, in an order that
  /// depends on the characters alone, such as ascending id, so that a replay gives the same), whom
  /// it steers round; may be empty.
  FollowStep step(const CharacterState& state, uint32_t tick, const FollowSettings& settings,
                  std::span<const Nearby> nearby = {});

  /// Whether step() at `tick` weighs the characters near it: only then need its caller gather them
  /// (an empty `nearby` on other ticks gives the same input as the real one would).
  bool wants_nearby(uint32_t tick) const { return mode_ != Mode::kIdle && tick >= weigh_at_; }

  /// The goal of go_to().
  const Vec3& goal() const { return goal_; }
  /// A goal is under way (neither reached nor given up, nor stopped).
  bool active() const { return mode_ != Mode::kIdle; }
  /// The length of the goal's first path, metres (0 before it).
  double first_length() const { return first_length_; }
  /// The tick go_to() was called at.
  uint32_t goal_tick() const { return goal_tick_; }
  /// The corner it is heading for (an index of the path's corners), and the path's corner count.
  std::size_t next_corner() const { return next_; }
  std::size_t corner_count() const { return corners_.size(); }
  const FollowCounts& counts() const { return counts_; }

 private:
  enum class Mode : uint8_t { kIdle, kPlanning, kFollowing };
  // Where the character is, as the follower reads it.
  struct Where {
    Vec3 at;        // capsule centre, metres (from the fixed-point state: exact)
    double feet = 0;
    bool grounded = false;
    bool carried = false;  // on a mover, which the mesh does not know: its level is the mover's
    bool fell = false;     // it has just landed from a fall it did not take itself
  };
  FollowStep ask(Replan why, uint32_t tick);
  FollowStep give_up(GiveUp why, uint32_t tick);
  FollowStep arrive(uint32_t tick);
  // Moves next_ past the corners reached; true when it jumped (the input is in `out`).
  bool pass_corners(const Where& w, uint32_t tick, const FollowSettings& s, FollowStep& out);
  bool off_path(const Where& w, const FollowSettings& s) const;
  // How far `at` is from the leg it walks (to corner next_), horizontally, metres (0 before the first leg).
  double across(const Vec3& at) const;
  // Progress along the path, or stuck: then true, with the backing away, the new path or the give-up in `out`.
  bool stuck(const Where& w, const CharacterState& state, uint32_t tick, const FollowSettings& s, FollowStep& out);
  // The way to head (x, z; not unit) toward `target` from `at`, round those in the way: those of
  // `nearby` weighed anew when `weigh` (every FollowSettings::avoid_every ticks), else as last weighed.
  Vec3 steer(const Vec3& at, const Vec3& target, bool weigh, std::span<const Nearby> nearby,
             const FollowSettings& s);
  // The next narrow place on the path whose far end is ahead of `left` metres of the way left:
  // narrows_[first] to narrows_[last]; false when there is none.
  bool next_narrow(double left, const FollowSettings& s, std::size_t& first, std::size_t& last) const;
  // Whether to wait (not walk on) for one of `nearby` coming the other way through the narrow
  // place ahead, `left` metres of the way left (follow::Narrow, FollowSettings::give_way_reach).
  bool give_way(const Where& w, double left, uint32_t tick, std::span<const Nearby> nearby, const FollowSettings& s);
  // Giving way (give_way()), with `left` metres of the way left: true when it stands or walks to
  // where it waits, with the input in `out`.
  bool wait(const Where& w, double left, uint32_t tick, const FollowSettings& s, FollowStep& out);
  // Sets the deadline from the first path when it has none yet; true when `tick` is past it.
  bool past_deadline(uint32_t tick, const FollowSettings& s);
  // Counts `tick` (once) as one it waited for others: the deadline moves on by it (step()).
  void count_wait(uint32_t tick);
  // Whether one of `nearby` holds it up: within touching reach of its capsule (avoid_gap) while it
  // barely moves (under a quarter of walk speed), pressed against it or by it; or, when `target` is
  // its goal near ahead (`goal_ahead`), within that reach of the goal.
  static bool held_up(const Where& w, const CharacterState& state, const Vec3& target, bool goal_ahead,
                      std::span<const Nearby> nearby, const FollowSettings& s);
  // The sideways part of the heading along (ux, uz) (unit) from `at` round those of `nearby`.
  static double avoid(const Vec3& at, double ux, double uz, std::span<const Nearby> nearby, const FollowSettings& s);
  Vec3 corner(std::size_t i) const { return to_position(corners_[i]); }

  Mode mode_ = Mode::kIdle;
  Replan pending_ = Replan::kNone;  // kPlanning: why
  GiveUp failed_ = GiveUp::kNone;   // set_path() found the goal hopeless: given up at the next step
  Vec3 goal_;
  uint32_t goal_tick_ = 0;
  uint32_t deadline_tick_ = 0;
  uint32_t waited_ = 0;              // ticks it waited for others for this goal (count_wait())
  uint32_t waited_tick_ = 0;         // the last tick counted in waited_
  double first_length_ = 0;
  bool complete_ = false;            // the path reaches the goal
  std::vector<FixedVec3> corners_;   // on the position grid
  std::vector<Leg> legs_;
  std::vector<double> rest_;         // rest_[i]: metres along the path from corner i to its end (horizontal)
  std::size_t next_ = 0;
  double best_ = 0;                  // the least way left so far, metres
  uint32_t best_tick_ = 0;           // when it shrank last by FollowSettings::progress
  int stuck_in_a_row_ = 0;           // stuck again before it got past where it was stuck last
  double stuck_left_ = 0;            // the way left when it was stuck last, metres
  int no_path_in_a_row_ = 0;
  int quick_replans_ = 0;            // paths asked for within a tick of the last one, in a row
  uint32_t path_tick_ = 0;           // when the last path came
  uint32_t air_ = 0;                 // ticks in the air in a row, as step() saw it
  uint32_t seen_tick_ = 0;           // the tick step() last counted air_ at
  uint32_t retry_at_ = 0;            // no path: it heads for the goal and asks again at this tick
  uint32_t backing_until_ = 0;       // stuck: it backs away until this tick, then asks for a path
  Vec3 backing_way_;                 // the way it backs away (horizontal, not unit)
  int partial_in_a_row_ = 0;
  // A narrow place on the path (follow::Narrow): where, how wide, and the way left from there.
  struct NarrowAt {
    Vec3 point;      // on the position grid
    double left = 0;  // metres along the path from there to its end (horizontal)
    double width = 0;
    uint32_t leg = 0;
    Vec3 axis;        // follow::Narrow::axis
  };
  std::vector<NarrowAt> narrows_;    // in order along the path
  bool waiting_ = false;             // giving way at a narrow place, as last weighed (give_way())
  double wait_for_ = -1;             // the way left at the mouth of the narrow place it last weighed
  uint32_t wait_since_ = 0;          // when it began to wait there (0: it has not)
  Vec3 wait_spot_;                   // where it waits
  // Within a radius of a narrow place's mouths or in it, as last weighed (give_way()): it steers
  // round no one there. The passage has no room to pass in, and a turn presses it into a jamb.
  bool in_narrow_ = false;
  // Held up by others, as last weighed (held_up()): a crowd at a corridor's mouth, or one standing
  // on the goal. Its ticks are the crowd's, not the way's: they move the deadline on.
  bool held_ = false;
  bool crowded_ = false;              // held_ at some tick since its last progress (stuck())
  double side_ = 0;                  // the steering round others last weighed (avoid())
  uint32_t weigh_at_ = 0;            // the tick to weigh the others again at (0: the next step)
  FollowCounts counts_;
};

}  // namespace foothold::follow
