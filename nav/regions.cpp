#include "nav/regions.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include <DetourNavMesh.h>

namespace foothold::nav {
namespace {

constexpr uint32_t kUnvisited = UINT32_MAX;

// The links of every polygon as one array (a polygon's out-edges: edges[start[n], start[n + 1])),
// each as the index of the polygon it leads to.
struct Graph {
  std::vector<std::size_t> start;
  std::vector<uint32_t> edges;
};

Graph link_graph(const dtNavMesh& mesh, std::span<const std::vector<uint8_t>> tiles, std::vector<std::size_t>& first) {
  // Detour's tile index of each of our tiles, and back.
  std::vector<const dtMeshTile*> detour_tiles(tiles.size(), nullptr);
  std::vector<std::size_t> ours(std::size_t(mesh.getMaxTiles()), SIZE_MAX);
  std::size_t total = 0;
  first.assign(tiles.size(), 0);
  for (std::size_t k = 0; k < tiles.size(); ++k) {
    dtMeshHeader h;
    std::memcpy(&h, tiles[k].data(), sizeof h);
    const dtMeshTile* t = mesh.getTileAt(h.x, h.y, h.layer);
    detour_tiles[k] = t;
    if (t) ours[mesh.decodePolyIdTile(mesh.getPolyRefBase(t))] = k;
    first[k] = total;
    total += t ? std::size_t(t->header->polyCount) : 0;
  }
  Graph g;
  g.start.reserve(total + 1);
  for (std::size_t k = 0; k < tiles.size(); ++k) {
    const dtMeshTile* t = detour_tiles[k];
    for (int i = 0; t && i < t->header->polyCount; ++i) {
      g.start.push_back(g.edges.size());
      for (unsigned l = t->polys[i].firstLink; l != DT_NULL_LINK; l = t->links[l].next) {
        const dtPolyRef to = t->links[l].ref;
        if (to == 0) continue;
        const std::size_t tile = ours[mesh.decodePolyIdTile(to)];
        if (tile != SIZE_MAX) g.edges.push_back(uint32_t(first[tile] + mesh.decodePolyIdPoly(to)));
      }
    }
  }
  g.start.push_back(g.edges.size());
  return g;
}

}  // namespace

PolygonRegions find_regions(const dtNavMesh& mesh, std::span<const std::vector<uint8_t>> tiles) {
  PolygonRegions out;
  const Graph g = link_graph(mesh, tiles, out.first);
  const std::size_t n = g.start.size() - 1;
  out.region.assign(n, kUnvisited);
  // Tarjan's algorithm without recursion (a corridor of thousands of polygons is that deep): each
  // frame is a polygon and the next of its edges to follow.
  std::vector<uint32_t> index(n, kUnvisited), low(n, 0);
  std::vector<uint32_t> stack;
  std::vector<std::pair<uint32_t, std::size_t>> frames;
  uint32_t next_index = 0;
  for (uint32_t root = 0; root < n; ++root) {
    if (index[root] != kUnvisited) continue;
    frames.push_back({root, g.start[root]});
    index[root] = low[root] = next_index++;
    stack.push_back(root);
    while (!frames.empty()) {
      auto& [v, e] = frames.back();
      if (e < g.start[v + 1]) {
        const uint32_t w = g.edges[e++];
        if (index[w] == kUnvisited) {
          index[w] = low[w] = next_index++;
          stack.push_back(w);
          frames.push_back({w, g.start[w]});
        } else if (out.region[w] == kUnvisited) {  // on the stack
          low[v] = std::min(low[v], index[w]);
        }
        continue;
      }
      const uint32_t done = v;
      frames.pop_back();
      if (!frames.empty()) low[frames.back().first] = std::min(low[frames.back().first], low[done]);
      if (low[done] != index[done]) continue;
      uint32_t w;
      do {  // the component rooted at `done` is closed
        w = stack.back();
        stack.pop_back();
        out.region[w] = out.count;
      } while (w != done);
      ++out.count;
    }
  }
  return out;
}

}  // namespace foothold::nav
