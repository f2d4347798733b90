#include "shared/arena.h"

#include <cmath>

#include "shared/det_math.h"

namespace foothold {

namespace {

double tan_deg(double degrees) {
  const double r = det_radians(degrees);
  return det_sin(r) / det_cos(r);
}

void slope(MeshBuilder& b, const arena::Slope& s, SurfaceTag face_tag = SurfaceTag::kByNormal) {
  const double top_x = s.foot_x + s.run;
  const double h = s.run * tan_deg(s.degrees);
  // Profile: foot, back bottom, back top. Edge 2 (back top -> foot) is the slope.
  b.prism_z({{s.foot_x, 0, 0}, {top_x, 0, 0}, {top_x, h, 0}}, arena::kSlopeZ0, arena::kSlopeZ1,
            {SurfaceTag::kByNormal, SurfaceTag::kByNormal, face_tag});
}

// A V of two faces meeting at a crease along Z at (x, 0); each face rises at `degrees` to
// kWedgeHeight, with a 0.5 m wide rim on either side.
void crevice(MeshBuilder& b) {
  using namespace arena;
  const double h = kWedgeHeight;
  const double w = h / tan_deg(kWedgeDegrees);
  const double x = kCreviceX;
  // Left slab (profile counter-clockwise seen from +Z): crease, rim bottom, rim top, face top.
  b.prism_z({{x, 0, 0}, {x - w, h, 0}, {x - w - 0.5, h, 0}, {x - w - 0.5, 0, 0}}, kCreviceZ0, kCreviceZ1);
  b.prism_z({{x, 0, 0}, {x + w + 0.5, 0, 0}, {x + w + 0.5, h, 0}, {x + w, h, 0}}, kCreviceZ0, kCreviceZ1);
}

// A pit: an inverted three-sided pyramid with its apex on the floor and its faces at kWedgeDegrees,
// inside a closed triangular block.
void pit(MeshBuilder& b) {
  using namespace arena;
  const double h = kWedgeHeight;
  const double inradius = h / tan_deg(kWedgeDegrees);  // apex to each rim edge, horizontally
  const Vec3 apex{kPitX, 0, kPitZ};
  Vec3 rim[3], outer[3], outer_low[3];
  // Directions to the corners of an equilateral triangle (its circumradius is twice its inradius).
  const double half_root3 = std::sqrt(3.0) / 2;
  const Vec3 dirs[3] = {{0, 0, 1}, {-half_root3, 0, -0.5}, {half_root3, 0, -0.5}};
  for (int i = 0; i < 3; ++i) {
    rim[i] = apex + dirs[i] * (2 * inradius) + Vec3{0, h, 0};
    outer[i] = apex + dirs[i] * (2 * inradius + 2.0) + Vec3{0, h, 0};
    outer_low[i] = Vec3{outer[i].x, 0, outer[i].z};
  }
  for (int i = 0; i < 3; ++i) {
    const int j = (i + 1) % 3;
    const Vec3 mid = (rim[i] + rim[j]) * 0.5;
    const Vec3 inward = Vec3{apex.x - mid.x, 0, apex.z - mid.z};
    b.triangle_facing(apex, rim[i], rim[j], inward + Vec3{0, 1, 0});                    // pit face
    b.quad_facing(rim[i], rim[j], outer[j], outer[i], kUp);                             // rim top
    b.quad_facing(outer[i], outer[j], outer_low[j], outer_low[i], Vec3{0, 0, 0} - inward); // outside
  }
  b.triangle_facing(outer_low[0], outer_low[1], outer_low[2], Vec3{0, -1, 0});
}

// A slab mover: a box from `lo` to `hi` in its own axes, moved by one link of `channels`.
MoverMesh slab(const char* name, const Vec3& lo, const Vec3& hi, std::vector<Channel> channels) {
  MoverMesh m;
  m.name = name;
  MeshBuilder b;
  b.box(lo, hi);
  m.mesh = b.take();
  m.chain.push_back(Link{Pose{}, std::move(channels)});
  return m;
}

Channel translation_keys(std::vector<double> times, std::vector<Vec3> points) {
  Channel c;
  c.path = Channel::Path::kTranslation;
  c.times = std::move(times);
  for (const Vec3& p : points) c.values.insert(c.values.end(), {p.x, p.y, p.z});
  c.period = c.times.back();
  return c;
}

void movers(TriangleMesh& mesh) {
  using namespace arena;
  const double t = kMoverThickness;
  // The elevator: its slab's top is at 0.2 m at rest, kElevatorRise higher at the top.
  const Vec3 low{kLedgeX0, 0, kStairZ1}, high{kLedgeX0, kElevatorRise, kStairZ1};
  mesh.movers.push_back(slab("elevator", {0, 0, 0}, {kLedgeX1 - kLedgeX0, t, kElevatorWidth},
                             {translation_keys({0, 1, 3, 4, kElevatorPeriod}, {low, low, high, high, low})}));
  // The shuttle: 1 s waiting at each end, the run between at kShuttleSpeed.
  const double run = (kShuttleX1 - kShuttleX0) / kShuttleSpeed;
  const Vec3 a{kShuttleX0, 0, kShuttleZ}, b{kShuttleX1, 0, kShuttleZ};
  mesh.movers.push_back(slab("shuttle", {-1.5, 0, -1.5}, {1.5, t, 1.5},
                             {translation_keys({0, 1, 1 + run, 2 + run, 2 + 2 * run}, {a, a, b, b, a})}));
  // The turntable: a quarter turn every 2 s (45°/s), a key at each quarter so that LINEAR (slerp)
  // turns at a constant rate.
  Channel turn;
  turn.path = Channel::Path::kRotation;
  const double h = std::sqrt(0.5);  // sin and cos of 45°: exact to the last bit everywhere
  const double quarter = 90 / kTurntableDegreesPerSecond;
  turn.times = {0, quarter, 2 * quarter, 3 * quarter, 4 * quarter};
  turn.values = {0, 0, 0, 1, 0, h, 0, h, 0, 1, 0, 0, 0, h, 0, -h, 0, 0, 0, -1};
  turn.period = turn.times.back();
  MoverMesh table = slab("turntable", {-2, 0, -2}, {2, t, 2}, {turn});
  table.chain.front().rest.translation = {kTurntableX, 0, kTurntableZ};
  mesh.movers.push_back(std::move(table));
}

}  // namespace

TriangleMesh build_arena_mesh() {
  using namespace arena;
  MeshBuilder b;
  b.floor_grid(-kHalfSize, -kHalfSize, kHalfSize, kHalfSize, 0, kFloorCell);
  // Perimeter walls, so that nothing wanders off the world.
  b.box({-kHalfSize - 1, 0, -kHalfSize - 1}, {-kHalfSize, kWallHeight, kHalfSize + 1});
  b.box({kHalfSize, 0, -kHalfSize - 1}, {kHalfSize + 1, kWallHeight, kHalfSize + 1});
  b.box({-kHalfSize, 0, -kHalfSize - 1}, {kHalfSize, kWallHeight, -kHalfSize});
  b.box({-kHalfSize, 0, kHalfSize}, {kHalfSize, kWallHeight, kHalfSize + 1});

  // Row A: slopes under and over the limit, and the tagged areas.
  slope(b, kSlope30);
  slope(b, kSlope40);
  slope(b, kSlope50);
  slope(b, kSlope70);
  slope(b, kTaggedSlope60, SurfaceTag::kAlwaysGround);
  b.hexahedron({Vec3{kNeverPadX0, 0, kSlopeZ0}, {kNeverPadX0, 0, kSlopeZ1}, {kNeverPadX1, 0, kSlopeZ1}, {kNeverPadX1, 0, kSlopeZ0}},
               {Vec3{kNeverPadX0, kNeverPadHeight, kSlopeZ0}, {kNeverPadX0, kNeverPadHeight, kSlopeZ1},
                {kNeverPadX1, kNeverPadHeight, kSlopeZ1}, {kNeverPadX1, kNeverPadHeight, kSlopeZ0}},
               SurfaceTag::kNeverGround);

  // Row B: stairs (each step its own block) and the ledge they lead to.
  for (int i = 0; i < kStairCount; ++i) {
    b.box({kStairX0 + i * kStairTread, 0, kStairZ0}, {kStairX0 + (i + 1) * kStairTread, (i + 1) * kStairRise, kStairZ1});
  }
  b.box({kLedgeX0, 0, kStairZ0}, {kLedgeX1, kLedgeHeight, kStairZ1});

  // Row C: an upright wall, one leaning away and one overhanging, each 1 m thick at its foot.
  b.box({kUprightWallX, 0, kWallZ0}, {kUprightWallX + 1, kWallHeight, kWallZ1});
  const double lean = kWallHeight / tan_deg(kLeaningWallDegrees);
  const double over = kWallHeight * tan_deg(kOverhangDegrees);
  for (const auto& [x, shift] : {std::pair{kLeaningWallX, lean}, std::pair{kOverhangX, -over}}) {
    b.hexahedron({Vec3{x, 0, kWallZ0}, {x, 0, kWallZ1}, {x + 1, 0, kWallZ1}, {x + 1, 0, kWallZ0}},
                 {Vec3{x + shift, kWallHeight, kWallZ0}, {x + shift, kWallHeight, kWallZ1}, {x + 1 + shift, kWallHeight, kWallZ1},
                  {x + 1 + shift, kWallHeight, kWallZ0}});
  }

  // Row D: wedges.
  crevice(b);
  pit(b);
  TriangleMesh mesh = b.take();
  movers(mesh);
  return mesh;
}

}  // namespace foothold
