#pragma once
// The movement step: one character, one tick. A pure function of (state, input, world, settings):
// the server and every client call it with the same integers and get the same integers back.

#include <cstdint>
#include <vector>

#include "shared/character_contacts.h"
#include "shared/character_state.h"
#include "shared/contact_queries.h"
#include "shared/input.h"
#include "shared/mover_frame.h"
#include "shared/settings.h"
#include "shared/touches.h"
#include "shared/world.h"

namespace foothold {

/// Reusable working memory for step(). Its contents never influence a result (each step starts by
/// clearing it); keeping one per thread just means the steady state allocates nothing.
struct StepScratch {
  /// Reserves room for 4096 candidates up front.
  StepScratch() { candidates.reserve(4096); }
  std::vector<uint32_t> candidates;  ///< the step's candidate triangle indices (ContactQueries' storage)
  /// Optional: the stepped character's own candidate cache (see CandidateCache). Set it before each
  /// step to that character's cache, or leave it null; results are the same either way.
  CandidateCache* cache = nullptr;
  /// The movers' frame a step builds when it was not given one for its tick (Surroundings::movers).
  MoverFrame frame;
  std::vector<WorldTriangle> fences;    ///< the step's fence triangles (movement.md §16)
  std::vector<OtherCharacter> near;     ///< the others a step found in Surroundings::crowd
  std::vector<uint32_t> fence_owners;   ///< the other character of each fence triangle
  /// Room for a step among up to `others` other characters (a fence each, at most), so that such a
  /// step allocates nothing however many of them come near (a client's promise once connected).
  void reserve_others(std::size_t others) {
    fences.reserve(others);
    near.reserve(others);
    fence_owners.reserve(others);
  }
};

/// What a step sees besides the static world: the movers at its tick and the other characters.
struct Surroundings {
  /// The movers placed at the step's tick (MoverFrame::build() with the input's tick). Optional: when
  /// null, or built for another tick, the step builds its own (the same result, slower). Ignored in a
  /// world without movers.
  const MoverFrame* movers = nullptr;
  /// The other characters as everyone knows them after the previous tick (at least every one within
  /// kNeighbourRange; farther ones are ignored). A client passes every remote character it knows;
  /// the server's tick passes its Crowd instead (`crowd`). Entries with `self_id` are ignored.
  std::span<const OtherCharacter> others;
  uint32_t self_id = 0;  ///< the stepped character's own id (the tie-break when two centres coincide)
  /// Optional, instead of `others` (then ignored): the tick's crowd, which holds the stepped
  /// character at `crowd_index`. The step asks it only for the others within its own reach this
  /// tick, in a crowd far fewer than those within kNeighbourRange: the same result, cheaper.
  const Crowd* crowd = nullptr;
  std::size_t crowd_index = 0;
};

/// What happened inside a step, for tests, tools and the debugging of desyncs. Not part of the state.
struct StepDiagnostics {
  GroundKind ground_at_start = GroundKind::kNone;  ///< the state's ground kind
  bool jumped = false;       ///< grounded at the start with jump held: jumped this tick (§5.2)
  bool rising = false;       ///< moving up through the air at the end: never grounded (§5.2)
  int slide_iterations = 0;  ///< SlideResult::iterations: sweeps that hit and slid on (§6); 0 for a free move
  bool stepped_up = false;   ///< climbed a stair (§7)
  bool snapped_down = false; ///< snapped down onto walkable ground after leaving the floor (§9)
  bool locked_to_floor = false;  ///< the floor lock ran: its offset exceeded one quantum (§10)
  int pushout_iterations = 0;    ///< push-out iterations run, 0 when nothing overlapped (§8)
  bool pushout_unresolved = false;  ///< push-out hit its cap still overlapping; the character stays there (§8)
  bool pushed_by_mover = false;  ///< a mover moved into the character and pushed it out (§15.3)
  bool crushed = false;          ///< the crush rule ran: it still overlapped something at the end (§15.3)
  int characters_near = 0;       ///< other characters it kept a fence from this tick (§16)
  bool pushed_apart = false;     ///< it overlapped another character at the start and was pushed off (§16)
  Vec3 position;             ///< end position (capsule centre), metres (on the grid)
};

/// Everything step() returns.
struct StepResult {
  CharacterState state;       ///< the character after the tick: all that crosses to the next one
  TouchList touches;          ///< what it touched this tick (a report; never read by the step)
  StepDiagnostics diagnostics;  ///< how it got there (never part of the state)
};

/// Advances one character by one tick. Its phases, each a function in step.cpp and a section of
/// docs/movement.md (the table in §4):
///  1. the movers at this tick (§15.1); whether to jump (§5.2);
///  2. the other characters within reach, as fences every later sweep respects (§16);
///  3. a rider carried by its mover (§15.2);
///  4. the posture: crouch, or stand up where there is room (§5.4);
///  5. a push half the way out of any character it overlaps (§16);
///  6. the ground the previous tick left at this very position (§4.1), and a push out of any mover
///     that moved into the character (§15.3);
///  7. velocity: a grounded character walks along its floor or jumps; an airborne one steers and
///     gets half a tick of gravity (§5);
///  8. one gather of the candidate triangles (§4.3);
///  9. collide-and-slide with stairs (§6, §7);
/// 10. push-out of anything still overlapping (§8);
/// 11. on leaving the floor, a snap down onto walkable ground (§9);
/// 12. on the floor, the lock to rest_gap above it (§10);
/// 13. with movers, the crush rule and the grid the character ends on (§15.2, §15.3);
/// 14. the end of the tick: the ground state where the grid keeps the character, the second half of
///     gravity, and the touches (§11, §12).
/// Every position from phase 10 on is judged where the fixed-point grid keeps it, so the stored
/// ground state is exactly what grounding finds at the stored position: rounding never flips it
/// (§1). `world`, `settings` and `around` are only read during the call; `scratch` is working memory.
/// The character moves with `settings.for_profile(state.profile)` (its movement profile; the base
/// settings for an index with none). A frozen character (`state.frozen`) is stepped with a neutral
/// input in place of `input`: no move, no jump press and none buffered, the crouch button as its
/// posture is; gravity, movers and the other characters act on it as on any (its `jump_held` reads
/// false, so a button still down when it is unfrozen is a fresh press). The result keeps the
/// state's `frozen` and `profile`.
StepResult step(const CharacterState& state, const InputCmd& input, const World& world,
                const DerivedSettings& settings, StepScratch& scratch, const Surroundings& around = {});

/// The same step, into `out`, whatever it held before: the same result as the one above. For a
/// caller that steps many characters one after another with one StepResult: a new one clears its
/// whole touch list (about 1 KB) each step, a reused one only its count.
void step(const CharacterState& state, const InputCmd& input, const World& world, const DerivedSettings& settings,
          StepScratch& scratch, const Surroundings& around, StepResult& out);

}  // namespace foothold
