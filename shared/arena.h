#pragma once
// The embedded default world ("--world arena"): one of every case the movement core must get right,
// laid out on a 64 m square floor. The layout constants below are the single source for the arena's
// geometry, the tests that run on it and the tools that place characters in it.

#include "shared/triangle_mesh.h"

namespace foothold {

namespace arena {

inline constexpr double kHalfSize = 32;     ///< the floor spans [-32, 32] m in X and Z, at y = 0
inline constexpr double kFloorCell = 2;     ///< floor triangles: 2 m cells
inline constexpr double kWallHeight = 3;    ///< perimeter walls

// Row A (z in [kSlopeZ0, kSlopeZ1]): slopes rising toward +X, each a solid wedge.
inline constexpr double kSlopeZ0 = -28, kSlopeZ1 = -24;
struct Slope {
  double foot_x;  ///< where the slope meets the floor
  double run;     ///< horizontal length, metres
  double degrees; ///< inclination
};
inline constexpr Slope kSlope30{-28, 4, 30};
inline constexpr Slope kSlope40{-20, 4, 40};
inline constexpr Slope kSlope50{-12, 4, 50};
inline constexpr Slope kSlope70{-4, 1.5, 70};
inline constexpr Slope kTaggedSlope60{4, 2, 60};   ///< its face is tagged always_ground
inline constexpr double kNeverPadX0 = 12, kNeverPadX1 = 16, kNeverPadHeight = 0.1;  ///< top tagged never_ground

// Row B (z in [kStairZ0, kStairZ1]): stairs up to a ledge.
inline constexpr double kStairZ0 = -16, kStairZ1 = -12;
inline constexpr double kStairX0 = -28;      ///< foot of the first riser
inline constexpr double kStairRise = 0.25, kStairTread = 0.4;
inline constexpr int kStairCount = 8;
inline constexpr double kLedgeX0 = kStairX0 + kStairCount * kStairTread;  ///< the platform the stairs reach
inline constexpr double kLedgeX1 = kLedgeX0 + 4;                          ///< its far edge: a 2 m drop
inline constexpr double kLedgeHeight = kStairCount * kStairRise;

// Row C (z in [kWallZ0, kWallZ1]): walls facing -X, 3 m tall.
inline constexpr double kWallZ0 = -4, kWallZ1 = 4;
inline constexpr double kUprightWallX = -20;      ///< its face
inline constexpr double kLeaningWallX = -10;      ///< its foot; leans away from -X at 80 degrees
inline constexpr double kLeaningWallDegrees = 80;
inline constexpr double kOverhangX = 0;           ///< its foot; overhangs toward -X by 20 degrees
inline constexpr double kOverhangDegrees = 20;

// Row D: a V crevice of two 70-degree faces (crease along Z at y = 0) and a pit of three.
inline constexpr double kCreviceX = -20, kCreviceZ0 = 12, kCreviceZ1 = 18;
inline constexpr double kWedgeDegrees = 70, kWedgeHeight = 2.5;
inline constexpr double kPitX = -8, kPitZ = 15;

/// A free spot on the floor, away from every feature.
inline constexpr Vec3 kOpenFloor{12, 0, 12};

}  // namespace arena

/// Builds the arena mesh.
TriangleMesh build_arena_mesh();

}  // namespace foothold
