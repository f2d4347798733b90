// The navmesh file (foothold-nav bake writes it, the server loads it). Little-endian; every field
// is read through bounds checks, and a tile's bytes reach Detour only after check_tile().
//
//   offset  size  field
//   0       8     magic "FHNAVMSH"
//   8       4     format version (kFormatVersion)
//   12      4     tile count T
//   16      8     World::hash() of the world it was baked from
//   24      8     MoveSettings::hash() of the settings it was baked for
//   32      16    the tile grid: origin x, y, z and tile width (float32, metres)
//   48            T tiles, each: size S (4 bytes), then S bytes of Detour tile data (DT_NAVMESH_VERSION,
//                 in the host's layout: little-endian machines only, as every target Foothold builds for)
//   end - 8 8     FNV-1a (shared/hash.h) of every byte before it
//
// The checksum catches truncation and accidental damage; the structural checks stand on their own
// against a file made to pass it.

#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>

#include "nav/navmesh.h"
#include "nav/tile_check.h"
#include "shared/hash.h"

namespace foothold::nav {
namespace {

constexpr char kMagic[8] = {'F', 'H', 'N', 'A', 'V', 'M', 'S', 'H'};
// 2: tiles may hold jump links (Detour's off-mesh connections); a mesh of version 1 has none.
// 3: a never_ground top a step over walkable ground is left out (a mesh of version 2 may hold it);
//    the ground movers sweep has its own area (nav/mover_sweeps.h).
constexpr uint32_t kFormatVersion = 3;
constexpr std::size_t kHeaderBytes = 48;
constexpr std::size_t kChecksumBytes = 8;

void put_u32(std::vector<uint8_t>& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(uint8_t(v >> (8 * i)));
}
void put_u64(std::vector<uint8_t>& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(uint8_t(v >> (8 * i)));
}
uint32_t get_u32(const uint8_t* p) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= uint32_t(p[i]) << (8 * i);
  return v;
}
uint64_t get_u64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= uint64_t(p[i]) << (8 * i);
  return v;
}
uint64_t checksum(std::span<const uint8_t> bytes) {
  Hasher h;
  for (uint8_t b : bytes) h.add_u8(b);
  return h.value();
}
std::string hex(uint64_t v) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(v));
  return text;
}

}  // namespace

std::vector<uint8_t> NavMesh::to_bytes() const {
  std::vector<uint8_t> out(kMagic, kMagic + sizeof kMagic);
  put_u32(out, kFormatVersion);
  put_u32(out, uint32_t(tiles_.size()));
  put_u64(out, world_hash_);
  put_u64(out, settings_hash_);
  for (float f : {grid_.origin[0], grid_.origin[1], grid_.origin[2], grid_.tile_width}) put_u32(out, std::bit_cast<uint32_t>(f));
  for (const std::vector<uint8_t>& t : tiles_) {
    put_u32(out, uint32_t(t.size()));
    out.insert(out.end(), t.begin(), t.end());
  }
  put_u64(out, checksum(out));
  return out;
}

std::string NavMesh::save(const std::string& path) const {
  const std::vector<uint8_t> bytes = to_bytes();
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  out.close();
  if (!out) return "cannot write navmesh " + path;
  return "";
}

NavMeshResult NavMesh::load(const std::string& path, const World& world, const MoveSettings& settings) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {nullptr, "cannot open navmesh " + path};
  const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return {nullptr, "cannot read navmesh " + path};
  return from_bytes(bytes, path, world, settings);
}

NavMeshResult NavMesh::from_bytes(std::span<const uint8_t> bytes, const std::string& name, const World& world,
                                  const MoveSettings& settings) {
  const auto refuse = [&](const std::string& why) { return NavMeshResult{nullptr, "navmesh " + name + " " + why}; };
  if (bytes.size() < sizeof kMagic || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0)
    return refuse("is not a navmesh file");
  if (bytes.size() < kHeaderBytes + kChecksumBytes)
    return refuse("is truncated (" + std::to_string(bytes.size()) + " bytes)");
  const uint32_t version = get_u32(bytes.data() + 8);
  if (version != kFormatVersion)
    return refuse("has format version " + std::to_string(version) + ", this build reads " + std::to_string(kFormatVersion));
  const std::size_t body = bytes.size() - kChecksumBytes;
  if (checksum(bytes.first(body)) != get_u64(bytes.data() + body)) return refuse("is truncated or corrupt (checksum)");
  const uint64_t world_hash = get_u64(bytes.data() + 16), settings_hash = get_u64(bytes.data() + 24);
  if (world_hash != world.hash())
    return refuse("was baked for world hash " + hex(world_hash) + ", this world's is " + hex(world.hash()));
  if (settings_hash != settings.hash())
    return refuse("was baked for settings hash " + hex(settings_hash) + ", these settings' are " + hex(settings.hash()));

  std::unique_ptr<NavMesh> mesh(new NavMesh);
  mesh->world_hash_ = world_hash;
  mesh->settings_hash_ = settings_hash;
  mesh->agent_ = agent_of(settings);
  float grid[4];
  for (int i = 0; i < 4; ++i) grid[i] = std::bit_cast<float>(get_u32(bytes.data() + 32 + 4 * i));
  for (float f : grid)
    if (!std::isfinite(f)) return refuse("has a tile grid that is not finite");
  if (!(grid[3] > 0)) return refuse("has a tile width that is not positive");
  std::memcpy(mesh->grid_.origin, grid, sizeof mesh->grid_.origin);
  mesh->grid_.tile_width = grid[3];

  const uint32_t tiles = get_u32(bytes.data() + 12);
  // Each tile takes at least its size field: a count beyond that is a lie, whatever the checksum.
  if (tiles == 0 || tiles > (body - kHeaderBytes) / 4) return refuse("has a tile count of " + std::to_string(tiles));
  std::size_t at = kHeaderBytes;
  mesh->tiles_.reserve(tiles);
  for (uint32_t k = 0; k < tiles; ++k) {
    if (body - at < 4) return refuse("ends inside tile " + std::to_string(k));
    const uint32_t size = get_u32(bytes.data() + at);
    at += 4;
    if (size > body - at) return refuse("has tile " + std::to_string(k) + " of " + std::to_string(size) + " bytes past its end");
    // A vector's storage is aligned for Detour's structs, which the file's offsets need not be.
    std::vector<uint8_t> tile(bytes.begin() + std::ptrdiff_t(at), bytes.begin() + std::ptrdiff_t(at + size));
    at += size;
    const std::string error = check_tile(tile.data(), tile.size());
    if (!error.empty()) return refuse("has a bad tile " + std::to_string(k) + ": " + error);
    mesh->tiles_.push_back(std::move(tile));
  }
  if (at != body) return refuse("has " + std::to_string(body - at) + " bytes after its last tile");
  NavMeshResult result = assemble(std::move(mesh));
  if (!result.mesh) return refuse("is refused: " + result.error);
  return result;
}

}  // namespace foothold::nav
