#include "shared/world.h"

#include <algorithm>
#include <cmath>

#include <btBulletCollisionCommon.h>

#include "shared/arena.h"
#include "shared/fixed_point.h"
#include "shared/hash.h"
#include "shared/tolerances.h"

namespace foothold {

struct World::Bullet {
  std::vector<int> indices;
  std::vector<btScalar> vertices;
  std::unique_ptr<btTriangleIndexVertexArray> mesh;
  std::unique_ptr<btBvhTriangleMeshShape> shape;
  std::unique_ptr<btCollisionObject> object;
  std::unique_ptr<btDefaultCollisionConfiguration> config;
  std::unique_ptr<btCollisionDispatcher> dispatcher;
  std::unique_ptr<btDbvtBroadphase> broadphase;
  std::unique_ptr<btCollisionWorld> world;
};

World::World() = default;
World::~World() {
  if (bullet_ && bullet_->world && bullet_->object) bullet_->world->removeCollisionObject(bullet_->object.get());
}

namespace {

// The world's own copy of a mesh's triangles, with normals and bounds; degenerate ones are counted
// and dropped. Returns an error, or "".
std::string make_triangles(const TriangleMesh& mesh, const std::string& name, std::vector<WorldTriangle>& out,
                           std::size_t& degenerate) {
  for (const auto& v : mesh.vertices) {
    if (!(std::fabs(v.x) <= kWorldLimit && std::fabs(v.y) <= kWorldLimit && std::fabs(v.z) <= kWorldLimit))
      return name + ": a vertex lies outside the fixed-point range of +-" + std::to_string(long(kWorldLimit)) + " m";
  }
  out.reserve(mesh.faces.size());
  for (const auto& f : mesh.faces) {
    for (uint32_t i : f.v) {
      if (i >= mesh.vertices.size())
        return name + ": a face refers to vertex " + std::to_string(i) + " of " + std::to_string(mesh.vertices.size());
    }
    WorldTriangle t = make_world_triangle(mesh.vertices[f.v[0]], mesh.vertices[f.v[1]], mesh.vertices[f.v[2]], f.tag);
    if (!(length_sq(t.tri.normal) > 0)) {
      ++degenerate;
      continue;
    }
    out.push_back(t);
  }
  return "";
}

void hash_triangles(Hasher& h, const std::vector<WorldTriangle>& triangles) {
  h.add_u64(triangles.size());
  for (const auto& t : triangles) {
    for (const Vec3* p : {&t.tri.a, &t.tri.b, &t.tri.c}) {
      h.add_double(p->x);
      h.add_double(p->y);
      h.add_double(p->z);
    }
    h.add_u8(uint8_t(t.tag));
  }
}

void hash_vec(Hasher& h, const Vec3& v) {
  h.add_double(v.x);
  h.add_double(v.y);
  h.add_double(v.z);
}

void hash_chain(Hasher& h, const std::vector<Link>& chain) {
  h.add_u64(chain.size());
  for (const Link& l : chain) {
    hash_vec(h, l.rest.translation);
    h.add_double(l.rest.rotation.x);
    h.add_double(l.rest.rotation.y);
    h.add_double(l.rest.rotation.z);
    h.add_double(l.rest.rotation.w);
    h.add_u64(l.channels.size());
    for (const Channel& c : l.channels) {
      h.add_u8(uint8_t(c.path));
      h.add_u8(uint8_t(c.interpolation));
      h.add_double(c.period);
      h.add_u64(c.times.size());
      for (double t : c.times) h.add_double(t);
      h.add_u64(c.values.size());
      for (double v : c.values) h.add_double(v);
    }
  }
}

bool in_world(const Vec3& v) {
  return std::fabs(v.x) <= kWorldLimit && std::fabs(v.y) <= kWorldLimit && std::fabs(v.z) <= kWorldLimit;  // NaN: false
}

// What is wrong with a mesh's triggers, or "".
std::string trigger_problem(const std::vector<TriggerBox>& triggers, std::size_t movers, const std::string& name) {
  if (triggers.size() > kMaxTriggers)
    return name + ": " + std::to_string(triggers.size()) + " triggers; at most " + std::to_string(kMaxTriggers);
  for (std::size_t i = 0; i < triggers.size(); ++i) {
    const TriggerBox& t = triggers[i];
    const std::string where = name + ": trigger " + std::to_string(i);
    if (!valid_trigger_name(t.name))
      return where + ": its name is not 1-" + std::to_string(kMaxTriggerName) + " characters of [A-Za-z0-9_.-]";
    for (std::size_t j = 0; j < i; ++j)
      if (triggers[j].name == t.name) return where + ": the name '" + t.name + "' is trigger " + std::to_string(j) + "'s too";
    if (!in_world(t.lo) || !in_world(t.hi))
      return where + " '" + t.name + "': its box lies outside the fixed-point range of +-" + std::to_string(long(kWorldLimit)) + " m";
    if (!(t.lo.x <= t.hi.x && t.lo.y <= t.hi.y && t.lo.z <= t.hi.z)) return where + " '" + t.name + "': its box's lo exceeds its hi";
    if (t.mover > movers)
      return where + " '" + t.name + "': it rides mover " + std::to_string(t.mover - 1) + " of " + std::to_string(movers);
  }
  return "";
}

void hash_triggers(Hasher& h, const std::vector<TriggerBox>& triggers) {
  h.add_string("triggers");
  h.add_u64(triggers.size());
  for (const TriggerBox& t : triggers) {
    h.add_string(t.name);
    hash_vec(h, t.lo);
    hash_vec(h, t.hi);
    h.add_u64(t.mover);
  }
}

}  // namespace

int World::trigger_index(std::string_view name) const {
  for (std::size_t i = 0; i < triggers_.size(); ++i)
    if (triggers_[i].name == name) return int(i);
  return -1;
}

WorldTriangle make_world_triangle(const Vec3& a, const Vec3& b, const Vec3& c, SurfaceTag tag) {
  WorldTriangle t;
  t.tri.a = a;
  t.tri.b = b;
  t.tri.c = c;
  const Vec3 n = cross(b - a, c - a);
  const double len = length(n);
  if (len >= tolerance::kDegenerateTwiceArea) t.tri.normal = n / len;  // else (also NaN) zero: degenerate
  t.lo = {std::min({a.x, b.x, c.x}), std::min({a.y, b.y, c.y}), std::min({a.z, b.z, c.z})};
  t.hi = {std::max({a.x, b.x, c.x}), std::max({a.y, b.y, c.y}), std::max({a.z, b.z, c.z})};
  t.tag = tag;
  return t;
}

World::Build World::create(const TriangleMesh& mesh, std::string name) {
  Build out;
  std::unique_ptr<World> w(new World());
  w->name_ = std::move(name);
  out.error = make_triangles(mesh, w->name_, w->triangles_, out.degenerate_skipped);
  if (!out.error.empty()) return out;
  if (w->triangles_.empty()) {
    out.error = w->name_ + ": the world has no usable triangle";
    return out;
  }
  for (const MoverMesh& m : mesh.movers) {
    const std::string where = w->name_ + ": mover '" + m.name + "'";
    Mover mover;
    mover.name = m.name;
    mover.chain = m.chain;
    mover.driven = m.driven;
    if (std::string why = validate_chain(m.chain); !why.empty()) {
      out.error = where + ": " + why;
      return out;
    }
    out.error = make_triangles(m.mesh, where, mover.local, out.degenerate_skipped);
    if (!out.error.empty()) return out;
    if (mover.local.empty()) {
      out.error = where + " has no usable triangle";
      return out;
    }
    w->movers_.push_back(std::move(mover));
  }
  if (w->movers_.size() > kMaxMovers) {
    out.error = w->name_ + ": " + std::to_string(w->movers_.size()) + " movers; at most " + std::to_string(kMaxMovers);
    return out;
  }
  out.error = trigger_problem(mesh.triggers, w->movers_.size(), w->name_);
  if (!out.error.empty()) return out;
  w->triggers_ = mesh.triggers;

  Hasher h;
  h.add_string("foothold.world.v1");
  hash_triangles(h, w->triangles_);
  // A world without movers hashes as it did before movers existed.
  if (!w->movers_.empty()) {
    h.add_string("movers");
    h.add_u64(w->movers_.size());
    for (const Mover& m : w->movers_) {
      hash_chain(h, m.chain);
      hash_triangles(h, m.local);
      // A driven mover moves otherwise; a world without one hashes as before they existed.
      if (m.driven) h.add_string("driven");
    }
  }
  // And one without triggers as it did before triggers existed (recordings compare the hash).
  if (!w->triggers_.empty()) hash_triggers(h, w->triggers_);
  Aabb b{w->triangles_[0].lo, w->triangles_[0].hi};
  for (const auto& t : w->triangles_) {
    b.lo = {std::min(b.lo.x, t.lo.x), std::min(b.lo.y, t.lo.y), std::min(b.lo.z, t.lo.z)};
    b.hi = {std::max(b.hi.x, t.hi.x), std::max(b.hi.y, t.hi.y), std::max(b.hi.z, t.hi.z)};
  }
  w->hash_ = h.value();
  w->bounds_ = b;

  // Bullet gets its own flat copy (its triangle index i is our triangle i).
  auto bt = std::make_unique<Bullet>();
  bt->vertices.reserve(w->triangles_.size() * 9);
  bt->indices.reserve(w->triangles_.size() * 3);
  for (const auto& t : w->triangles_) {
    for (const Vec3* p : {&t.tri.a, &t.tri.b, &t.tri.c}) {
      bt->indices.push_back(int(bt->vertices.size() / 3));
      bt->vertices.push_back(p->x);
      bt->vertices.push_back(p->y);
      bt->vertices.push_back(p->z);
    }
  }
  bt->mesh = std::make_unique<btTriangleIndexVertexArray>(int(w->triangles_.size()), bt->indices.data(), int(3 * sizeof(int)),
                                                          int(bt->vertices.size() / 3), bt->vertices.data(),
                                                          int(3 * sizeof(btScalar)));
  bt->shape = std::make_unique<btBvhTriangleMeshShape>(bt->mesh.get(), /*useQuantizedAabbCompression=*/true);
  bt->object = std::make_unique<btCollisionObject>();
  bt->object->setCollisionShape(bt->shape.get());
  bt->config = std::make_unique<btDefaultCollisionConfiguration>();
  bt->dispatcher = std::make_unique<btCollisionDispatcher>(bt->config.get());
  bt->broadphase = std::make_unique<btDbvtBroadphase>();
  bt->world = std::make_unique<btCollisionWorld>(bt->dispatcher.get(), bt->broadphase.get(), bt->config.get());
  bt->world->addCollisionObject(bt->object.get());
  w->bullet_ = std::move(bt);
  out.world = std::move(w);
  return out;
}

namespace {
// Only the indices of the leaves whose quantised bounds overlap the box: asking the BVH directly
// (rather than through processAllTriangles) spares Bullet fetching three vertices per candidate from
// its own arrays, which we never read: our exact tests use our own copy of each triangle.
class CollectCallback final : public btNodeOverlapCallback {
 public:
  explicit CollectCallback(std::vector<uint32_t>& out) : out_(out) {}
  void processNode(int, int triangle_index) override { out_.push_back(uint32_t(triangle_index)); }

 private:
  std::vector<uint32_t>& out_;
};
}  // namespace

void World::collect(const Aabb& box, std::vector<uint32_t>& out) const {
  out.clear();
  CollectCallback cb(out);
  // The BVH's quantised node bounds are conservative; the exact bounds test below and the sort make
  // the answer independent of the tree's traversal order.
  bullet_->shape->getOptimizedBvh()->reportAabbOverlappingNodex(&cb, btVector3(box.lo.x, box.lo.y, box.lo.z),
                                                                 btVector3(box.hi.x, box.hi.y, box.hi.z));
  auto overlaps = [&](uint32_t i) {
    const auto& t = triangles_[i];
    return t.lo.x <= box.hi.x && t.hi.x >= box.lo.x && t.lo.y <= box.hi.y && t.hi.y >= box.lo.y && t.lo.z <= box.hi.z &&
           t.hi.z >= box.lo.z;
  };
  out.erase(std::remove_if(out.begin(), out.end(), [&](uint32_t i) { return !overlaps(i); }), out.end());
  std::sort(out.begin(), out.end());
}

void World::collect_along(const Vec3& from, const Vec3& to, std::vector<uint32_t>& out) const {
  out.clear();
  CollectCallback cb(out);
  bullet_->shape->getOptimizedBvh()->reportRayOverlappingNodex(&cb, btVector3(from.x, from.y, from.z),
                                                              btVector3(to.x, to.y, to.z));
  // Bullet's traversal order is its tree's: sorted, the answer is the same whatever the tree.
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
}

btCollisionWorld& World::collision_world() const { return *bullet_->world; }

}  // namespace foothold
