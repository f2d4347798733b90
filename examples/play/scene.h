#pragma once
// The 3D part of a frame: the camera, the world's static triangles (uploaded once), the movers'
// triangles (every frame) and the characters' capsules. Legacy fixed-function OpenGL (2.1), lit
// flat on the CPU: one colour per face from its normal against a fixed light.

#include <array>
#include <string>
#include <vector>

#include <foothold/client.h>

#include "palette.h"

namespace play {

struct Vec3d {
  double x = 0, y = 0, z = 0;
};

/// A column-major 4x4 matrix, as glLoadMatrixd takes it.
using Mat4 = std::array<double, 16>;

Mat4 perspective(double fovy_degrees, double aspect, double z_near, double z_far);
Mat4 look_at(const Vec3d& eye, const Vec3d& target, const Vec3d& up);
Mat4 orthographic(double left, double right, double bottom, double top, double z_near, double z_far);

/// Where the camera is and what it looks at.
struct Camera {
  Vec3d eye, target;
};

/// The world's axis-aligned bounds, metres.
struct Bounds {
  Vec3d lo, hi;
  Vec3d centre() const { return {(lo.x + hi.x) / 2, (lo.y + hi.y) / 2, (lo.z + hi.z) / 2}; }
  double extent() const;  ///< the largest side
};

/// The ground direction the player walks toward for a camera yaw (radians, 0: looking down -Z).
Vec3d camera_forward(double yaw);
/// Third person: behind the character (as the yaw faces) and above it, looking at it.
Camera follow_camera(const Vec3d& character, double yaw);
/// Before there is a character: the world's centre, seen from above.
Camera overview_camera(const Bounds& world);

/// The static world, read once from the client into a display list.
class WorldMesh {
 public:
  WorldMesh() = default;
  ~WorldMesh();
  WorldMesh(const WorldMesh&) = delete;
  WorldMesh& operator=(const WorldMesh&) = delete;

  /// Reads every static triangle and compiles the list. False (and the client's message in `error`)
  /// when the client refuses.
  bool load(const foothold_client* client, std::string& error);
  void draw() const;
  const Bounds& bounds() const { return bounds_; }

 private:
  unsigned list_ = 0;
  Bounds bounds_;
};

/// The movers' triangles, read from the client every frame into buffers that are kept.
class MoverMesh {
 public:
  /// Reads the movers where they are now and draws them; false (message in `error`) on refusal.
  bool draw(foothold_client* client, std::string& error);

 private:
  std::vector<float> vertices_;
};

/// A capsule standing upright: `centre` is its middle, `height` its total height (caps included).
void draw_capsule(const Vec3d& centre, double radius, double height, Rgb colour);

/// Sets the 3D projection and camera for a viewport of `width` x `height` pixels; `far_distance`
/// covers the world.
void begin_3d(const Camera& camera, int width, int height, double far_distance);

}  // namespace play
