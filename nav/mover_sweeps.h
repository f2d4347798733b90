#pragma once
// Where movers go (issue #67): the box each mover of a world sweeps over its whole animation, so
// that the navigation mesh can mark the ground under it. The mesh is the static world's; a lift, a
// turntable, a shuttle or a door stands on parts of it some of the time. Polygons a mover sweeps get
// their own area (kMoverArea): paths cross them only where going round costs kMoverAreaCost times
// more, and NavMesh::random_point() never draws a point there (a goal under a lift is reached only
// while the lift is down).
#include <vector>

#include "shared/world.h"

namespace foothold::nav {

/// The Recast area of walkable ground a mover sweeps (tile_build.cpp marks it; NavQuery prices it).
inline constexpr unsigned char kMoverArea = 3;
/// What a metre of kMoverArea costs a path, in metres of other ground.
inline constexpr float kMoverAreaCost = 4;
/// Poses sampled per mover: its animation's period in steps of 1/kSweepRate s, at most kMaxSweepSamples.
inline constexpr double kSweepRate = 60;
inline constexpr int kMaxSweepSamples = 4096;

/// The box each mover of `world` sweeps (in mover order; world axes): its triangles' bounds posed at
/// every sample of its animation's period and at each key (empty, lo over hi, for a mover with no
/// triangle). A driven mover's clock may stand at any point of its animation, so its whole
/// animation counts too.
std::vector<Aabb> mover_sweeps(const World& world);

}  // namespace foothold::nav
