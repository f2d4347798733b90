#pragma once
// Small worlds and helpers for the navigation mesh's tests.

#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "nav/nav_query.h"
#include "nav/navmesh.h"
#include "shared/arena.h"
#include "shared/triangle_mesh.h"
#include "shared/world.h"

namespace foothold::nav::test {

/// A world from a builder mesh; fails the test (and returns null) on error.
inline std::unique_ptr<World> make_world(TriangleMesh mesh, const std::string& name = "test") {
  World::Build built = World::create(mesh, name);
  EXPECT_TRUE(built.world) << built.error;
  return std::move(built.world);
}

/// A flat 20 x 20 m floor at y = 0, centred on the origin.
inline TriangleMesh floor_mesh() {
  MeshBuilder b;
  b.floor_grid(-10, -10, 10, 10, 0, 2);
  return b.take();
}

/// Two rooms either side of a wall along x = 0 (0.4 m thick) on floor_mesh()'s floor, joined by one
/// door `door` metres wide at z = 0.
inline TriangleMesh door_world(double door = 1.6) {
  MeshBuilder b;
  b.floor_grid(-10, -10, 10, 10, 0, 2);
  b.box({-0.2, 0, -10}, {0.2, 3, -door / 2});
  b.box({-0.2, 0, door / 2}, {0.2, 3, 10});
  return b.take();
}

/// The embedded arena.
inline std::unique_ptr<World> arena() { return make_world(build_arena_mesh(), "arena"); }

/// Bakes `world` for `settings`; fails the test (and returns null) on error.
inline std::unique_ptr<NavMesh> bake(const World& world, const MoveSettings& settings = {},
                                     const BakeOptions& options = {}) {
  NavMeshResult r = NavMesh::bake(world, settings, options);
  EXPECT_TRUE(r.mesh) << r.error;
  return std::move(r.mesh);
}

}  // namespace foothold::nav::test
