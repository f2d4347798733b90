#include "shared/formats/gltf_loader.h"

#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cctype>
#include <cstring>

#include <tiny_gltf.h>

#include "shared/fixed_point.h"
#include "shared/formats/text_fields.h"

namespace foothold {

namespace {

constexpr int kModeTriangles = 4, kModeStrip = 5, kModeFan = 6;

// A 4x4 matrix, column-major as glTF writes it.
using Mat4 = std::array<double, 16>;
constexpr Mat4 kIdentity{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};

Mat4 multiply(const Mat4& a, const Mat4& b) {
  Mat4 r{};
  for (int c = 0; c < 4; ++c)
    for (int row = 0; row < 4; ++row) {
      double sum = 0;
      for (int k = 0; k < 4; ++k) sum += a[size_t(k * 4 + row)] * b[size_t(c * 4 + k)];
      r[size_t(c * 4 + row)] = sum;
    }
  return r;
}

Vec3 transform_point(const Mat4& m, const Vec3& p) {
  return {m[0] * p.x + m[4] * p.y + m[8] * p.z + m[12], m[1] * p.x + m[5] * p.y + m[9] * p.z + m[13],
          m[2] * p.x + m[6] * p.y + m[10] * p.z + m[14]};
}

// The determinant of the upper 3x3: negative when the transform mirrors (and so flips winding).
double determinant3(const Mat4& m) {
  return m[0] * (m[5] * m[10] - m[9] * m[6]) - m[4] * (m[1] * m[10] - m[9] * m[2]) + m[8] * (m[1] * m[6] - m[5] * m[2]);
}

// T * R * S, as glTF composes a node's TRS (rotation a unit quaternion x, y, z, w: no trigonometry).
Mat4 local_matrix(const tinygltf::Node& n) {
  if (n.matrix.size() == 16) {
    Mat4 m{};
    for (size_t i = 0; i < 16; ++i) m[i] = n.matrix[i];
    return m;
  }
  const double tx = n.translation.size() == 3 ? n.translation[0] : 0, ty = n.translation.size() == 3 ? n.translation[1] : 0,
               tz = n.translation.size() == 3 ? n.translation[2] : 0;
  const double qx = n.rotation.size() == 4 ? n.rotation[0] : 0, qy = n.rotation.size() == 4 ? n.rotation[1] : 0,
               qz = n.rotation.size() == 4 ? n.rotation[2] : 0, qw = n.rotation.size() == 4 ? n.rotation[3] : 1;
  const double sx = n.scale.size() == 3 ? n.scale[0] : 1, sy = n.scale.size() == 3 ? n.scale[1] : 1,
               sz = n.scale.size() == 3 ? n.scale[2] : 1;
  // Rotation matrix columns, each scaled by its axis's scale.
  const double r00 = 1 - 2 * (qy * qy + qz * qz), r10 = 2 * (qx * qy + qz * qw), r20 = 2 * (qx * qz - qy * qw);
  const double r01 = 2 * (qx * qy - qz * qw), r11 = 1 - 2 * (qx * qx + qz * qz), r21 = 2 * (qy * qz + qx * qw);
  const double r02 = 2 * (qx * qz + qy * qw), r12 = 2 * (qy * qz - qx * qw), r22 = 1 - 2 * (qx * qx + qy * qy);
  return {r00 * sx, r10 * sx, r20 * sx, 0, r01 * sy, r11 * sy, r21 * sy, 0, r02 * sz, r12 * sz, r22 * sz, 0, tx, ty, tz, 1};
}

// extras {"foothold": {...}} of a node or material.
const tinygltf::Value* foothold_extras(const tinygltf::Value& extras, const char* key) {
  if (!extras.IsObject() || !extras.Has("foothold")) return nullptr;
  const tinygltf::Value& f = extras.Get("foothold");
  if (!f.IsObject() || !f.Has(key)) return nullptr;
  return &f.Get(key);
}

class Reader {
 public:
  Reader(const tinygltf::Model& model, std::string name, MeshLoad& out) : model_(model), name_(std::move(name)), out_(out) {}

  void run() {
    if (model_.scenes.empty()) return fail("the file has no scene");
    read_animations();
    if (!out_.error.empty()) return;
    const int scene = model_.defaultScene >= 0 ? model_.defaultScene : 0;
    if (scene >= int(model_.scenes.size())) return fail("scene " + std::to_string(scene) + " does not exist");
    std::vector<bool> on_path(model_.nodes.size(), false);
    for (int root : model_.scenes[size_t(scene)].nodes) {
      std::vector<Link> path;
      visit(root, kIdentity, SurfaceTag::kByNormal, on_path, path, -1);
      if (!out_.error.empty()) return;
    }
    if (skipped_modes_ > 0)
      out_.warnings.push_back(name_ + ": skipped " + std::to_string(skipped_modes_) +
                              " primitive(s) that are not triangles (points or lines)");
    if (out_.mesh.faces.empty()) fail("the scene has no triangle to collide with");
  }

 private:
  void fail(const std::string& what) {
    if (out_.error.empty()) out_.error = name_ + ": " + what;
  }

  // `parent` places the node in the axes of `target` (-1: the static mesh; else the innermost mover's
  // index, its own axes); `path` holds the rest pose and channels of every ancestor, root first (a
  // mover's chain).
  void visit(int index, const Mat4& parent, SurfaceTag inherited, std::vector<bool>& on_path, std::vector<Link>& path,
             int target) {
    if (index < 0 || index >= int(model_.nodes.size())) return fail("a scene or node refers to node " + std::to_string(index) + ", which does not exist");
    if (on_path[size_t(index)]) return fail("nodes[" + std::to_string(index) + "] is its own ancestor");
    const tinygltf::Node& node = model_.nodes[size_t(index)];
    const std::string where = "nodes[" + std::to_string(index) + "]";
    if (const auto* collide = foothold_extras(node.extras, "collide"); collide && collide->IsBool() && !collide->Get<bool>())
      return;  // decoration: neither it nor its children collide
    const tinygltf::Value* trigger = foothold_extras(node.extras, "trigger");
    if (trigger && !start_trigger(index, *trigger, target)) return;
    SurfaceTag tag = inherited;
    if (const auto* ground = foothold_extras(node.extras, "ground")) {
      if (!parse_ground(*ground, tag)) return fail(where + ".extras.foothold.ground must be \"always\" or \"never\"");
    }
    if (!node.matrix.empty() && node.matrix.size() != 16) return fail(where + ".matrix must have 16 numbers");
    Mat4 world = multiply(parent, local_matrix(node));
    // This node's link in a mover's chain: its rigid part (a mover moves rigidly, so a node above one
    // may not scale), and its channels.
    Link link;
    link.channels = channels_[size_t(index)];
    const bool animated = !link.channels.empty();
    if (animated && trigger_node_ >= 0)
      return fail(where + " is animated inside the trigger nodes[" + std::to_string(trigger_node_) +
                  "] (a trigger rides the mover it is under; nothing moves within it)");
    // A mover the game drives (shared/mover_clock.h) is marked on its animated node.
    bool driven = false;
    if (const auto* d = foothold_extras(node.extras, "driven")) {
      if (!d->IsBool()) return fail(where + ".extras.foothold.driven must be true or false");
      driven = d->Get<bool>();
      if (driven && !animated) return fail(where + ".extras.foothold.driven: only an animated node (a mover) is driven by the game");
    }
    const bool rigid = rigid_part(node, link.rest, animated);
    if (animated && !rigid) return fail(where + ": an animated node may not have a matrix");
    path.push_back(link);
    // An animated node's own scale stays in its mesh, but under it a child would be scaled too: for
    // its descendants it is rigid only without one.
    path_rigid_.push_back(rigid && (!animated || unit_scale(node)));
    if (animated) {
      for (std::size_t k = 0; k + 1 < path_rigid_.size(); ++k)
        if (!path_rigid_[k]) return fail(where + " is animated, but an ancestor of it scales or shears (a mover moves rigidly)");
      // A new mover: its own axes are this node's (its scale stays in its mesh), its chain the path.
      if (out_.mesh.movers.size() >= kMaxMovers) return fail("more than " + std::to_string(kMaxMovers) + " animated nodes");
      MoverMesh m;
      m.name = node.name.empty() ? where : node.name;
      m.chain = path;
      m.driven = driven;
      out_.mesh.movers.push_back(std::move(m));
      target = int(out_.mesh.movers.size() - 1);
      world = scale_matrix(node);
    }
    for (double v : world)
      if (!std::isfinite(v)) return fail(where + ": its transform is not finite");
    on_path[size_t(index)] = true;
    if (node.mesh >= 0) {
      if (node.mesh >= int(model_.meshes.size())) return fail(where + ".mesh refers to mesh " + std::to_string(node.mesh) + ", which does not exist");
      TriangleMesh& into = trigger_node_ >= 0 ? trigger_mesh_ : target < 0 ? out_.mesh : out_.mesh.movers[size_t(target)].mesh;
      add_mesh(node.mesh, world, tag, into);
      if (!out_.error.empty()) return;
    }
    for (int child : node.children) {
      visit(child, world, tag, on_path, path, target);
      if (!out_.error.empty()) return;
    }
    path.pop_back();
    path_rigid_.pop_back();
    on_path[size_t(index)] = false;
    if (trigger) end_trigger(where);
  }

  // Node `index` has extras.foothold.trigger = `value`: checks it and starts gathering its volume
  // (its mesh's and its descendants' triangles, which then collide with nothing), in world axes or,
  // under a mover (`target` >= 0), in the mover's. False with the error set when it cannot be one.
  bool start_trigger(int index, const tinygltf::Value& value, int target) {
    const std::string where = "nodes[" + std::to_string(index) + "]";
    if (!value.IsString() || !valid_trigger_name(value.Get<std::string>()))
      return fail(where + ".extras.foothold.trigger must be a string of 1-" + std::to_string(kMaxTriggerName) +
                  " characters of [A-Za-z0-9_.-]"),
             false;
    const std::string& name = value.Get<std::string>();
    // The box is the one shape: a file asking for another (a convex hull) is told, not given a box.
    if (const auto* shape = foothold_extras(model_.nodes[size_t(index)].extras, "shape");
        shape && !(shape->IsString() && shape->Get<std::string>() == "box"))
      return fail(where + ".extras.foothold.shape must be \"box\" (a trigger's volume is its meshes' box)"), false;
    if (trigger_node_ >= 0)
      return fail(where + " is a trigger inside the trigger nodes[" + std::to_string(trigger_node_) + "]"), false;
    // A mover's own node carries its solid mesh; a trigger riding it is a node under it.
    if (!channels_[size_t(index)].empty())
      return fail(where + " is an animated trigger: a trigger rides a mover as a node under the animated one"), false;
    for (std::size_t t = 0; t < out_.mesh.triggers.size(); ++t)
      if (out_.mesh.triggers[t].name == name)
        return fail(where + ".extras.foothold.trigger '" + name + "' is also " + trigger_nodes_[t] + "'s (names are unique)"), false;
    if (out_.mesh.triggers.size() >= kMaxTriggers) return fail("more than " + std::to_string(kMaxTriggers) + " triggers"), false;
    trigger_node_ = index;
    trigger_mesh_ = {};
    // Under a mover, visit() places the meshes in the mover's own axes: the box rides it.
    out_.mesh.triggers.push_back({name, {}, {}, uint16_t(target + 1)});
    trigger_nodes_.push_back(where);
    return true;
  }

  // The end of the trigger node's subtree: its box is the bounds of every vertex gathered.
  void end_trigger(const std::string& where) {
    trigger_node_ = -1;
    if (!out_.error.empty()) return;
    const std::vector<Vec3>& v = trigger_mesh_.vertices;
    if (trigger_mesh_.faces.empty()) return fail(where + " is a trigger without a triangle mesh (its box is its mesh's)");
    TriggerBox& box = out_.mesh.triggers.back();
    box.lo = box.hi = v[0];
    for (const Vec3& p : v) {
      box.lo = {std::min(box.lo.x, p.x), std::min(box.lo.y, p.y), std::min(box.lo.z, p.z)};
      box.hi = {std::max(box.hi.x, p.x), std::max(box.hi.y, p.y), std::max(box.hi.z, p.z)};
    }
  }

  // The node's translation and rotation (a matrix must be rigid: orthonormal, no mirror). When the
  // node is `animated`, a matrix is refused (glTF forbids animating one) and its scale may be
  // anything (it stays in its mover's mesh); otherwise its scale must be 1.
  bool rigid_part(const tinygltf::Node& n, Pose& rest, bool animated) {
    if (n.matrix.size() == 16) {
      if (animated) return false;
      const auto& m = n.matrix;
      const double c[3][3] = {{m[0], m[1], m[2]}, {m[4], m[5], m[6]}, {m[8], m[9], m[10]}};
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
          const double d = c[i][0] * c[j][0] + c[i][1] * c[j][1] + c[i][2] * c[j][2];
          if (!(std::fabs(d - (i == j ? 1.0 : 0.0)) <= 1e-6)) return false;
        }
      if (determinant3(Mat4{m[0], m[1], m[2], 0, m[4], m[5], m[6], 0, m[8], m[9], m[10], 0, 0, 0, 0, 1}) < 0) return false;
      rest.translation = {m[12], m[13], m[14]};
      rest.rotation = quat_from_columns(c);
      return true;
    }
    if (n.translation.size() == 3) rest.translation = {n.translation[0], n.translation[1], n.translation[2]};
    if (n.rotation.size() == 4) rest.rotation = normalized({n.rotation[0], n.rotation[1], n.rotation[2], n.rotation[3]});
    if (!animated && n.scale.size() == 3)
      for (double v : n.scale)
        if (!(std::fabs(v - 1) <= 1e-9)) return false;
    return true;
  }

  // A rotation matrix (columns) to a unit quaternion (Shepperd's method: sqrt only).
  static Quat quat_from_columns(const double c[3][3]) {
    const double m00 = c[0][0], m11 = c[1][1], m22 = c[2][2];
    const double m01 = c[1][0], m10 = c[0][1], m02 = c[2][0], m20 = c[0][2], m12 = c[2][1], m21 = c[1][2];
    const double trace = m00 + m11 + m22;
    Quat q;
    if (trace > 0) {
      const double r = std::sqrt(1 + trace) * 2;
      q = {(m21 - m12) / r, (m02 - m20) / r, (m10 - m01) / r, r / 4};
    } else if (m00 > m11 && m00 > m22) {
      const double r = std::sqrt(1 + m00 - m11 - m22) * 2;
      q = {r / 4, (m01 + m10) / r, (m02 + m20) / r, (m21 - m12) / r};
    } else if (m11 > m22) {
      const double r = std::sqrt(1 + m11 - m00 - m22) * 2;
      q = {(m01 + m10) / r, r / 4, (m12 + m21) / r, (m02 - m20) / r};
    } else {
      const double r = std::sqrt(1 + m22 - m00 - m11) * 2;
      q = {(m02 + m20) / r, (m12 + m21) / r, r / 4, (m10 - m01) / r};
    }
    return normalized(q);
  }

  static bool unit_scale(const tinygltf::Node& n) {
    if (n.scale.size() != 3) return true;
    for (double v : n.scale)
      if (!(std::fabs(v - 1) <= 1e-9)) return false;
    return true;
  }

  // Only the node's scale: an animated node's own axes are its translation and rotation.
  static Mat4 scale_matrix(const tinygltf::Node& n) {
    Mat4 m = kIdentity;
    if (n.scale.size() == 3) m[0] = n.scale[0], m[5] = n.scale[1], m[10] = n.scale[2];
    return m;
  }

  // Every animation's translation and rotation channels, by target node. Each loops over its
  // animation's longest channel. Scale channels would deform a mover: refused. Morph weights do not
  // move geometry Foothold collides with: ignored.
  void read_animations() {
    channels_.assign(model_.nodes.size(), {});
    for (size_t a = 0; a < model_.animations.size(); ++a) {
      const tinygltf::Animation& anim = model_.animations[a];
      const std::string where = "animations[" + std::to_string(a) + "]";
      std::vector<std::pair<int, Channel>> read;
      double longest = 0;
      for (size_t k = 0; k < anim.channels.size(); ++k) {
        const tinygltf::AnimationChannel& ch = anim.channels[k];
        const std::string at = where + ".channels[" + std::to_string(k) + "]";
        if (ch.target_path == "weights") continue;
        if (ch.target_path == "scale") return fail(at + ": scale is animated, but a mover moves rigidly");
        if (ch.target_path != "translation" && ch.target_path != "rotation")
          return fail(at + ".target.path '" + ch.target_path + "' is not translation, rotation, scale or weights");
        if (ch.target_node < 0 || ch.target_node >= int(model_.nodes.size()))
          return fail(at + ".target.node does not exist");
        if (ch.sampler < 0 || ch.sampler >= int(anim.samplers.size())) return fail(at + ".sampler does not exist");
        const tinygltf::AnimationSampler& sm = anim.samplers[size_t(ch.sampler)];
        Channel c;
        c.path = ch.target_path == "rotation" ? Channel::Path::kRotation : Channel::Path::kTranslation;
        if (sm.interpolation == "LINEAR" || sm.interpolation.empty()) c.interpolation = Channel::Interpolation::kLinear;
        else if (sm.interpolation == "STEP") c.interpolation = Channel::Interpolation::kStep;
        else if (sm.interpolation == "CUBICSPLINE") c.interpolation = Channel::Interpolation::kCubicSpline;
        else return fail(where + ".samplers[" + std::to_string(ch.sampler) + "].interpolation '" + sm.interpolation + "' is unknown");
        const std::string sw = where + ".samplers[" + std::to_string(ch.sampler) + "]";
        if (!read_floats(sm.input, TINYGLTF_TYPE_SCALAR, 1, c.times, sw + ".input")) return;
        const int n = c.path == Channel::Path::kRotation ? 4 : 3;
        if (!read_floats(sm.output, n == 4 ? TINYGLTF_TYPE_VEC4 : TINYGLTF_TYPE_VEC3, n, c.values, sw + ".output")) return;
        if (c.times.empty()) return fail(sw + ".input has no keyframe");
        if (!c.times.empty()) longest = std::max(longest, c.times.back());
        read.push_back({ch.target_node, std::move(c)});
      }
      for (auto& [node, c] : read) {
        c.period = longest;
        if (c.path == Channel::Path::kRotation) {
          // Unit quaternions, as glTF requires (a spline's tangents are left alone).
          const std::size_t per_key = c.interpolation == Channel::Interpolation::kCubicSpline ? 12 : 4;
          const std::size_t at = c.interpolation == Channel::Interpolation::kCubicSpline ? 4 : 0;
          for (std::size_t k = 0; k + per_key <= c.values.size(); k += per_key) {
            double* v = &c.values[k + at];
            const Quat q = normalized({v[0], v[1], v[2], v[3]});
            v[0] = q.x, v[1] = q.y, v[2] = q.z, v[3] = q.w;
          }
        }
        if (std::string why = validate_chain({Link{{}, {c}}}); !why.empty())
          return fail(where + " (node " + std::to_string(node) + "): " + why.substr(why.find(':') + 2));
        channels_[size_t(node)].push_back(std::move(c));
      }
    }
  }

  // A float accessor of `type` (`n` components) into `out`; false (with the error set) otherwise.
  bool read_floats(int index, int type, int n, std::vector<double>& out, const std::string& what) {
    if (index < 0 || index >= int(model_.accessors.size())) return fail(what + " refers to an accessor that does not exist"), false;
    if (model_.accessors[size_t(index)].componentType != TINYGLTF_COMPONENT_TYPE_FLOAT)
      return fail(what + ": animation data must be float"), false;
    const unsigned char* p = nullptr;
    std::size_t stride = 0, count = 0;
    if (!locate(index, type, 4, p, stride, count)) return false;
    out.resize(count * std::size_t(n));
    for (std::size_t i = 0; i < count; ++i) {
      for (int k = 0; k < n; ++k) {
        float f;
        std::memcpy(&f, p + i * stride + std::size_t(k) * 4, sizeof f);
        if (!std::isfinite(f)) return fail(what + ": value " + std::to_string(i) + " is not finite"), false;
        out[i * std::size_t(n) + std::size_t(k)] = double(f);
      }
    }
    return true;
  }

  bool parse_ground(const tinygltf::Value& v, SurfaceTag& tag) {
    if (!v.IsString()) return false;
    const std::string& s = v.Get<std::string>();
    if (s == "always") tag = SurfaceTag::kAlwaysGround;
    else if (s == "never") tag = SurfaceTag::kNeverGround;
    else return false;
    return true;
  }

  void add_mesh(int mesh_index, const Mat4& m, SurfaceTag node_tag, TriangleMesh& target) {
    const tinygltf::Mesh& mesh = model_.meshes[size_t(mesh_index)];
    const bool mirrored = determinant3(m) < 0;
    for (size_t p = 0; p < mesh.primitives.size(); ++p) {
      const tinygltf::Primitive& prim = mesh.primitives[p];
      const std::string where = "meshes[" + std::to_string(mesh_index) + "].primitives[" + std::to_string(p) + "]";
      if (prim.mode != kModeTriangles && prim.mode != kModeStrip && prim.mode != kModeFan) {
        ++skipped_modes_;
        continue;
      }
      SurfaceTag tag = node_tag;
      if (prim.material >= 0) {
        if (prim.material >= int(model_.materials.size())) return fail(where + ".material refers to a material that does not exist");
        const tinygltf::Material& mat = model_.materials[size_t(prim.material)];
        if (mat.name == "always_ground") tag = SurfaceTag::kAlwaysGround;
        if (mat.name == "never_ground") tag = SurfaceTag::kNeverGround;
        if (const auto* ground = foothold_extras(mat.extras, "ground")) {
          if (!parse_ground(*ground, tag))
            return fail("materials[" + std::to_string(prim.material) + "].extras.foothold.ground must be \"always\" or \"never\"");
        }
      }
      const auto pos = prim.attributes.find("POSITION");
      if (pos == prim.attributes.end()) return fail(where + " has no POSITION attribute");
      std::vector<Vec3> points;
      if (!read_positions(pos->second, points)) return;
      const uint32_t base = uint32_t(target.vertices.size());
      for (const Vec3& q : points) {
        const Vec3 w = transform_point(m, q);
        if (!(std::isfinite(w.x) && std::isfinite(w.y) && std::isfinite(w.z)))
          return fail(where + ": a transformed position is not finite");
        target.vertices.push_back(w);
      }
      std::vector<uint32_t> idx;
      if (prim.indices >= 0) {
        if (!read_indices(prim.indices, points.size(), idx)) return;
      } else {
        idx.resize(points.size());
        for (size_t i = 0; i < idx.size(); ++i) idx[i] = uint32_t(i);
      }
      auto emit = [&](uint32_t a, uint32_t b, uint32_t c) {
        if (mirrored) std::swap(b, c);
        target.faces.push_back({{base + a, base + b, base + c}, tag});
      };
      if (prim.mode == kModeTriangles) {
        for (size_t i = 0; i + 2 < idx.size(); i += 3) emit(idx[i], idx[i + 1], idx[i + 2]);
      } else if (prim.mode == kModeStrip) {
        // glTF: triangle i is {i, i + 1 + i % 2, i + 2 - i % 2}, so every triangle keeps the winding.
        for (size_t i = 0; i + 2 < idx.size(); ++i) emit(idx[i], idx[i + 1 + i % 2], idx[i + 2 - i % 2]);
      } else {
        for (size_t i = 1; i + 1 < idx.size(); ++i) emit(idx[i], idx[i + 1], idx[0]);
      }
    }
  }

  // The bytes of accessor `index`: its element count, the start and the stride. False (with the
  // error set) when anything lies outside its buffer.
  bool locate(int index, int want_type, int component_size, const unsigned char*& start, std::size_t& stride,
              std::size_t& count) {
    const std::string where = "accessors[" + std::to_string(index) + "]";
    if (index < 0 || index >= int(model_.accessors.size())) return fail(where + " does not exist"), false;
    const tinygltf::Accessor& acc = model_.accessors[size_t(index)];
    if (acc.type != want_type) return fail(where + " has the wrong type for its use"), false;
    if (acc.sparse.isSparse) return fail(where + " is sparse (not supported)"), false;
    count = acc.count;
    if (acc.bufferView < 0) return fail(where + " has no bufferView"), false;
    if (acc.bufferView >= int(model_.bufferViews.size())) return fail(where + ".bufferView does not exist"), false;
    const tinygltf::BufferView& view = model_.bufferViews[size_t(acc.bufferView)];
    const std::string vwhere = "bufferViews[" + std::to_string(acc.bufferView) + "]";
    if (view.buffer < 0 || view.buffer >= int(model_.buffers.size())) return fail(vwhere + ".buffer does not exist"), false;
    const std::vector<unsigned char>& data = model_.buffers[size_t(view.buffer)].data;
    const std::size_t elem =
        std::size_t(component_size) * (want_type == TINYGLTF_TYPE_VEC4 ? 4 : want_type == TINYGLTF_TYPE_VEC3 ? 3 : 1);
    stride = view.byteStride ? view.byteStride : elem;
    if (stride < elem) return fail(vwhere + ".byteStride is smaller than an element"), false;
    if (view.byteOffset > data.size() || view.byteLength > data.size() - view.byteOffset)
      return fail(vwhere + " lies outside buffers[" + std::to_string(view.buffer) + "] (a missing or short buffer)"), false;
    if (count == 0) {
      start = data.data();
      return true;
    }
    // Last element's end within the view, computed without overflow.
    const std::size_t off = acc.byteOffset;
    if (off > view.byteLength || (count - 1) > (view.byteLength - off) / stride ||
        (count - 1) * stride + elem > view.byteLength - off)
      return fail(where + " reaches beyond " + vwhere + " (" + std::to_string(count) + " elements)"), false;
    start = data.data() + view.byteOffset + off;
    return true;
  }

  bool read_positions(int index, std::vector<Vec3>& out) {
    const std::string where = "accessors[" + std::to_string(index) + "]";
    if (index >= 0 && index < int(model_.accessors.size()) &&
        model_.accessors[size_t(index)].componentType != TINYGLTF_COMPONENT_TYPE_FLOAT)
      return fail(where + ": POSITION must be float (quantized positions are not supported)"), false;
    const unsigned char* p = nullptr;
    std::size_t stride = 0, count = 0;
    if (!locate(index, TINYGLTF_TYPE_VEC3, 4, p, stride, count)) return false;
    out.resize(count);
    for (std::size_t i = 0; i < count; ++i) {
      float f[3];
      std::memcpy(f, p + i * stride, sizeof f);  // little-endian, as glTF and every target is
      out[i] = {double(f[0]), double(f[1]), double(f[2])};
      if (!(std::isfinite(f[0]) && std::isfinite(f[1]) && std::isfinite(f[2])))
        return fail(where + ": position " + std::to_string(i) + " is not finite"), false;
    }
    return true;
  }

  bool read_indices(int index, std::size_t vertex_count, std::vector<uint32_t>& out) {
    const std::string where = "accessors[" + std::to_string(index) + "]";
    if (index < 0 || index >= int(model_.accessors.size())) return fail(where + " does not exist"), false;
    const int type = model_.accessors[size_t(index)].componentType;
    const int size = type == TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE    ? 1
                     : type == TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT ? 2
                     : type == TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT   ? 4
                                                                      : 0;
    if (size == 0) return fail(where + ": indices must be unsigned byte, short or int"), false;
    const unsigned char* p = nullptr;
    std::size_t stride = 0, count = 0;
    if (!locate(index, TINYGLTF_TYPE_SCALAR, size, p, stride, count)) return false;
    out.resize(count);
    for (std::size_t i = 0; i < count; ++i) {
      uint32_t v = 0;
      const unsigned char* e = p + i * stride;
      if (size == 1) v = e[0];
      if (size == 2) v = uint32_t(e[0] | (e[1] << 8));
      if (size == 4) v = uint32_t(e[0]) | (uint32_t(e[1]) << 8) | (uint32_t(e[2]) << 16) | (uint32_t(e[3]) << 24);
      if (v >= vertex_count)
        return fail(where + ": index " + std::to_string(i) + " refers to vertex " + std::to_string(v) + " of " +
                    std::to_string(vertex_count)),
               false;
      out[i] = v;
    }
    return true;
  }

  const tinygltf::Model& model_;
  std::string name_;
  MeshLoad& out_;
  std::size_t skipped_modes_ = 0;
  std::vector<std::vector<Channel>> channels_;  // by node index
  std::vector<bool> path_rigid_;                // along visit()'s path: whether each node is rigid
  int trigger_node_ = -1;                       // the trigger node whose subtree visit() is in (-1: none)
  TriangleMesh trigger_mesh_;                   // its triangles so far, in world axes
  std::vector<std::string> trigger_nodes_;      // each trigger's node, "nodes[N]", for messages
};

// Images are never needed: collision only.
bool skip_image(tinygltf::Image*, const int, std::string*, std::string*, int, int, const unsigned char*, int, void*) {
  return true;
}

// tinygltf's warnings are about images, which are never decoded: nothing in them concerns collision.
MeshLoad finish(bool loaded, const tinygltf::Model& model, const std::string& err, const std::string& name) {
  MeshLoad out;
  if (!loaded) {
    std::string why = err.empty() ? "not a valid glTF file" : err;
    while (!why.empty() && (why.back() == '\n' || why.back() == ' ')) why.pop_back();
    out.error = name + ": " + why;
    return out;
  }
  Reader(model, name, out).run();
  if (!out.error.empty()) out.mesh = {};
  return out;
}

}  // namespace

bool is_gltf_path(const std::string& path) {
  auto ends = [&](const char* ext) {
    const std::size_t n = std::strlen(ext);
    if (path.size() < n) return false;
    for (std::size_t i = 0; i < n; ++i)
      if (std::tolower(static_cast<unsigned char>(path[path.size() - n + i])) != ext[i]) return false;
    return true;
  };
  return ends(".gltf") || ends(".glb");
}

namespace {

uint32_t glb_u32(const uint8_t* p) { return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24; }

// The GLB container checked against the glTF 2.0 spec before tinygltf sees it: Debian's tinygltf
// (2.7.0) reads past the end of a BIN chunk that follows a JSON chunk whose length is not a multiple
// of 4 (found by fuzz_gltf). "" or what is wrong.
std::string glb_problem(const uint8_t* data, std::size_t size) {
  if (size < 20) return "a GLB file of " + std::to_string(size) + " bytes is shorter than its header and first chunk header";
  if (std::memcmp(data, "glTF", 4) != 0) return "not a GLB file (no glTF magic)";
  if (glb_u32(data + 8) != size)
    return "the GLB header says " + std::to_string(glb_u32(data + 8)) + " bytes, the file has " + std::to_string(size);
  std::size_t at = 12;
  for (int chunk = 0; at < size; ++chunk) {
    if (size - at < 8) return "GLB chunk " + std::to_string(chunk) + " is cut short in its header";
    const std::size_t length = glb_u32(data + at);
    if (length % 4 != 0) return "GLB chunk " + std::to_string(chunk) + " is " + std::to_string(length) + " bytes, not a multiple of 4";
    if (length > size - at - 8) return "GLB chunk " + std::to_string(chunk) + " runs past the end of the file";
    at += 8 + length;
  }
  return "";
}

// A glTF's buffers may name other files: each is read as the glTF itself is (a regular file under the
// size cap), so a uri such as /dev/zero or a FIFO is refused, not read without end or waited on.
bool read_buffer_file(std::vector<unsigned char>* out, std::string* err, const std::string& path, void*) {
  const FileRead read = read_whole_file(path);
  if (!read.bytes) {
    if (err) *err += path + ": cannot open buffer file: " + read.error + "\n";
    return false;
  }
  out->assign(read.bytes->begin(), read.bytes->end());
  return true;
}

// Whether a buffer's file is there, without opening it: tinygltf's own check opens it, and opening a
// FIFO waits for a writer. read_buffer_file() judges what it then opens.
bool buffer_file_exists(const std::string& path, void*) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

}  // namespace

MeshLoad load_gltf_memory(const uint8_t* data, std::size_t size, bool binary, const std::string& name,
                          const std::string& base_dir) {
  if (binary) {
    if (std::string why = glb_problem(data, size); !why.empty()) {
      MeshLoad out;
      out.error = name + ": " + why;
      return out;
    }
  }
  tinygltf::TinyGLTF loader;
  loader.SetImageLoader(skip_image, nullptr);
  loader.SetFsCallbacks({&buffer_file_exists, &tinygltf::ExpandFilePath, &read_buffer_file, &tinygltf::WriteWholeFile, nullptr});
  tinygltf::Model model;
  std::string err, warn;
  bool ok = false;
  try {
    ok = binary ? loader.LoadBinaryFromMemory(&model, &err, &warn, data, unsigned(size), base_dir)
                : loader.LoadASCIIFromString(&model, &err, &warn, reinterpret_cast<const char*>(data), unsigned(size), base_dir);
  } catch (const std::exception& e) {
    err = e.what();
    ok = false;
  }
  return finish(ok, model, err, name);
}

MeshLoad load_gltf_file(const std::string& path) {
  const auto read = read_whole_file(path);
  if (!read.bytes) {
    MeshLoad out;
    out.error = path + ": cannot open glTF file: " + read.error;
    return out;
  }
  const std::string& data = *read.bytes;
  if (data.size() > 0xffffffffu) {
    MeshLoad out;
    out.error = path + ": larger than 4 GiB";
    return out;
  }
#if defined(_WIN32)
  const std::size_t slash = path.find_last_of("/\\");  // C:\levels\a.gltf as well as C:/levels/a.gltf
#else
  const std::size_t slash = path.find_last_of('/');
#endif
  const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash);
  const bool binary = data.size() >= 4 && std::memcmp(data.data(), "glTF", 4) == 0;
  return load_gltf_memory(reinterpret_cast<const uint8_t*>(data.data()), data.size(), binary, path, dir);
}

std::string write_glb(const TriangleMesh& mesh, const std::string& path) {
  tinygltf::Model model;
  model.asset.version = "2.0";
  model.asset.generator = "foothold-replay world --export";
  static const char* const kNames[3] = {"by_normal", "always_ground", "never_ground"};
  for (const char* n : kNames) {
    tinygltf::Material m;
    m.name = n;
    model.materials.push_back(m);
  }
  tinygltf::Buffer buffer;
  tinygltf::Mesh gmesh;
  // Positions once (float32, glTF's position type: coordinates not exact in float32 are rounded).
  const std::size_t vbytes = mesh.vertices.size() * 12;
  buffer.data.resize(vbytes);
  float lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
  for (std::size_t i = 0; i < mesh.vertices.size(); ++i) {
    const float f[3] = {float(mesh.vertices[i].x), float(mesh.vertices[i].y), float(mesh.vertices[i].z)};
    std::memcpy(buffer.data.data() + i * 12, f, 12);
    for (int k = 0; k < 3; ++k) {
      if (i == 0 || f[k] < lo[k]) lo[k] = f[k];
      if (i == 0 || f[k] > hi[k]) hi[k] = f[k];
    }
  }
  tinygltf::BufferView pview;
  pview.buffer = 0;
  pview.byteOffset = 0;
  pview.byteLength = vbytes;
  pview.target = TINYGLTF_TARGET_ARRAY_BUFFER;
  model.bufferViews.push_back(pview);
  tinygltf::Accessor pacc;
  pacc.bufferView = 0;
  pacc.componentType = TINYGLTF_COMPONENT_TYPE_FLOAT;
  pacc.count = mesh.vertices.size();
  pacc.type = TINYGLTF_TYPE_VEC3;
  pacc.minValues = {lo[0], lo[1], lo[2]};
  pacc.maxValues = {hi[0], hi[1], hi[2]};
  model.accessors.push_back(pacc);
  // One primitive of indices per tag.
  for (int tag = 0; tag < 3; ++tag) {
    std::vector<uint32_t> idx;
    for (const auto& f : mesh.faces)
      if (int(f.tag) == tag) idx.insert(idx.end(), f.v.begin(), f.v.end());
    if (idx.empty()) continue;
    tinygltf::BufferView view;
    view.buffer = 0;
    view.byteOffset = buffer.data.size();
    view.byteLength = idx.size() * 4;
    view.target = TINYGLTF_TARGET_ELEMENT_ARRAY_BUFFER;
    buffer.data.resize(buffer.data.size() + idx.size() * 4);
    std::memcpy(buffer.data.data() + view.byteOffset, idx.data(), idx.size() * 4);
    model.bufferViews.push_back(view);
    tinygltf::Accessor acc;
    acc.bufferView = int(model.bufferViews.size() - 1);
    acc.componentType = TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT;
    acc.count = idx.size();
    acc.type = TINYGLTF_TYPE_SCALAR;
    model.accessors.push_back(acc);
    tinygltf::Primitive prim;
    prim.attributes["POSITION"] = 0;
    prim.indices = int(model.accessors.size() - 1);
    prim.material = tag;
    prim.mode = kModeTriangles;
    gmesh.primitives.push_back(prim);
  }
  model.buffers.push_back(buffer);
  model.meshes.push_back(gmesh);
  tinygltf::Node node;
  node.mesh = 0;
  node.name = "world";
  model.nodes.push_back(node);
  tinygltf::Scene scene;
  scene.nodes = {0};
  model.scenes.push_back(scene);
  model.defaultScene = 0;
  tinygltf::TinyGLTF writer;
  if (!writer.WriteGltfSceneToFile(&model, path, false, true, false, true)) return path + ": cannot write the glTF file";
  return "";
}

}  // namespace foothold
