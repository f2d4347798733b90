#pragma once
// The simulation's version: which step a recording was made with (#40's compatibility policy,
// docs/compatibility.md).
//
// Bump it in the change that makes step() (or TickRunner, or anything it calls) give a different
// result for the same world, settings and inputs: a fix, a new mechanism, a changed tolerance, a new
// setting whose default changes what the old code did. A recording keeps the version that made it,
// and foothold-replay verify says by name when the two differ, so that the mismatch that follows is
// read as the step's change, not as a desync. Changes that keep every result (speed, refactoring)
// keep the version; the determinism tests' recorded traces catch one that did not.

#include <cstdint>

namespace foothold {

inline constexpr uint32_t kSimulationVersion = 2;

}  // namespace foothold
