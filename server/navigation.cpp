// Navigation over nav/ (Recast/Detour): the native server's (server/navigation.h).

#include "server/navigation.h"

#include <utility>

#include "nav/nav_query.h"
#include "nav/navmesh.h"

namespace foothold::server {

struct Navigation::Mesh {
  explicit Mesh(std::unique_ptr<nav::NavMesh> m) : mesh(std::move(m)), query(*mesh) {}
  std::unique_ptr<nav::NavMesh> mesh;
  nav::NavQuery query;  // Detour's search state: the game's thread is the only one that asks
};

Navigation::Navigation() = default;
Navigation::~Navigation() = default;

bool Navigation::available() { return true; }

std::string Navigation::load(const std::string& path, const World& world, const MoveSettings& settings) {
  nav::NavMeshResult r = nav::NavMesh::load(path, world, settings);
  if (!r.mesh) return r.error;
  mesh_ = std::make_unique<Mesh>(std::move(r.mesh));
  return "";
}

std::string Navigation::bake(const World& world, const MoveSettings& settings, ParallelFor* threads,
                             const std::function<void(std::size_t, std::size_t)>& progress) {
  nav::BakeOptions options;
  options.threads = threads;
  options.progress = progress;
  nav::NavMeshResult r = nav::NavMesh::bake(world, settings, options);
  if (!r.mesh) return r.error;
  mesh_ = std::make_unique<Mesh>(std::move(r.mesh));
  return "";
}

follow::Path Navigation::path(const Vec3& from, const Vec3& to) {
  if (!mesh_) return {};
  return nav::to_follow_path(mesh_->query.find_path(from, to));
}

std::string Navigation::rebuild(const World& world, const Aabb& region, std::span<const WorldTriangle> extra,
                                std::size_t& tiles) {
  tiles = 0;
  if (!mesh_) return "";
  const nav::NavRebuild r = mesh_->mesh->rebuild(world, region, extra);
  tiles = r.tiles;
  return r.error;
}

std::optional<Vec3> Navigation::random_point(uint64_t seed) const {
  if (!mesh_ || mesh_->mesh->stats().polygons == 0) return std::nullopt;
  return mesh_->mesh->random_point(seed);
}

std::size_t Navigation::tiles() const { return mesh_ ? mesh_->mesh->stats().tiles : 0; }
std::size_t Navigation::polygons() const { return mesh_ ? mesh_->mesh->stats().polygons : 0; }

}  // namespace foothold::server
