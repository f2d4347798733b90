// The navmesh file: a round trip, and every way a file can be wrong refused with a message before
// Detour reads it (run under ASan too: the asan preset's nav_tests).

#include <cstdio>
#include <cstring>

#include <DetourNavMesh.h>
#include <gtest/gtest.h>

#include "nav_support.h"
#include "shared/hash.h"
#include "support/process.h"

namespace foothold::nav::test {
namespace {

using foothold::test::TempDir;

constexpr std::size_t kTileAt = 48 + 4;  // the first tile's data: the file header, then its size

std::string hex(uint64_t v) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(v));
  return text;
}

// The file's checksum made right again after a change: what a file made to pass it looks like.
void reseal(std::vector<uint8_t>& bytes) {
  Hasher h;
  for (std::size_t i = 0; i + 8 < bytes.size(); ++i) h.add_u8(bytes[i]);
  for (int i = 0; i < 8; ++i) bytes[bytes.size() - 8 + std::size_t(i)] = uint8_t(h.value() >> (8 * i));
}

struct FloorMesh {
  std::unique_ptr<World> world = make_world(floor_mesh());
  std::unique_ptr<NavMesh> mesh = bake(*world);
  std::vector<uint8_t> bytes = mesh ? mesh->to_bytes() : std::vector<uint8_t>{};
};

NavMeshResult load(const std::vector<uint8_t>& bytes, const World& world, const MoveSettings& settings = {}) {
  return NavMesh::from_bytes(bytes, "f.nav", world, settings);
}

TEST(NavFile, SavedAndLoadedGivesTheSameBytesAndPaths) {
  FloorMesh f;
  ASSERT_TRUE(f.mesh);
  TempDir dir;
  ASSERT_EQ(f.mesh->save(dir.file("floor.nav")), "");
  const NavMeshResult loaded = NavMesh::load(dir.file("floor.nav"), *f.world, {});
  ASSERT_TRUE(loaded.mesh) << loaded.error;
  EXPECT_EQ(loaded.mesh->to_bytes(), f.bytes);
  EXPECT_EQ(loaded.mesh->stats().polygons, f.mesh->stats().polygons);
  NavQuery a(*f.mesh), b(*loaded.mesh);
  const PathResult pa = a.find_path({-8, 0, -7}, {8, 0, 7}), pb = b.find_path({-8, 0, -7}, {8, 0, 7});
  ASSERT_EQ(pb.status, PathStatus::kFound);
  ASSERT_EQ(pa.corners.size(), pb.corners.size());
  for (std::size_t i = 0; i < pa.corners.size(); ++i) EXPECT_EQ(pa.corners[i].x, pb.corners[i].x);
  EXPECT_EQ(loaded.mesh->random_point(7).x, f.mesh->random_point(7).x);
}

TEST(NavFile, FileForAnotherWorldIsRefusedNamingBothHashes) {
  FloorMesh f;
  ASSERT_TRUE(f.mesh);
  MeshBuilder b;
  b.floor_grid(-10, -10, 12, 10, 0, 2);
  const auto other = make_world(b.take());
  const NavMeshResult r = load(f.bytes, *other);
  EXPECT_FALSE(r.mesh);
  EXPECT_EQ(r.error, "navmesh f.nav was baked for world hash " + hex(f.world->hash()) + ", this world's is " +
                         hex(other->hash()));
}

TEST(NavFile, FileForOtherSettingsIsRefusedNamingBothHashes) {
  FloorMesh f;
  ASSERT_TRUE(f.mesh);
  MoveSettings wider;
  wider.radius = 0.5;
  const NavMeshResult r = load(f.bytes, *f.world, wider);
  EXPECT_FALSE(r.mesh);
  EXPECT_EQ(r.error, "navmesh f.nav was baked for settings hash " + hex(MoveSettings{}.hash()) +
                         ", these settings' are " + hex(wider.hash()));
}

TEST(NavFile, MissingAndForeignFilesAreRefused) {
  FloorMesh f;
  TempDir dir;
  EXPECT_EQ(NavMesh::load(dir.file("none.nav"), *f.world, {}).error, "cannot open navmesh " + dir.file("none.nav"));
  const std::string text = dir.write("text.nav", "# not a navmesh\n");
  EXPECT_EQ(NavMesh::load(text, *f.world, {}).error, "navmesh " + text + " is not a navmesh file");
  std::vector<uint8_t> later = f.bytes;
  later[8] = 4;
  reseal(later);
  EXPECT_EQ(load(later, *f.world).error, "navmesh f.nav has format version 4, this build reads 3");
  std::vector<uint8_t> earlier = f.bytes;
  earlier[8] = 2;  // may hold a never_ground top
  reseal(earlier);
  EXPECT_EQ(load(earlier, *f.world).error, "navmesh f.nav has format version 2, this build reads 3");
}

TEST(NavFile, EveryTruncationIsRefused) {
  FloorMesh f;
  ASSERT_TRUE(f.mesh);
  for (std::size_t n = 0; n < f.bytes.size(); ++n) {
    const std::vector<uint8_t> cut(f.bytes.begin(), f.bytes.begin() + std::ptrdiff_t(n));
    const NavMeshResult r = load(cut, *f.world);
    ASSERT_FALSE(r.mesh) << n << " bytes of " << f.bytes.size();
    ASSERT_EQ(r.error.rfind("navmesh f.nav ", 0), 0u) << r.error;
  }
}

TEST(NavFile, EveryFlippedBitIsRefused) {
  FloorMesh f;
  ASSERT_TRUE(f.mesh);
  for (std::size_t i = 0; i < f.bytes.size(); ++i) {
    std::vector<uint8_t> flipped = f.bytes;
    flipped[i] ^= uint8_t(1u << (i % 8));
    const NavMeshResult r = load(flipped, *f.world);
    ASSERT_FALSE(r.mesh) << "byte " << i;
  }
}

// The structural checks, each on a file whose checksum was made right again.
dtMeshHeader header_of(const std::vector<uint8_t>& bytes) {
  dtMeshHeader h;
  std::memcpy(&h, bytes.data() + kTileAt, sizeof h);
  return h;
}
std::size_t polys_at(const dtMeshHeader& h) {
  const auto align4 = [](std::size_t n) { return (n + 3) & ~std::size_t(3); };
  return kTileAt + align4(sizeof(dtMeshHeader)) + align4(12 * std::size_t(h.vertCount));
}

TEST(NavFile, ResealedTileNamingAVertexPastItsOwnIsRefused) {
  FloorMesh f;
  ASSERT_TRUE(f.mesh);
  std::vector<uint8_t> bad = f.bytes;
  const dtMeshHeader h = header_of(bad);
  const uint16_t past = uint16_t(h.vertCount);
  std::memcpy(bad.data() + polys_at(h) + offsetof(dtPoly, verts), &past, 2);
  reseal(bad);
  const NavMeshResult r = load(bad, *f.world);
  EXPECT_FALSE(r.mesh);
  EXPECT_EQ(r.error, "navmesh f.nav has a bad tile 0: polygon 0 names a vertex past the tile's");
}

TEST(NavFile, ResealedTileNamingANeighbourPastItsPolygonsIsRefused) {
  FloorMesh f;
  ASSERT_TRUE(f.mesh);
  std::vector<uint8_t> bad = f.bytes;
  const dtMeshHeader h = header_of(bad);
  const uint16_t past = uint16_t(h.polyCount + 1);  // neighbours are index + 1
  std::memcpy(bad.data() + polys_at(h) + offsetof(dtPoly, neis), &past, 2);
  reseal(bad);
  EXPECT_EQ(load(bad, *f.world).error, "navmesh f.nav has a bad tile 0: polygon 0 names a neighbour past the tile's polygons");
}

TEST(NavFile, ResealedTileWhoseCountsLieIsRefused) {
  FloorMesh f;
  ASSERT_TRUE(f.mesh);
  for (std::size_t field : {offsetof(dtMeshHeader, polyCount), offsetof(dtMeshHeader, vertCount),
                            offsetof(dtMeshHeader, maxLinkCount), offsetof(dtMeshHeader, detailTriCount),
                            offsetof(dtMeshHeader, bvNodeCount)}) {
    for (int32_t lie : {-1, 1 << 30, 3}) {
      std::vector<uint8_t> bad = f.bytes;
      int32_t count;
      std::memcpy(&count, bad.data() + kTileAt + field, 4);
      if (lie == 3) lie = count + 1;  // one more than there is
      std::memcpy(bad.data() + kTileAt + field, &lie, 4);
      reseal(bad);
      const NavMeshResult r = load(bad, *f.world);
      EXPECT_FALSE(r.mesh) << "field at " << field << " = " << lie;
      EXPECT_NE(r.error.find("has a bad tile 0: "), std::string::npos) << r.error;
    }
  }
}

TEST(NavFile, ResealedSizesPastTheFileAreRefused) {
  FloorMesh f;
  ASSERT_TRUE(f.mesh);
  std::vector<uint8_t> bad = f.bytes;
  bad[48 + 3] = 0x7f;  // the first tile's size, far past the end
  reseal(bad);
  EXPECT_NE(load(bad, *f.world).error.find("bytes past its end"), std::string::npos);
  bad = f.bytes;
  bad[12 + 3] = 0x7f;  // the tile count
  reseal(bad);
  EXPECT_NE(load(bad, *f.world).error.find("has a tile count of "), std::string::npos);
}

// A splitmix64 stream for the damage below (seeded, so a failure repeats).
uint64_t next(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

TEST(NavFile, ResealedRandomDamageIsRefusedOrLoadsAndAnswersQueries) {
  // What passes the checks must be safe for Detour to read: under ASan, any read outside a tile fails here.
  FloorMesh f;
  ASSERT_TRUE(f.mesh);
  uint64_t state = 67;
  int loaded = 0;
  for (int round = 0; round < 600; ++round) {
    std::vector<uint8_t> bad = f.bytes;
    const int changes = 1 + int(next(state) % 4);
    for (int c = 0; c < changes; ++c) {
      const std::size_t at = kTileAt + next(state) % (bad.size() - 8 - kTileAt);
      bad[at] = uint8_t(next(state));
    }
    reseal(bad);
    const NavMeshResult r = load(bad, *f.world);
    if (!r.mesh) {
      EXPECT_EQ(r.error.rfind("navmesh f.nav ", 0), 0u) << r.error;
      continue;
    }
    ++loaded;
    NavQuery query(*r.mesh);
    query.find_path({-8, 0, -7}, {8, 0, 7});
    query.find_path({3, 0, -2}, {-6, 0, 9});
    r.mesh->random_point(uint64_t(round));
  }
  EXPECT_GT(loaded, 0) << "some damage (a coordinate, a flag) is structurally sound";
}

}  // namespace
}  // namespace foothold::nav::test
