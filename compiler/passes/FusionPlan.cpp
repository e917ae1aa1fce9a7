#include "passes/FusionPlan.h"

#include <cstdio>

#include <algorithm>
#include <map>
#include <set>

#include "ir/Edges.h"
#include "passes/TileShape.h"

namespace formac::passes {
namespace {

using ir::Stage;

bool sameExtent(const ir::Pipeline& p, const Stage& a, const Stage& b) {
  if (a.rank() != b.rank()) return false;
  for (int d = 0; d < a.rank(); ++d)
    if (!ir::sameSize(a.extent[static_cast<size_t>(d)], b.extent[static_cast<size_t>(d)],
                      static_cast<int>(p.params.size())))
      return false;
  return true;
}

// Whether an image read is at q + offset: from the first dimension, unit
// scales, no placement (what a tile's taps serve).
bool atOffset(const ir::Expr& e) {
  if (e.kind != ir::Expr::ImageRead || e.firstDim != 0 || !e.origin.empty()) return false;
  for (const auto& a : e.axes)
    if (a.scale != 1) return false;
  return true;
}

// Reads of `producer` by `consumer` that a tile can serve; with `periodic`
// (a periodic group's), reads that wrap too.
bool tileReadable(const ir::Pipeline& p, int producer, int consumer, bool periodic) {
  bool ok = true;
  for (const auto& pc : p.stages[static_cast<size_t>(consumer)].pieces)
    forEachExpr(pc.body, [&](const ir::Expr& e) {
      if (e.producer != producer || (e.kind != ir::Expr::ImageRead && e.kind != ir::Expr::IndexRead)) return;
      if (!atOffset(e) || (e.mode == ir::BoundaryMode::Wrap && !periodic)) ok = false;
    });
  return ok;
}

// Whether every read of the piece wraps, at q + offset, and it reads no
// image at a computed index: its value at a position past the image,
// computed there, is the value at the wrapped one when every stage it reads
// is periodic too (FusionGroup::periodic).
bool readsWrapOnly(const ir::Piece& pc) {
  bool ok = true;
  forEachExpr(pc.body, [&](const ir::Expr& e) {
    if (e.kind == ir::Expr::IndexRead) ok = false;
    if (e.kind != ir::Expr::ImageRead || e.axes.empty()) return;  // no axes: a scalar of the pipeline
    if (!atOffset(e) || e.mode != ir::BoundaryMode::Wrap) ok = false;
  });
  return ok;
}

using Offsets = std::set<std::vector<int>>;

// The offsets at which `consumer` reads `producer` (tile-readable reads only).
Offsets readOffsets(const ir::Pipeline& p, int producer, int consumer) {
  Offsets out;
  for (const auto& pc : p.stages[static_cast<size_t>(consumer)].pieces)
    forEachExpr(pc.body, [&](const ir::Expr& e) {
      if (e.kind != ir::Expr::ImageRead || e.producer != producer) return;
      std::vector<int> o;
      for (const auto& a : e.axes) o.push_back(static_cast<int>(a.offset));
      out.insert(o);
    });
  return out;
}

// Where member `pid` would be evaluated if inlined: per root (the sink or a
// member with a tile, computed once per point of its region), the offsets
// from that point — its consumers' read offsets, composed with the
// consumers' own offsets where they are inlined.
using Taps = std::map<int, Offsets>;
Taps inlinedTaps(const ir::Pipeline& p, int pid, const std::vector<int>& consumers,
                 const std::map<int, Taps>& inlined) {
  Taps out;
  for (int c : consumers) {
    Offsets own = readOffsets(p, pid, c);
    auto it = inlined.find(c);
    if (it == inlined.end()) {
      out[c].insert(own.begin(), own.end());
      continue;
    }
    for (const auto& [root, offsets] : it->second)
      for (const auto& a : offsets)
        for (const auto& b : own) {
          std::vector<int> sum(a.size());
          for (size_t d = 0; d < a.size(); ++d) sum[d] = a[d] + b[d];
          out[root].insert(sum);
        }
  }
  return out;
}

size_t evaluationsPerPoint(const Taps& t) {
  size_t n = 0;
  for (const auto& [root, offsets] : t) n += offsets.size();
  return n;
}

void shrinkTile(const ir::Pipeline& p, FusionGroup& g, long long bytes);

long long points(const std::vector<int>& tile) {
  long long n = 1;
  for (int t : tile) n *= t;
  return n;
}

std::string tileText(const std::vector<int>& tile) {
  std::string t;
  for (int x : tile) t += (t.empty() ? "[" : ", ") + std::to_string(x);
  return t + "]";
}

// The costly operations (costlyOperations) a point of the sink computes
// again in the members' halos: each non-inlined member's region over the
// tile, less one, times its own.
double recomputedCostly(const ir::Pipeline& p, const FusionGroup& g) {
  double again = 0;
  for (const auto& m : g.members) {
    if (m.inlined) continue;
    double region = 1;
    for (size_t d = 0; d < g.tile.size(); ++d)
      region *= static_cast<double>(g.tile[d] + m.haloLo[d] + m.haloHi[d]) / g.tile[d];
    again += (region - 1) * costlyOperations(p.stages[static_cast<size_t>(m.stage)].pieces[0]);
  }
  return again;
}

// Why `trial` (the group with member `m` added) does not fit its fixed
// tile, or "" when it does. Clamp/mirror reads stay in the region only if
// the tile exceeds the halo. With FusionOptions::keepHalfTile, the tile it
// would be shrunk to (shrinkTo) must keep half the preferred tile's points: every member
// computes its halo again in each tile, and a 32-stage chain of 3-tap
// stages, grown until its 16 x 16 tiles fit, ran at 2.2x the time of the same
// chain in groups of 8 on 16 x 64 tiles (H100, bench/gpu/zoo/RESULTS.md).
// With FusionOptions::maxRecomputedCostly, the halos of that tile may
// compute again at most so many divisions and math calls a point.
std::string fixedTileRefusal(const ir::Pipeline& p, const FusionGroup& trial, const GroupMember& m,
                             const FusionOptions& o) {
  for (size_t d = 0; d < trial.tile.size(); ++d)
    if (trial.tile[d] <= std::max(m.haloLo[d], m.haloHi[d])) return "its halo is not smaller than the tile";
  if (trial.onChipBytes(p) > o.onChipBudget)
    return "the group's tiles would need " + std::to_string(trial.onChipBytes(p)) +
           " bytes on chip, over the budget of " + std::to_string(o.onChipBudget);
  FusionGroup sized = trial;
  if (o.shrinkTo > 0) shrinkTile(p, sized, o.shrinkTo);
  if (o.keepHalfTile && o.shrinkTo > 0 && 2 * points(sized.tile) < points(trial.tile))
    return "its tiles would shrink to " + tileText(sized.tile) + " to fit " + std::to_string(o.shrinkTo) +
           " bytes, under half of " + tileText(trial.tile) + ": its halos would be computed again more than storing it costs";
  if (o.maxRecomputedCostly > 0) {
    double again = recomputedCostly(p, sized);
    if (again > o.maxRecomputedCostly) {
      char text[160];
      std::snprintf(text, sizeof text,
                    "its halos would compute %.2f divisions and math calls a point again, over the %.2f that "
                    "storing it costs less than",
                    again, o.maxRecomputedCostly);
      return text;
    }
  }
  return "";
}

// Gives `trial` the tile of its members' reach (TileShape.h); why none
// fits, or "" when one does.
std::string fitReachTile(const ir::Pipeline& p, FusionGroup& trial, const FusionOptions& o) {
  std::vector<int> tile = tileFromReach(p, trial, o.shrinkTo > 0 ? o.shrinkTo : o.onChipBudget, o.onChipBudget);
  if (tile.empty())
    return "every tile within " + std::to_string(o.onChipBudget) + " bytes on chip would compute or read over " +
           std::to_string(static_cast<int>(kMaxRecompute)) + " points per point the group needs (its halos)";
  trial.tile = tile;
  return "";
}

// Whether a stage reads a neighbour: some read at a nonzero offset (unit
// scale, no placement), which the tiled kernel's shared taps serve.
bool readsNeighbours(const ir::Piece& pc) {
  bool found = false;
  forEachExpr(pc.body, [&](const ir::Expr& e) {
    if (!atOffset(e)) return;
    for (const auto& a : e.axes) found = found || a.offset != 0;
  });
  return found;
}

// `count` of one point of every stage of the group, sink and members.
int groupSum(const ir::Pipeline& p, const FusionGroup& g, int (*count)(const ir::Piece&)) {
  int total = count(p.stages[static_cast<size_t>(g.sink)].pieces[0]);
  for (const auto& m : g.members) total += count(p.stages[static_cast<size_t>(m.stage)].pieces[0]);
  return total;
}

// Operations of one point of every stage of the group (pointOperations).
int groupOperations(const ir::Pipeline& p, const FusionGroup& g) { return groupSum(p, g, pointOperations); }

// "rank 2", "ranks 2, 3": the ranks a target fuses, for a stage turned away.
std::string ranksText(const std::set<int>& ranks) {
  std::string t = ranks.size() == 1 ? "rank " : "ranks ";
  for (int r : ranks) t += (r == *ranks.begin() ? "" : ", ") + std::to_string(r);
  return t;
}

}  // namespace

bool isWholeStencil(const ir::Pipeline& p, const Stage& s) {
  if (s.kind != Stage::Computed || s.pieces.size() != 1) return false;
  const ir::Piece& pc = s.pieces[0];
  int np = static_cast<int>(p.params.size());
  for (size_t d = 0; d < pc.axes.size(); ++d) {
    long long c;
    if (!ir::isConst(pc.axes[d].start, &c) || c != 0 || pc.axes[d].step != 1) return false;
    if (!ir::sameSize(pc.axes[d].count, s.extent[d], np)) return false;
  }
  return true;
}

bool coversWholeExtent(const ir::Pipeline& p, const Stage& s) {
  if (!isWholeStencil(p, s)) return false;
  const ir::Piece& pc = s.pieces[0];
  int np = static_cast<int>(p.params.size());
  for (size_t d = 0; d < pc.axes.size(); ++d) {
    long long lo;
    if (!ir::isConst(pc.validLo[d], &lo) || lo != 0) return false;
    if (!ir::sameSize(pc.validHi[d], ir::sizeSub(s.extent[d], ir::sizeConst(1)), np)) return false;
  }
  return true;
}

// Whether every read of the piece is at offset 0, and its operations
// (reads excluded when `countReads` is false).
static int countOperations(const ir::Piece& pc, bool countReads, bool* offsetZero) {
  int operations = 0;
  *offsetZero = true;
  forEachExpr(pc.body, [&](const ir::Expr& e) {
    switch (e.kind) {
      case ir::Expr::IndexRead: *offsetZero = false; break;
      case ir::Expr::ImageRead:
        if (!readsOwnPoint(e)) *offsetZero = false;
        if (countReads) ++operations;
        break;
      case ir::Expr::Unary: case ir::Expr::Binary: case ir::Expr::Select: case ir::Expr::Cast: ++operations; break;
      case ir::Expr::Call: operations += kInlineOps + 1; break;  // math calls are never cheap
      default: break;
    }
  });
  return operations;
}

bool readsOwnPoint(const ir::Expr& e) {
  if (e.kind != ir::Expr::ImageRead || e.firstDim != 0 || !e.origin.empty()) return false;
  for (const auto& a : e.axes)
    if (a.offset != 0 || a.scale != 1) return false;
  return true;
}

bool cheapPointwise(const ir::Piece& pc) {
  bool offsetZero;
  int operations = countOperations(pc, false, &offsetZero);  // reads, constants and locals are free
  return offsetZero && operations <= kInlineOps;
}

int costlyOperations(const ir::Piece& pc) {
  int costly = 0;
  forEachExpr(pc.body, [&](const ir::Expr& e) {
    if (e.kind == ir::Expr::Binary)
      costly += e.binOp == ir::BinOp::Div || e.binOp == ir::BinOp::Mod || e.binOp == ir::BinOp::Pow;
    if (e.kind == ir::Expr::Call)
      costly += e.fn != ir::MathFn::Min && e.fn != ir::MathFn::Max && e.fn != ir::MathFn::Abs &&
                e.fn != ir::MathFn::Absd && e.fn != ir::MathFn::Fabs && e.fn != ir::MathFn::Floor &&
                e.fn != ir::MathFn::Ceil && e.fn != ir::MathFn::Round;
  });
  return costly;
}

int pointOperations(const ir::Piece& pc) {
  bool offsetZero;
  return countOperations(pc, true, &offsetZero);
}

long long FusionGroup::onChipBytes(const ir::Pipeline& p) const {
  long long total = 0;
  for (const auto& m : members) {
    if (m.inlined) continue;
    long long n = static_cast<long long>(typeSize(p.stages[static_cast<size_t>(m.stage)].type));
    for (size_t d = 0; d < tile.size(); ++d) n *= tile[d] + m.haloLo[d] + m.haloHi[d];
    total += n;
  }
  return total;
}

bool isFusedMember(const std::vector<FusionGroup>& groups, int stage) {
  for (const auto& g : groups)
    for (const auto& m : g.members)
      if (m.stage == stage) return true;
  return false;
}

bool isFusedSink(const std::vector<FusionGroup>& groups, int stage) {
  for (const auto& g : groups)
    if (g.tiledKernel() && g.sink == stage) return true;
  return false;
}

// Halves the tile, rows first, while its tiles exceed `bytes` and it stays
// larger than every member's halo (mirror and clamp reads need that).
namespace {
void shrinkTile(const ir::Pipeline& p, FusionGroup& g, long long bytes) {
  for (size_t turn = 0; g.fused() && g.onChipBytes(p) > bytes; ++turn) {
    bool halved = false;
    for (size_t k = 0; k < g.tile.size() && !halved; ++k) {
      size_t d = (turn + k) % g.tile.size();
      int half = g.tile[d] / 2;
      bool ok = half >= 1;
      for (const auto& m : g.members)
        if (half <= std::max(m.haloLo[d], m.haloHi[d])) ok = false;
      if (ok) g.tile[d] = half, halved = true;
    }
    if (!halved) return;
  }
}
}  // namespace

std::vector<FusionGroup> planFusion(const ir::Pipeline& p, const FusionOptions& o,
                                    std::vector<std::string>* whyMaterialised) {
  std::vector<ir::Edge> edges = ir::collectEdges(p);
  std::vector<std::string> why(p.stages.size());
  const std::string notWhole =
      "it does not compute its whole extent point by point (a placement, a compose or a lattice step)";
  auto name = [&](int id) { return ir::displayName(p, id); };
  // The first reason a candidate was turned away, by the group nearest its consumers.
  auto turnAway = [&](int id, const std::string& reason) {
    if (why[static_cast<size_t>(id)].empty()) why[static_cast<size_t>(id)] = reason;
  };
  std::map<int, std::vector<int>> consumers;  // producer -> consumer stages
  for (const auto& e : edges) consumers[e.producer].push_back(e.consumer);
  std::set<int> outputs(p.outputs.begin(), p.outputs.end());
  std::vector<int> groupOf(p.stages.size(), -1);
  std::vector<char> whole(p.stages.size());  // isWholeStencil, asked once a stage
  for (size_t id = 0; id < p.stages.size(); ++id) whole[id] = isWholeStencil(p, p.stages[id]);
  std::vector<FusionGroup> groups;

  for (int sid = static_cast<int>(p.stages.size()) - 1; sid >= 0; --sid) {
    const Stage& sink = p.stages[static_cast<size_t>(sid)];
    if (sink.kind == Stage::Input || groupOf[static_cast<size_t>(sid)] >= 0) continue;
    FusionGroup g;
    g.sink = sid;
    int gi = static_cast<int>(groups.size());
    groupOf[static_cast<size_t>(sid)] = gi;
    size_t rank = static_cast<size_t>(sink.rank());
    bool canFuse = o.fuse && o.fusedRanks.count(static_cast<int>(rank)) && whole[static_cast<size_t>(sid)];
    const bool reach = o.reachTiledRanks.count(static_cast<int>(rank)) > 0;
    // A sink whose every read wraps starts a periodic group: its members must
    // wrap every read too.
    const bool periodic =
        canFuse && o.periodicGroups && coversWholeExtent(p, sink) && readsWrapOnly(sink.pieces[0]);
    if (outputs.count(sid)) turnAway(sid, "a result of the pipeline");
    if (!o.fuse) turnAway(sid, "fusion is off (--no-fuse)");
    if (canFuse) {
      g.tile.assign(rank, 1);
      for (size_t d = 0; d < rank && d < o.preferredTile.size(); ++d)
        g.tile[rank - 1 - d] = o.preferredTile[o.preferredTile.size() - 1 - d];
      std::map<int, GroupMember> halos;
      std::map<int, Taps> taps;  // inlined members: where they are evaluated
      halos[sid] = GroupMember{sid, std::vector<int>(rank, 0), std::vector<int>(rank, 0)};
      const std::string into = "not fused into " + name(sid) + ": ";
      // Candidates in decreasing id order: all consumers are decided first.
      for (int pid = sid - 1; pid >= 0; --pid) {
        const Stage& ps = p.stages[static_cast<size_t>(pid)];
        if (groupOf[static_cast<size_t>(pid)] >= 0 || outputs.count(pid)) continue;
        const auto& cs = consumers[pid];
        if (ps.kind != Stage::Computed || cs.empty()) continue;
        if (!whole[static_cast<size_t>(pid)]) {
          turnAway(pid, notWhole);
          continue;
        }
        if (!sameExtent(p, ps, sink)) {
          turnAway(pid, into + "its extent differs");
          continue;
        }
        auto outside = std::find_if(cs.begin(), cs.end(), [&](int c) { return halos.count(c) == 0; });
        if (outside != cs.end()) {
          if (why[static_cast<size_t>(pid)].empty())
            turnAway(pid, into + "read by " + name(*outside) + ", which is not in its group");
          continue;
        }
        if (periodic && !(coversWholeExtent(p, ps) && readsWrapOnly(ps.pieces[0]))) {
          turnAway(pid, into + "the group is periodic (every read wraps) and it reads without wrap");
          continue;
        }
        auto unreadable =
            std::find_if(cs.begin(), cs.end(), [&](int c) { return !tileReadable(p, pid, c, periodic); });
        if (unreadable != cs.end()) {
          turnAway(pid, into + name(*unreadable) +
                            " reads it with wrap, down-sampled, at an absolute index or placed "
                            "(reads that reach outside a tile)");
          continue;
        }
        GroupMember m{pid, std::vector<int>(rank, 0), std::vector<int>(rank, 0)};
        for (const auto& e : edges) {
          if (e.producer != pid || !halos.count(e.consumer)) continue;
          const GroupMember& c = halos[e.consumer];
          for (size_t d = 0; d < rank; ++d) {
            int lo = c.haloLo[d] + std::max(0, -e.minOffset[d]);
            int hi = c.haloHi[d] + std::max(0, e.maxOffset[d]);
            // A mirrored read past one edge lands on the other side of that
            // edge: a symmetric halo keeps it in the region, even in a last
            // tile narrower than the halo.
            if (e.mode == ir::BoundaryMode::Mirror) lo = hi = std::max(lo, hi);
            m.haloLo[d] = std::max(m.haloLo[d], lo);
            m.haloHi[d] = std::max(m.haloHi[d], hi);
          }
        }
        if (o.inlineCheap) {
          Taps t = inlinedTaps(p, pid, cs, taps);
          bool cheap = cheapPointwise(ps.pieces[0]);
          if (evaluationsPerPoint(t) == 1 || cheap) {
            m.inlined = true;
            taps[pid] = t;
          }
        }
        FusionGroup trial = g;
        trial.members.insert(trial.members.begin(), m);
        int operations = groupOperations(p, trial);
        std::string refusal =
            o.maxGroupOperations > 0 && operations > o.maxGroupOperations
                ? "the group would compute " + std::to_string(operations) + " operations a point, over the " +
                      std::to_string(o.maxGroupOperations) + " that keep its kernel quick to compile"
            : reach ? fitReachTile(p, trial, o)
                    : fixedTileRefusal(p, trial, m, o);
        if (!refusal.empty()) {
          turnAway(pid, into + refusal);
          taps.erase(pid);
          continue;
        }
        g = trial;
        halos[pid] = m;
        groupOf[static_cast<size_t>(pid)] = gi;
      }
      // Members are listed in topological (increasing id) order.
      std::sort(g.members.begin(), g.members.end(),
                [](const GroupMember& a, const GroupMember& b) { return a.stage < b.stage; });
      if (o.shrinkTo > 0 && !reach) shrinkTile(p, g, o.shrinkTo);
      g.periodic = periodic && g.fused();
      // A lone stencil over maxGroupOperations keeps the plain stage kernel: one
      // copy of its body a path, where the tiled kernel's sweep holds eight.
      g.tiledAlone = o.tileLoneStencils && !g.fused() && (rank == 2 || reach) && readsNeighbours(sink.pieces[0]);
      if (g.tiledAlone && reach && !fitReachTile(p, g, o).empty()) g.tiledAlone = false;
      if (g.tiledAlone && o.maxGroupOperations > 0 && groupOperations(p, g) > o.maxGroupOperations) {
        g.tiledAlone = false;
        g.notTiled = "it computes " + std::to_string(groupOperations(p, g)) + " operations a point, over the " +
                     std::to_string(o.maxGroupOperations) + " that keep a tiled kernel quick to compile";
      }
      g.onePass = g.tiledKernel() && groupOperations(p, g) <= kOnePassOps;
      g.compact = g.fused() && ((o.compactOperations > 0 && groupOperations(p, g) > o.compactOperations) ||
                                (o.compactCostly > 0 && groupSum(p, g, costlyOperations) >= o.compactCostly));
    }
    if (sink.kind == Stage::Reduce)
      turnAway(sid, "a reduction: computed by a loop of its own");
    if (sink.kind == Stage::Scan)
      turnAway(sid, "a scan: computed by a loop of its own");
    if (sink.kind == Stage::LoopResult)
      turnAway(sid, "the result of a 'do' loop");
    if (o.fuse && !canFuse)
      turnAway(sid, !o.fusedRanks.count(static_cast<int>(rank))
                        ? "rank " + std::to_string(rank) + ": fused code is generated for " +
                              ranksText(o.fusedRanks) + " only"
                        : notWhole);
    groups.push_back(g);
  }
  std::reverse(groups.begin(), groups.end());
  for (const auto& g : groups) {
    for (const auto& m : g.members) why[static_cast<size_t>(m.stage)].clear();
    std::string& sinkWhy = why[static_cast<size_t>(g.sink)];
    if (sinkWhy.empty() && !consumers[g.sink].empty())
      sinkWhy = "read by " + name(consumers[g.sink].front()) + ", which does not fuse its producers";
  }
  if (whyMaterialised) *whyMaterialised = std::move(why);
  return groups;
}

}  // namespace formac::passes
