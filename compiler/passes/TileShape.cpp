#include "passes/TileShape.h"

#include <algorithm>
#include <map>

#include "ir/Edges.h"

namespace formac::passes {
namespace {

struct Candidate {
  std::vector<int> tile;
  double cost = 0;     // points computed and read per point of the sink
  long long bytes = 0;
};

using Halo = std::pair<std::vector<int>, std::vector<int>>;  // below, above the tile

// Points of the tile widened by `h`.
long long widened(const std::vector<int>& tile, const Halo& h) {
  long long n = 1;
  for (size_t d = 0; d < tile.size(); ++d) n *= tile[d] + h.first[d] + h.second[d];
  return n;
}

// Per input of the group (a stage it reads from memory at offsets, unit
// scale), the region of it that one tile reads.
std::map<int, Halo> inputReach(const ir::Pipeline& p, const FusionGroup& g) {
  const size_t rank = g.tile.size();
  std::map<int, const GroupMember*> member;
  for (const auto& m : g.members) member[m.stage] = &m;
  std::map<int, Halo> out;
  auto reads = [&](int stage, const std::vector<int>& lo, const std::vector<int>& hi) {
    forEachExpr(p.stages[static_cast<size_t>(stage)].pieces[0].body, [&](const ir::Expr& e) {
      if (e.kind != ir::Expr::ImageRead || member.count(e.producer) || e.axes.size() != rank || e.firstDim != 0 ||
          !e.origin.empty())
        return;
      Halo& h = out.emplace(e.producer, Halo{std::vector<int>(rank, 0), std::vector<int>(rank, 0)}).first->second;
      for (size_t d = 0; d < rank; ++d) {
        if (e.axes[d].scale != 1) return;
        h.first[d] = std::max(h.first[d], lo[d] + static_cast<int>(std::max<long long>(0, -e.axes[d].offset)));
        h.second[d] = std::max(h.second[d], hi[d] + static_cast<int>(std::max<long long>(0, e.axes[d].offset)));
      }
    });
  };
  reads(g.sink, std::vector<int>(rank, 0), std::vector<int>(rank, 0));
  for (const auto& m : g.members) reads(m.stage, m.haloLo, m.haloHi);
  return out;
}

// Points computed per tile (the regions of the members with a tile, and the
// tile), and points of the inputs read.
long long tilePoints(const FusionGroup& g, const std::map<int, Halo>& inputs) {
  const size_t rank = g.tile.size();
  long long total = widened(g.tile, Halo{std::vector<int>(rank, 0), std::vector<int>(rank, 0)});
  for (const auto& m : g.members)
    if (!m.inlined) total += widened(g.tile, Halo{m.haloLo, m.haloHi});
  for (const auto& [input, h] : inputs) total += widened(g.tile, h);
  return total;
}

// Whether `a` is the better of two tiles that fit.
bool better(const Candidate& a, const Candidate& b) {
  if (a.cost != b.cost) return a.cost < b.cost;
  long long va = 1, vb = 1;
  for (int t : a.tile) va *= t;
  for (int t : b.tile) vb *= t;
  if (va != vb) return va > vb;
  return a.tile.back() > b.tile.back();
}

}  // namespace

std::vector<int> tileFromReach(const ir::Pipeline& p, const FusionGroup& g, long long fastBytes, long long budget) {
  const size_t rank = g.tile.size();
  std::vector<int> least(rank, 1);  // each side larger than every halo along it
  for (const auto& m : g.members)
    for (size_t d = 0; d < rank; ++d) least[d] = std::max(least[d], std::max(m.haloLo[d], m.haloHi[d]) + 1);
  int tiled = 1;  // the sink, the members with a tile, the inputs
  for (const auto& m : g.members) tiled += m.inlined ? 0 : 1;
  const std::map<int, Halo> inputs = inputReach(p, g);
  tiled += static_cast<int>(inputs.size());
  Candidate best[2];  // within fastBytes, within budget
  bool found[2] = {false, false};
  FusionGroup trial = g;
  std::vector<int> side(rank, 0);  // exponents of the sides
  for (;;) {
    long long points = 1;
    bool ok = true;
    for (size_t d = 0; d < rank; ++d) {
      trial.tile[d] = 1 << side[d];
      points *= trial.tile[d];
      ok = ok && trial.tile[d] >= least[d];
    }
    ok = ok && (rank < 2 || trial.tile.back() >= kMinRowPoints);
    if (ok && points >= kMinTilePoints && points <= kMaxTilePoints) {
      Candidate c{trial.tile, static_cast<double>(tilePoints(trial, inputs)) / static_cast<double>(points),
                  trial.onChipBytes(p)};
      for (int k = 0; k < 2; ++k)
        if (c.bytes <= (k ? budget : fastBytes) && c.cost <= kMaxRecompute * tiled && (!found[k] || better(c, best[k])))
          best[k] = c, found[k] = true;
    }
    size_t d = 0;  // the next exponents, as an odometer with sides up to kMaxTilePoints
    while (d < rank && (1 << ++side[d]) > kMaxTilePoints) side[d++] = 0;
    if (d == rank) break;
  }
  if (found[0]) return best[0].tile;
  return found[1] ? best[1].tile : std::vector<int>{};
}

}  // namespace formac::passes
