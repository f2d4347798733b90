#pragma once
// foothold-nav walk (issue #67): characters the server would drive, sent to random reachable goals
// on a world, one goal after another, by the path follower (follow/path_follower.h) on this mesh's
// paths, through the real tick (shared/tick.h's TickRunner, as the server steps its characters),
// with no network and no server: a headless check that a level is walkable and the figures of it.

#include <cstdint>
#include <functional>
#include <string>

#include "nav/nav_query.h"
#include "nav/navmesh.h"
#include "shared/parallel_for.h"

namespace foothold::nav {

/// How walk() runs.
struct WalkOptions {
  int agents = 8;           ///< characters [1, 4096]
  double seconds = 60;      ///< simulated seconds (ticks: seconds x the settings' tick rate)
  uint64_t seed = 1;        ///< the goals' and spawns' random numbers (SplitMix64, as GameControl::random())
  /// A goal is at least this far from where its character stands, horizontally (metres), so that a
  /// goal is a walk, not a step.
  double min_goal_distance = 4;
  ParallelFor* threads = nullptr;  ///< the tick's steps (null: the calling thread); the results do not depend on it
  /// Called with a line for each goal given up (which character, where, why); may be empty.
  std::function<void(const std::string&)> note;
};

/// What walk() measured.
struct WalkResult {
  int agents = 0;
  uint32_t goals = 0;        ///< goals that ended in the run: arrived or given up (one under way at the end is not counted)
  uint32_t arrived = 0;      ///< goals reached
  uint32_t stuck = 0;        ///< times a character was stuck (no progress for a second; each re-planned or gave up)
  uint32_t give_ups = 0;     ///< goals given up
  uint32_t jumps = 0;        ///< jumps the followers pressed
  uint32_t gave_way = 0;     ///< times a follower waited at a narrow place for one coming the other way
  uint32_t paths = 0;        ///< paths found (first and re-planned)
  uint32_t off_path = 0;     ///< re-plans of characters off their paths (pushed, fallen)
  /// The mean over goals reached of the time taken over the first path's length at walk speed.
  double mean_time_ratio = 0;
  /// Microseconds of the followers' work (goals, paths, inputs) per character per tick, measured.
  double us_per_npc_tick = 0;
  std::string error;         ///< why it could not run (no character could be placed); empty when it ran
};

/// Walks `options.agents` characters of `settings` over `world` on `mesh` (baked for them) for
/// `options.seconds`. The same arguments give the same counts (only the time per tick varies).
WalkResult walk(const World& world, const MoveSettings& settings, const NavMesh& mesh, const WalkOptions& options);

}  // namespace foothold::nav
