#pragma once
// The embedded default world ("--world arena"): one of every case the movement core must get right,
// laid out on a 64 m square floor. The layout constants below are the single source for the arena's
// geometry, the tests that run on it and the tools that place characters in it.

#include "shared/triangle_mesh.h"

namespace foothold {

/// Layout of the embedded arena, metres, world axes (Y up, floor at y = 0).
namespace arena {

inline constexpr double kHalfSize = 32;     ///< the floor spans [-32, 32] m in X and Z, at y = 0
inline constexpr double kFloorCell = 2;     ///< floor triangles: 2 m cells
inline constexpr double kWallHeight = 3;    ///< height of the perimeter walls and of row C's walls, metres

// Row A (z in [kSlopeZ0, kSlopeZ1]): slopes rising toward +X, each a solid wedge.
inline constexpr double kSlopeZ0 = -28, kSlopeZ1 = -24;  ///< row A's extent in Z, metres
/// One slope of row A: a wedge from x = foot_x (on the floor) to foot_x + run, rising toward +X.
struct Slope {
  double foot_x;  ///< where the slope meets the floor, metres (X)
  double run;     ///< horizontal length, metres
  double degrees; ///< inclination from the horizontal, degrees
};
inline constexpr Slope kSlope30{-28, 4, 30};  ///< walkable at the default 45° limit
inline constexpr Slope kSlope40{-20, 4, 40};  ///< walkable at the default 45° limit
inline constexpr Slope kSlope50{-12, 4, 50};  ///< too steep at the default 45° limit
inline constexpr Slope kSlope70{-4, 1.5, 70}; ///< too steep at the default 45° limit
inline constexpr Slope kTaggedSlope60{4, 2, 60};   ///< its face is tagged always_ground
inline constexpr double kNeverPadX0 = 12, kNeverPadX1 = 16, kNeverPadHeight = 0.1;  ///< a low pad in row A; top tagged never_ground

// Row B (z in [kStairZ0, kStairZ1]): stairs up to a ledge.
inline constexpr double kStairZ0 = -16, kStairZ1 = -12;  ///< row B's extent in Z, metres
inline constexpr double kStairX0 = -28;      ///< foot of the first riser
inline constexpr double kStairRise = 0.25, kStairTread = 0.4;  ///< each step's height and depth, metres
inline constexpr int kStairCount = 8;                          ///< steps up to the ledge
inline constexpr double kLedgeX0 = kStairX0 + kStairCount * kStairTread;  ///< the platform the stairs reach
inline constexpr double kLedgeX1 = kLedgeX0 + 4;                          ///< its far edge: a 2 m drop
inline constexpr double kLedgeHeight = kStairCount * kStairRise;         ///< the ledge's top, metres

// Row C (z in [kWallZ0, kWallZ1]): walls facing -X, 3 m tall.
inline constexpr double kWallZ0 = -4, kWallZ1 = 4;  ///< row C's extent in Z, metres
inline constexpr double kUprightWallX = -20;      ///< its face (X, metres); the wall is 1 m thick
inline constexpr double kLeaningWallX = -10;      ///< its foot; leans away from -X at 80 degrees
inline constexpr double kLeaningWallDegrees = 80;  ///< the leaning wall's face, from the horizontal
inline constexpr double kOverhangX = 0;           ///< its foot; overhangs toward -X by 20 degrees
inline constexpr double kOverhangDegrees = 20;     ///< the overhang's face, from the vertical

// Row D: a V crevice of two 70-degree faces (crease along Z at y = 0) and a pit of three.
inline constexpr double kCreviceX = -20, kCreviceZ0 = 12, kCreviceZ1 = 18;  ///< the crease's X, and its extent in Z
inline constexpr double kWedgeDegrees = 70, kWedgeHeight = 2.5;  ///< every wedge face's inclination and top, metres
inline constexpr double kPitX = -8, kPitZ = 15;                   ///< the pit's apex, on the floor

// Movers (movement.md §15.1), each a 0.2 m thick slab animated in a loop.
/// The elevator: a 4 x 2.5 m slab along the ledge's +Z side (x over the ledge's extent, z from
/// kStairZ1), its top rising from 0.2 m (a low step from the floor) to the ledge's top. Keys: 1 s
/// below, 2 s up, 1 s above, 2 s down.
inline constexpr double kElevatorWidth = 2.5;  ///< along Z, metres
inline constexpr double kElevatorRise = kLedgeHeight - 0.2;  ///< metres travelled
inline constexpr double kElevatorPeriod = 6;                  ///< seconds per loop
/// The shuttle: a 3 x 3 m slab whose centre runs along X at z = kShuttleZ from kShuttleX0 to kShuttleX1
/// at 3 m/s, waiting 1 s at each end.
inline constexpr double kShuttleZ = 26, kShuttleX0 = -8, kShuttleX1 = 10;
inline constexpr double kShuttleSpeed = 3;  ///< m/s between the ends
/// The turntable: a 4 x 4 m slab centred on (kTurntableX, 0, kTurntableZ), turning about Y at 45°/s.
inline constexpr double kTurntableX = 20, kTurntableZ = -20;
inline constexpr double kTurntableDegreesPerSecond = 45;
inline constexpr double kMoverThickness = 0.2;  ///< every mover's slab, metres

/// A free spot on the floor, away from every feature: a point of the floor surface (y = 0), not a
/// capsule centre (a character standing there has its centre height / 2 + rest_gap higher).
inline constexpr Vec3 kOpenFloor{12, 0, 12};

/// Where the server spawns characters (server/spawn.h): floor at least 0.6 m clear of every feature,
/// wall and mover's path, as rectangles in X and Z (metres, inclusive), nearest kSpawnCentre first.
struct SpawnArea {
  double x0, x1, z0, z1;
};
inline constexpr SpawnArea kSpawnAreas[] = {
    {2.5, 31, -16, 23.5},     // the open east half, between row A's pad and the shuttle
    {2.5, 16, -23, -16},      // south of it, west of the turntable
    {-18.5, 2.5, -23, -5},    // between row A and row C, east of the stairs and the elevator
    {-31, 2.5, 5, 10.5},      // between row C and row D
    {-31, 2.5, 19.5, 23.5},   // between row D and the shuttle's path
    {-31, -10.5, 19.5, 31},   // the north-west corner, west of the shuttle's path
    {12.5, 31, 24, 31},       // the north-east corner, east of the shuttle's path
};
inline constexpr Vec3 kSpawnCentre{15, 0, 15};
/// Whether (x, z) lies in one of kSpawnAreas.
constexpr bool in_spawn_area(double x, double z) {
  for (const SpawnArea& a : kSpawnAreas)
    if (x >= a.x0 && x <= a.x1 && z >= a.z0 && z <= a.z1) return true;
  return false;
}

}  // namespace arena

/// Builds the arena mesh ("--world arena", load_world("arena")).
TriangleMesh build_arena_mesh();

}  // namespace foothold
