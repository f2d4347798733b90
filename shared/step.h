#pragma once
// The movement step: one character, one tick. A pure function of (state, input, world, settings):
// the server and every client call it with the same integers and get the same integers back.

#include <cstdint>
#include <vector>

#include "shared/character_state.h"
#include "shared/input.h"
#include "shared/settings.h"
#include "shared/world.h"

namespace foothold {

/// Reusable working memory for step(). Its contents never influence a result (each step starts by
/// clearing it); keeping one per thread just means the steady state allocates nothing.
struct StepScratch {
  StepScratch() { candidates.reserve(4096); }
  std::vector<uint32_t> candidates;
};

/// What happened inside a step, for tests, tools and the debugging of desyncs. Not part of the state.
struct StepDiagnostics {
  GroundKind ground_at_start = GroundKind::kNone;  ///< the state's ground kind
  bool jumped = false;
  bool rising = false;       ///< moving up through the air at the end: never grounded
  int slide_iterations = 0;
  bool stepped_up = false;
  bool snapped_down = false;
  bool locked_to_floor = false;
  int pushout_iterations = 0;
  bool pushout_unresolved = false;
  Vec3 position;             ///< end position, metres (on the grid)
};

struct StepResult {
  CharacterState state;
  StepDiagnostics diagnostics;
};

/// Advances one character by one tick:
///  1. grounding: the state's ground kind and floor normal, found at this very position by the
///     previous tick (doc 000);
///  2. velocity: a grounded character walks along its floor at walk_speed (doc 002) or jumps; an
///     airborne one steers with air_acceleration and gets half a tick of gravity (doc 003);
///  3. collide-and-slide with stairs (doc 003);
///  4. push-out of anything still overlapping (doc 004);
///  5. on leaving the floor, a snap down onto walkable ground within step_height plus the horizontal
///     travel times tan(max_slope) (doc 003);
///  6. on the floor, the lock to rest_gap above it (doc 002);
///  7. the second half of gravity for a character airborne at the end.
/// Every position from step 4 on is judged where the fixed-point grid keeps it, so the stored ground
/// state is exactly what grounding finds at the stored position: rounding never flips it. A
/// character rising through the air (jumping) is never grounded.
StepResult step(const CharacterState& state, const InputCmd& input, const World& world,
                const DerivedSettings& settings, StepScratch& scratch);

}  // namespace foothold
