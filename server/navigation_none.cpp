// Navigation in a build without nav/ (the arm64 and Windows cross trees, which have no Recast or
// Detour): no mesh, ever (server/navigation.h).

#include "server/navigation.h"

namespace foothold::server {

namespace {
const std::string kNone = "this build of the server has no navigation meshes (nav/, over Recast/Detour, is built natively only)";
}  // namespace

struct Navigation::Mesh {};

Navigation::Navigation() = default;
Navigation::~Navigation() = default;

bool Navigation::available() { return false; }

std::string Navigation::load(const std::string& path, const World&, const MoveSettings&) {
  return "navmesh " + path + ": " + kNone;
}

std::string Navigation::bake(const World&, const MoveSettings&, ParallelFor*,
                             const std::function<void(std::size_t, std::size_t)>&) {
  return kNone;
}

follow::Path Navigation::path(const Vec3&, const Vec3&) { return {}; }

std::string Navigation::rebuild(const World&, const Aabb&, std::span<const WorldTriangle>, std::size_t& tiles) {
  tiles = 0;
  return "";
}

std::optional<Vec3> Navigation::random_point(uint64_t) const { return std::nullopt; }

std::size_t Navigation::tiles() const { return 0; }
std::size_t Navigation::polygons() const { return 0; }

}  // namespace foothold::server
