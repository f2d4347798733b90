#include "shared/formats/obj_loader.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>

// The tinyobjloader_double target defines TINYOBJLOADER_USE_DOUBLE, matching the library it links.
#include <tiny_obj_loader.h>

#include "shared/fixed_point.h"
#include "shared/formats/text_fields.h"
#include "shared/tolerances.h"

namespace foothold {

namespace {

// tinyobjloader parses leniently: a malformed number reads as 0 and an index past the end is passed
// through. So every line is first checked here, and only a file that passes is handed to the library.
// The check also reads every vertex coordinate itself, correctly rounded (parse_finite): the
// library's own number parser builds values with libm's pow, whose last bit differs between
// architectures, which gave arm64 and x86-64 different worlds from the same file. The library's
// values are not used.
struct LineCheck {
  std::string error;
  size_t vertices = 0;  // 'v' lines seen so far
  std::vector<Vec3> coordinates;  // every vertex, in order
};

bool parse_number(std::string_view tok, double& out) {
  const auto v = parse_finite(tok);
  if (v) out = *v;
  return v.has_value();
}

bool parse_index(std::string_view tok, long& out) {
  if (tok.empty()) return false;
  std::string s(tok);
  char* end = nullptr;
  out = std::strtol(s.c_str(), &end, 10);
  return end == s.c_str() + s.size() && out != 0;
}

std::string check_line(std::string_view line, LineCheck& st) {
  const auto t = split_fields(line);
  if (t.empty() || t[0][0] == '#') return {};
  if (t[0] == "v") {
    if (t.size() != 4 && t.size() != 5 && t.size() != 7) return "a vertex needs three coordinates: v X Y Z";
    double xyz[3] = {};
    for (size_t i = 1; i < t.size(); ++i) {
      double v;
      if (!parse_number(t[i], v)) return "vertex coordinate '" + std::string(t[i]) + "' is not a finite number";
      if (i <= 3 && std::fabs(v) > kWorldLimit)
        return "vertex coordinate " + std::string(t[i]) + " is outside the fixed-point range of +-" +
               std::to_string(long(kWorldLimit)) + " m";
      if (i <= 3) xyz[i - 1] = v;
    }
    ++st.vertices;
    st.coordinates.push_back({xyz[0], xyz[1], xyz[2]});
  } else if (t[0] == "f") {
    if (t.size() < 4) return "a face needs at least three vertices";
    for (size_t i = 1; i < t.size(); ++i) {
      const auto slash = t[i].find('/');
      long idx;
      if (!parse_index(t[i].substr(0, slash), idx)) return "face vertex '" + std::string(t[i]) + "' has no valid vertex index";
      const long resolved = idx > 0 ? idx - 1 : long(st.vertices) + idx;
      if (resolved < 0 || resolved >= long(st.vertices))
        return "face vertex index " + std::to_string(idx) + " refers to no vertex (" + std::to_string(st.vertices) +
               " defined so far)";
    }
  } else if (t[0] == "usemtl") {
    if (t.size() != 2) return "usemtl needs one material name";
  }
  return {};
}

struct Builder {
  const std::vector<Vec3>* coordinates = nullptr;  // the line check's, correctly rounded
  TriangleMesh mesh;
  bool bad_index = false;
  SurfaceTag tag = SurfaceTag::kByNormal;
  size_t degenerate = 0;
  size_t extra_vertices = 0;
};

bool degenerate(const Vec3& a, const Vec3& b, const Vec3& c) {
  // The same rule as World::create, which would drop it (tolerances.h).
  return length(cross(b - a, c - a)) < tolerance::kDegenerateTwiceArea;
}

void add_triangle(Builder& b, uint32_t i0, uint32_t i1, uint32_t i2) {
  const auto& v = b.mesh.vertices;
  if (i0 == i1 || i1 == i2 || i0 == i2 || degenerate(v[i0], v[i1], v[i2])) {
    ++b.degenerate;
    return;
  }
  b.mesh.faces.push_back({{i0, i1, i2}, b.tag});
}

// A convex polygon is split as a fan from its first vertex, as tinyobjloader, RecastDemo and most
// engines split it: on a non-planar quad the surface is then the one the level's own tools show.
// A concave one is ear-clipped in its own plane (Newell normal); where no ear is found (a
// self-intersecting polygon) the rest is a fan.
void triangulate(Builder& b, const std::vector<uint32_t>& poly) {
  const auto& v = b.mesh.vertices;
  Vec3 n{};
  for (size_t i = 0; i < poly.size(); ++i) {
    const Vec3& p = v[poly[i]];
    const Vec3& q = v[poly[(i + 1) % poly.size()]];
    n += Vec3{(p.y - q.y) * (p.z + q.z), (p.z - q.z) * (p.x + q.x), (p.x - q.x) * (p.y + q.y)};
  }
  auto convex = [&](const Vec3& a, const Vec3& p, const Vec3& c) { return dot(cross(p - a, c - p), n) > 0; };
  bool all_convex = true;
  for (size_t i = 0; i < poly.size() && all_convex; ++i) {
    const Vec3& a = v[poly[(i + poly.size() - 1) % poly.size()]];
    const Vec3& c = v[poly[(i + 1) % poly.size()]];
    all_convex = dot(cross(v[poly[i]] - a, c - v[poly[i]]), n) >= 0;  // a straight corner is not concave
  }
  if (all_convex) {
    for (size_t i = 1; i + 1 < poly.size(); ++i) add_triangle(b, poly[0], poly[i], poly[i + 1]);
    return;
  }
  std::vector<uint32_t> rest = poly;
  auto inside = [&](const Vec3& x, const Vec3& a, const Vec3& p, const Vec3& c) {
    return dot(cross(p - a, x - a), n) >= 0 && dot(cross(c - p, x - p), n) >= 0 && dot(cross(a - c, x - c), n) >= 0;
  };
  while (rest.size() > 3) {
    bool clipped = false;
    for (size_t i = 0; i < rest.size() && !clipped; ++i) {
      const size_t ia = (i + rest.size() - 1) % rest.size(), ic = (i + 1) % rest.size();
      const Vec3 &a = v[rest[ia]], &p = v[rest[i]], &c = v[rest[ic]];
      if (!convex(a, p, c)) continue;
      bool empty = true;
      for (size_t k = 0; k < rest.size() && empty; ++k) {
        if (k == ia || k == i || k == ic) continue;
        if (inside(v[rest[k]], a, p, c)) empty = false;
      }
      if (!empty) continue;
      add_triangle(b, rest[ia], rest[i], rest[ic]);
      rest.erase(rest.begin() + long(i));
      clipped = true;
    }
    if (!clipped) {
      for (size_t i = 1; i + 1 < rest.size(); ++i) add_triangle(b, rest[0], rest[i], rest[i + 1]);
      return;
    }
  }
  add_triangle(b, rest[0], rest[1], rest[2]);
}

}  // namespace

MeshLoad parse_obj(std::string_view text, std::string_view source) {
  MeshLoad out;
  const std::string where(source);
  LineCheck check;
  size_t line_no = 0;
  for (size_t pos = 0; pos <= text.size();) {
    // Lines end at \n, \r\n or a lone \r, exactly where tinyobjloader ends them.
    size_t end = text.find_first_of("\r\n", pos);
    if (end == std::string_view::npos) end = text.size();
    ++line_no;
    const auto line = text.substr(pos, end - pos);
    if (end + 1 < text.size() && text[end] == '\r' && text[end + 1] == '\n') ++end;
    // Control characters (other than tab) would be read one way by this check and another by the
    // parser; a text OBJ file has none.
    for (char ch : line) {
      const auto u = static_cast<unsigned char>(ch);
      if ((u < 0x20 && ch != '\t') || u == 0x7f) {
        char what[48];
        std::snprintf(what, sizeof what, "unexpected control character 0x%02x", u);
        out.error = where + ":" + std::to_string(line_no) + ": " + what + (u == 0 ? " (not a text OBJ file?)" : "");
        return out;
      }
    }
    if (auto err = check_line(line, check); !err.empty()) {
      out.error = where + ":" + std::to_string(line_no) + ": " + err;
      return out;
    }
    pos = end + 1;
  }

  Builder b;
  b.coordinates = &check.coordinates;
  tinyobj::callback_t cb;
  cb.vertex_cb = [](void* user, double, double, double, double) {
    // The library saw the same 'v' lines in the same order as the check: take the check's value.
    auto* self = static_cast<Builder*>(user);
    const std::size_t i = self->mesh.vertices.size();
    if (i < self->coordinates->size()) self->mesh.vertices.push_back((*self->coordinates)[i]);
    else ++self->extra_vertices;  // cannot happen (the check saw every line); refused below
  };
  cb.usemtl_cb = [](void* user, const char* name, int) { static_cast<Builder*>(user)->tag = tag_from_material(name); };
  cb.index_cb = [](void* user, tinyobj::index_t* idx, int count) {
    auto* self = static_cast<Builder*>(user);
    const long n = long(self->mesh.vertices.size());
    if (count < 3) {  // cannot pass the line check; refused here as well, whatever the parser saw
      ++self->degenerate;
      return;
    }
    std::vector<uint32_t> poly;
    poly.reserve(size_t(count));
    for (int i = 0; i < count; ++i) {
      const long raw = idx[i].vertex_index;
      const long resolved = raw > 0 ? raw - 1 : n + raw;
      // The line check refused bad indices already; this guards the parser reading a line otherwise.
      if (raw == 0 || resolved < 0 || resolved >= n) {
        self->bad_index = true;
        return;
      }
      poly.push_back(uint32_t(resolved));
    }
    if (poly.size() == 3) {
      add_triangle(*self, poly[0], poly[1], poly[2]);
    } else {
      triangulate(*self, poly);
    }
  };
  std::istringstream in{std::string(text)};
  std::string warn, err;
  if (!tinyobj::LoadObjWithCallback(in, cb, &b, nullptr, &warn, &err)) {
    out.error = where + ": " + (err.empty() ? std::string("cannot parse OBJ") : err);
    return out;
  }
  if (b.bad_index) {
    out.error = where + ": a face refers to no vertex";
    return out;
  }
  if (b.extra_vertices > 0 || b.mesh.vertices.size() != check.coordinates.size()) {
    out.error = where + ": the OBJ parser read " + std::to_string(b.mesh.vertices.size() + b.extra_vertices) +
                " vertices where the check read " + std::to_string(check.coordinates.size());
    return out;
  }
  if (b.mesh.faces.empty()) {
    out.error = where + ": the file has no usable triangle";
    return out;
  }
  out.degenerate_skipped = b.degenerate;
  if (b.degenerate > 0)
    out.warnings.push_back(where + ": skipped " + std::to_string(b.degenerate) + " degenerate triangle(s)");
  out.mesh = std::move(b.mesh);
  return out;
}

MeshLoad load_obj_file(const std::string& path) {
  const auto text = read_whole_file(path);
  if (!text.bytes) {
    MeshLoad out;
    out.error = path + ": cannot open world file: " + text.error;
    return out;
  }
  return parse_obj(*text.bytes, path);
}

}  // namespace foothold
