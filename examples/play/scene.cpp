#include "scene.h"

#include <algorithm>
#include <cmath>

#include <SDL_opengl.h>

namespace play {

namespace {

constexpr double kPi = 3.14159265358979323846;

// The sun: up, a little from +X and +Z, so that floors are bright and each wall face differs.
constexpr Vec3d kLightDirection{0.4, 1.0, 0.3};

// Third-person camera: how far behind and above the character's centre it sits, and how far above
// the centre it looks. A shallow pitch keeps the horizon (and some sky) in view.
constexpr double kFollowDistance = 6.5;
constexpr double kFollowHeight = 2.0;
constexpr double kLookAbove = 0.4;
constexpr double kFieldOfViewDegrees = 60;

constexpr size_t kTrianglesPerRead = 16384;
constexpr double kFloorCell = 2.0;  // metres: the checker's cell, to see the ground go by

Vec3d sub(const Vec3d& a, const Vec3d& b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
Vec3d cross(const Vec3d& a, const Vec3d& b) { return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x}; }
double dot(const Vec3d& a, const Vec3d& b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
Vec3d normalized(const Vec3d& v) {
  const double length = std::sqrt(dot(v, v));
  return length > 0 ? Vec3d{v.x / length, v.y / length, v.z / length} : Vec3d{0, 0, 0};
}

// Flat lighting: min_light in shadow, full brightness facing the sun.
double light_intensity(const Vec3d& normal, double min_light) {
  const double facing = std::max(0.0, dot(normalized(normal), normalized(kLightDirection)));
  return min_light + (1 - min_light) * facing;
}

void set_colour(Rgb c) { glColor3ub(c.r, c.g, c.b); }

Rgb tag_colour(uint32_t tag) {
  switch (tag) {
    case 1: return kWorldAlways;
    case 2: return kWorldNever;
    default: return kWorldPlain;
  }
}

// One triangle's colour: its tag's, lit by its normal; upward faces alternate in a checker of
// kFloorCell cells so that motion over a flat floor shows.
Rgb triangle_colour(const float* v, uint32_t tag) {
  const Vec3d a{v[0], v[1], v[2]}, b{v[3], v[4], v[5]}, c{v[6], v[7], v[8]};
  const Vec3d normal = normalized(cross(sub(b, a), sub(c, a)));
  double intensity = light_intensity(normal, kWorldMinLight);
  if (normal.y > 0.9) {
    const double cx = (a.x + b.x + c.x) / 3, cz = (a.z + b.z + c.z) / 3;
    const long cell = long(std::floor(cx / kFloorCell)) + long(std::floor(cz / kFloorCell));
    if (cell % 2 != 0) intensity *= kCheckerDarken;
  }
  return shade(tag_colour(tag), intensity);
}

void emit_triangles(const float* vertices, const uint32_t* tags, size_t count, const Rgb* fixed_colour) {
  glBegin(GL_TRIANGLES);
  for (size_t t = 0; t < count; ++t) {
    const float* v = vertices + 9 * t;
    if (fixed_colour != nullptr) {
      const Vec3d normal = cross(sub({v[3], v[4], v[5]}, {v[0], v[1], v[2]}), sub({v[6], v[7], v[8]}, {v[0], v[1], v[2]}));
      set_colour(shade(*fixed_colour, light_intensity(normal, kWorldMinLight)));
    } else {
      set_colour(triangle_colour(v, tags[t]));
    }
    for (int corner = 0; corner < 3; ++corner) glVertex3f(v[3 * corner], v[3 * corner + 1], v[3 * corner + 2]);
  }
  glEnd();
}

void grow(Bounds& b, const float* v, size_t count) {
  for (size_t i = 0; i < count * 3; ++i) {
    const Vec3d p{v[3 * i], v[3 * i + 1], v[3 * i + 2]};
    b.lo = {std::min(b.lo.x, p.x), std::min(b.lo.y, p.y), std::min(b.lo.z, p.z)};
    b.hi = {std::max(b.hi.x, p.x), std::max(b.hi.y, p.y), std::max(b.hi.z, p.z)};
  }
}

// A quad of the capsule, lit by the outward direction `normal`.
void capsule_quad(const Vec3d& p0, const Vec3d& p1, const Vec3d& p2, const Vec3d& p3, const Vec3d& normal, Rgb colour) {
  set_colour(shade(colour, light_intensity(normal, kCharacterMinLight)));
  for (const Vec3d* p : {&p0, &p1, &p2, &p3}) glVertex3d(p->x, p->y, p->z);
}

}  // namespace

Mat4 perspective(double fovy_degrees, double aspect, double z_near, double z_far) {
  const double f = 1 / std::tan(fovy_degrees * kPi / 360);
  Mat4 m{};
  m[0] = f / aspect;
  m[5] = f;
  m[10] = (z_far + z_near) / (z_near - z_far);
  m[11] = -1;
  m[14] = 2 * z_far * z_near / (z_near - z_far);
  return m;
}

Mat4 look_at(const Vec3d& eye, const Vec3d& target, const Vec3d& up) {
  const Vec3d f = normalized(sub(target, eye));
  const Vec3d s = normalized(cross(f, up));
  const Vec3d u = cross(s, f);
  return {s.x, u.x, -f.x, 0, s.y, u.y, -f.y, 0, s.z, u.z, -f.z, 0, -dot(s, eye), -dot(u, eye), dot(f, eye), 1};
}

Mat4 orthographic(double left, double right, double bottom, double top, double z_near, double z_far) {
  Mat4 m{};
  m[0] = 2 / (right - left);
  m[5] = 2 / (top - bottom);
  m[10] = -2 / (z_far - z_near);
  m[12] = -(right + left) / (right - left);
  m[13] = -(top + bottom) / (top - bottom);
  m[14] = -(z_far + z_near) / (z_far - z_near);
  m[15] = 1;
  return m;
}

double Bounds::extent() const { return std::max({hi.x - lo.x, hi.y - lo.y, hi.z - lo.z, 1.0}); }

Vec3d camera_forward(double yaw) { return {-std::sin(yaw), 0, -std::cos(yaw)}; }

Camera follow_camera(const Vec3d& character, double yaw) {
  const Vec3d forward = camera_forward(yaw);
  const Vec3d target{character.x, character.y + kLookAbove, character.z};
  return {{target.x - forward.x * kFollowDistance, character.y + kFollowHeight, target.z - forward.z * kFollowDistance}, target};
}

Camera overview_camera(const Bounds& world) {
  const Vec3d c = world.centre();
  const double e = world.extent();
  return {{c.x, world.hi.y + 0.8 * e, c.z + 0.6 * e}, c};
}

void begin_3d(const Camera& camera, int width, int height, double far_distance) {
  glViewport(0, 0, width, height);
  glMatrixMode(GL_PROJECTION);
  const Mat4 projection = perspective(kFieldOfViewDegrees, double(width) / double(std::max(height, 1)), 0.1, far_distance);
  glLoadMatrixd(projection.data());
  glMatrixMode(GL_MODELVIEW);
  const Mat4 view = look_at(camera.eye, camera.target, {0, 1, 0});
  glLoadMatrixd(view.data());
  glEnable(GL_DEPTH_TEST);
}

WorldMesh::~WorldMesh() {
  if (list_ != 0) glDeleteLists(list_, 1);
}

bool WorldMesh::load(const foothold_client* client, std::string& error) {
  const size_t total = foothold_client_world_triangle_count(client);
  bounds_ = {{1e300, 1e300, 1e300}, {-1e300, -1e300, -1e300}};
  if (total == 0) bounds_ = {{-1, -1, -1}, {1, 1, 1}};
  if (list_ == 0) list_ = glGenLists(1);
  // Read in chunks: a large level needs no second copy of itself in memory.
  std::vector<float> vertices(std::min(total, kTrianglesPerRead) * 9);
  std::vector<uint32_t> tags(std::min(total, kTrianglesPerRead));
  glNewList(list_, GL_COMPILE);
  for (size_t first = 0; first < total; first += kTrianglesPerRead) {
    const size_t count = std::min(kTrianglesPerRead, total - first);
    if (foothold_client_world_triangles(client, first, count, vertices.data(), tags.data()) != FOOTHOLD_CLIENT_OK) {
      glEndList();
      error = foothold_client_last_error(client);
      return false;
    }
    grow(bounds_, vertices.data(), count);
    emit_triangles(vertices.data(), tags.data(), count, nullptr);
  }
  glEndList();
  return true;
}

void WorldMesh::draw() const {
  if (list_ != 0) glCallList(list_);
}

bool MoverMesh::draw(foothold_client* client, std::string& error) {
  const size_t count = foothold_client_mover_triangle_count(client);
  if (count == 0) return true;
  vertices_.resize(count * 9);  // grows once; later frames reuse it
  if (foothold_client_mover_triangles(client, 0, count, vertices_.data(), nullptr) != FOOTHOLD_CLIENT_OK) {
    error = foothold_client_last_error(client);
    return false;
  }
  emit_triangles(vertices_.data(), nullptr, count, &kMover);
  return true;
}

void draw_capsule(const Vec3d& centre, double radius, double height, Rgb colour) {
  // An upright cylinder between the two cap centres, and a hemisphere on each; flat-shaded quads.
  constexpr int kSegments = 16, kCapRings = 4;
  const double half_core = std::max(0.0, height / 2 - radius);
  auto around = [&](int i) {
    const double a = 2 * kPi * i / kSegments;
    return Vec3d{std::cos(a), 0, std::sin(a)};
  };
  glBegin(GL_QUADS);
  for (int i = 0; i < kSegments; ++i) {
    const Vec3d d0 = around(i), d1 = around(i + 1), mid = normalized({d0.x + d1.x, 0, d0.z + d1.z});
    auto at = [&](const Vec3d& d, double y) { return Vec3d{centre.x + d.x * radius, centre.y + y, centre.z + d.z * radius}; };
    capsule_quad(at(d0, -half_core), at(d1, -half_core), at(d1, half_core), at(d0, half_core), mid, colour);
    for (int cap = -1; cap <= 1; cap += 2) {  // bottom, then top
      for (int r = 0; r < kCapRings; ++r) {
        const double lat0 = kPi / 2 * r / kCapRings, lat1 = kPi / 2 * (r + 1) / kCapRings, lat_mid = (lat0 + lat1) / 2;
        auto on_cap = [&](const Vec3d& d, double lat) {
          return Vec3d{centre.x + d.x * radius * std::cos(lat), centre.y + cap * (half_core + radius * std::sin(lat)),
                       centre.z + d.z * radius * std::cos(lat)};
        };
        const Vec3d normal{mid.x * std::cos(lat_mid), cap * std::sin(lat_mid), mid.z * std::cos(lat_mid)};
        capsule_quad(on_cap(d0, lat0), on_cap(d1, lat0), on_cap(d1, lat1), on_cap(d0, lat1), normal, colour);
      }
    }
  }
  glEnd();
}

}  // namespace play
