#include "shared/triangle_mesh.h"

#include <cmath>
#include <utility>

#include "shared/det_math.h"

namespace foothold {

SurfaceTag tag_from_material(std::string_view material) {
  if (material == "always_ground") return SurfaceTag::kAlwaysGround;
  if (material == "never_ground") return SurfaceTag::kNeverGround;
  return SurfaceTag::kByNormal;
}

std::string_view to_string(SurfaceTag tag) {
  switch (tag) {
    case SurfaceTag::kAlwaysGround: return "always_ground";
    case SurfaceTag::kNeverGround: return "never_ground";
    case SurfaceTag::kByNormal: break;
  }
  return "by_normal";
}

bool valid_trigger_name(std::string_view name) {
  if (name.empty() || name.size() > kMaxTriggerName) return false;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';
    if (!ok) return false;
  }
  return true;
}

uint32_t MeshBuilder::vertex(const Vec3& p) {
  mesh_.vertices.push_back(p);
  return uint32_t(mesh_.vertices.size() - 1);
}

void MeshBuilder::triangle(const Vec3& a, const Vec3& b, const Vec3& c, SurfaceTag tag) {
  mesh_.faces.push_back({{vertex(a), vertex(b), vertex(c)}, tag});
}

void MeshBuilder::quad(const Vec3& a, const Vec3& b, const Vec3& c, const Vec3& d, SurfaceTag tag) {
  triangle(a, b, c, tag);
  triangle(a, c, d, tag);
}

void MeshBuilder::triangle_facing(const Vec3& a, const Vec3& b, const Vec3& c, const Vec3& toward, SurfaceTag tag) {
  if (dot(cross(b - a, c - a), toward) >= 0) {
    triangle(a, b, c, tag);
  } else {
    triangle(a, c, b, tag);
  }
}

void MeshBuilder::quad_facing(const Vec3& a, const Vec3& b, const Vec3& c, const Vec3& d, const Vec3& toward,
                              SurfaceTag tag) {
  if (dot(cross(b - a, c - a), toward) >= 0) {
    quad(a, b, c, d, tag);
  } else {
    quad(d, c, b, a, tag);
  }
}

void MeshBuilder::prism_z(const std::vector<Vec3>& profile, double z0, double z1, const std::vector<SurfaceTag>& tags) {
  const size_t n = profile.size();
  auto at = [&](size_t i, double z) { return Vec3{profile[i % n].x, profile[i % n].y, z}; };
  for (size_t i = 1; i + 1 < n; ++i) {
    triangle(at(0, z1), at(i, z1), at(i + 1, z1));  // counter-clockwise seen from +Z
    triangle(at(0, z0), at(i + 1, z0), at(i, z0));
  }
  for (size_t i = 0; i < n; ++i) {
    const Vec3 e = at(i + 1, 0) - at(i, 0);
    const Vec3 outward{e.y, -e.x, 0};
    quad_facing(at(i, z0), at(i + 1, z0), at(i + 1, z1), at(i, z1), outward,
                i < tags.size() ? tags[i] : SurfaceTag::kByNormal);
  }
}

void MeshBuilder::floor_grid(double x0, double z0, double x1, double z1, double y, double cell, SurfaceTag tag) {
  const int nx = std::max(1, int(det_llround((x1 - x0) / cell)));
  const int nz = std::max(1, int(det_llround((z1 - z0) / cell)));
  const double dx = (x1 - x0) / nx;
  const double dz = (z1 - z0) / nz;
  for (int i = 0; i < nx; ++i) {
    for (int k = 0; k < nz; ++k) {
      const double xa = x0 + i * dx, xb = x0 + (i + 1) * dx;
      const double za = z0 + k * dz, zb = z0 + (k + 1) * dz;
      // Seen from above (+Y) with X right and Z toward the viewer, counter-clockwise is
      // (xa,za) -> (xa,zb) -> (xb,zb) -> (xb,za).
      quad({xa, y, za}, {xa, y, zb}, {xb, y, zb}, {xb, y, za}, tag);
    }
  }
}

void MeshBuilder::box(const Vec3& lo, const Vec3& hi, SurfaceTag tag) {
  hexahedron({Vec3{lo.x, lo.y, lo.z}, {lo.x, lo.y, hi.z}, {hi.x, lo.y, hi.z}, {hi.x, lo.y, lo.z}},
             {Vec3{lo.x, hi.y, lo.z}, {lo.x, hi.y, hi.z}, {hi.x, hi.y, hi.z}, {hi.x, hi.y, lo.z}}, tag);
}

void MeshBuilder::hexahedron(const std::array<Vec3, 4>& b, const std::array<Vec3, 4>& t, SurfaceTag top_tag) {
  // Top faces up (counter-clockwise from above), bottom faces down (reverse order), and each side
  // i -> i+1 faces outward.
  quad(t[0], t[1], t[2], t[3], top_tag);
  quad(b[3], b[2], b[1], b[0]);
  for (int i = 0; i < 4; ++i) {
    const int j = (i + 1) % 4;
    quad(b[i], b[j], t[j], t[i]);
  }
}

TriangleMesh MeshBuilder::take() { return std::exchange(mesh_, TriangleMesh{}); }

}  // namespace foothold
