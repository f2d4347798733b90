#pragma once
// The navigation mesh of the match's world (issue #67): what GameControl::path() finds paths on. It
// lives beside the world, in the GameHost the game reaches (ServerCore::navigation()); run_server
// loads it from --navmesh FILE (baked ahead of time by foothold-nav bake) or bakes it at load for a
// game that asks for paths (GameEntry::paths). Over nav/ (Recast/Detour) in native builds
// (navigation.cpp); a cross build of the server has none (navigation_none.cpp: available() is
// false, and a game's path() finds nothing).

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "follow/path.h"
#include "shared/parallel_for.h"
#include "shared/settings.h"
#include "shared/world.h"

namespace foothold::server {

/// A world's navigation mesh and the one query that searches it (the game's thread only).
class Navigation {
 public:
  Navigation();
  ~Navigation();
  Navigation(const Navigation&) = delete;
  Navigation& operator=(const Navigation&) = delete;

  /// Whether this build of the server can have a mesh (nav/ is built for native trees only).
  static bool available();

  /// Loads a mesh baked ahead of time for `world` and `settings`. Returns "" on success, else why,
  /// naming the file: unreadable, not a navmesh, damaged, or baked for another world or other
  /// settings (which hash differs, the file's and this match's).
  std::string load(const std::string& path, const World& world, const MoveSettings& settings);
  /// Bakes the mesh of `world`'s static triangles for the character of `settings` (valid), its tiles
  /// on `threads` (null: the calling thread), `progress` called after each batch of tiles with the
  /// tiles built and the total (may be empty). Returns "" on success, else why, naming the world.
  std::string bake(const World& world, const MoveSettings& settings, ParallelFor* threads,
                   const std::function<void(std::size_t done, std::size_t total)>& progress);

  /// A mesh is loaded or baked.
  bool ready() const { return mesh_ != nullptr; }
  /// Its tiles with polygons, and its polygons (0 without a mesh).
  std::size_t tiles() const;
  std::size_t polygons() const;

  /// The path from `from` to `to` (GameControl::path()); none without a mesh.
  follow::Path path(const Vec3& from, const Vec3& to);
  /// Builds again the tiles `region` overlaps with `extra` (movers' triangles where they stand) beside
  /// the world's (nav::NavMesh::rebuild()); "" on success (also without a mesh: nothing to do), else
  /// why, naming the tile. `tiles` is set to the tiles built again.
  std::string rebuild(const World& world, const Aabb& region, std::span<const WorldTriangle> extra, std::size_t& tiles);
  /// A point of the mesh's walkable surface drawn by area from `seed` alone (GameControl::random_point());
  /// nothing without a mesh or without a polygon.
  std::optional<Vec3> random_point(uint64_t seed) const;

 private:
  struct Mesh;  // the nav/ mesh and its query (navigation.cpp)
  std::unique_ptr<Mesh> mesh_;
};

}  // namespace foothold::server
