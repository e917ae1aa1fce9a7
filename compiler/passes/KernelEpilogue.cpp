#include "passes/KernelEpilogue.h"

#include <set>

#include "ir/Edges.h"

namespace formac::passes {
namespace {

// R's input is the image of `producer` read at the point, and nothing else.
bool countsExactly(const ir::Pipeline& p, const ir::Stage& r, int producer) {
  if (r.kind != ir::Stage::Reduce || r.reduction.op != ir::ReduceOp::Histogram) return false;
  const ir::Piece& in = r.reduction.input;
  const ir::Expr& e = *in.body.result;
  if (!in.body.lets.empty() || e.kind != ir::Expr::ImageRead || e.producer != producer || e.field >= 0 ||
      !readsOwnPoint(e))
    return false;
  const ir::Stage& s = p.stages[static_cast<size_t>(producer)];
  if (s.extent.size() != 2 || in.axes.size() != 2) return false;
  int np = static_cast<int>(p.params.size());
  for (size_t d = 0; d < 2; ++d) {
    long long start;
    const ir::PieceAxis& a = in.axes[d];
    if (!ir::isConst(a.start, &start) || start != 0 || a.step != 1 || !ir::sameSize(a.count, s.extent[d], np))
      return false;
  }
  return true;
}

}  // namespace

bool keepsStencilForEpilogue(const ir::Pipeline& p, const ir::Stage& r, int producer) {
  const ir::Stage& s = p.stages[static_cast<size_t>(producer)];
  if (!countsExactly(p, r, producer) || s.kind != ir::Stage::Computed || s.pieces.size() != 1) return false;
  bool neighbour = false;
  ir::forEachExpr(s.pieces[0].body, [&](const ir::Expr& e) {
    if (e.kind == ir::Expr::ImageRead && !readsOwnPoint(e)) neighbour = true;
  });
  return neighbour;
}

void planKernelEpilogues(const ir::Pipeline& p, std::vector<FusionGroup>& groups) {
  std::vector<ir::Edge> edges = ir::collectEdges(p);
  std::set<int> outputs(p.outputs.begin(), p.outputs.end());
  for (auto& g : groups) {
    if (!g.tiledKernel() || g.tile.size() != 2 || outputs.count(g.sink)) continue;
    std::set<int> readers;
    for (const auto& e : edges)
      if (e.producer == g.sink) readers.insert(e.consumer);
    if (readers.size() == 1 && countsExactly(p, p.stages[static_cast<size_t>(*readers.begin())], g.sink))
      g.epilogue = *readers.begin();
  }
}

bool countedNotStored(const std::vector<FusionGroup>& groups, int stage) {
  for (const auto& g : groups)
    if (g.sink == stage && g.epilogue >= 0) return true;
  return false;
}

const FusionGroup* epilogueGroupOf(const std::vector<FusionGroup>& groups, int reduce) {
  for (const auto& g : groups)
    if (g.epilogue == reduce) return &g;
  return nullptr;
}

}  // namespace formac::passes
