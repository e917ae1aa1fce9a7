#include "passes/FoldCrops.h"

#include <memory>
#include <set>

#include "ir/Edges.h"
#include "passes/FusionPlan.h"
#include "passes/RemoveStages.h"

namespace formac::passes {
namespace {

using ir::Expr;
using ir::ExprPtr;

// The offsets of a crop's read of its source along each dimension, if `c` is
// a crop: one piece of step 1 from 0 over its extent, no lets, its body a read
// of another stage at the point plus constant offsets (scale 1, the same rank,
// no field), small enough that every read it moves keeps an int offset.
bool cropOffsets(const ir::Pipeline& p, const ir::Stage& c, std::vector<int>* offsets) {
  if (!isWholeStencil(p, c)) return false;
  const ir::Body& b = c.pieces[0].body;
  const Expr& r = *b.result;
  if (!b.lets.empty() || r.kind != Expr::ImageRead || r.field >= 0 || r.firstDim != 0) return false;
  if (static_cast<int>(r.axes.size()) != c.rank() || r.type != c.type) return false;
  offsets->clear();
  for (size_t d = 0; d < r.axes.size(); ++d) {
    long long origin = 0;
    if (d < r.origin.size() && !ir::isConst(r.origin[d], &origin)) return false;
    origin += r.axes[d].offset;
    if (r.axes[d].scale != 1 || origin <= -(1 << 20) || origin >= (1 << 20)) return false;
    offsets->push_back(static_cast<int>(origin));
  }
  return true;
}

// Whether `lo + k <= hi` is known for all parameter values.
bool atMost(const ir::Pipeline& p, const ir::Size& lo, long long k, const ir::Size& hi) {
  long long d;
  return ir::constantDifference(lo, hi, static_cast<int>(p.params.size()), &d) && d >= k;
}

// `e` with every read moved by `shift` along the lattice dimensions.
ExprPtr moveReads(const ExprPtr& e, const std::vector<int>& shift) {
  return ir::rebuildExpr(e, [&](const Expr& n) -> ExprPtr {
    if (n.kind != Expr::ImageRead) return nullptr;
    auto copy = std::make_shared<Expr>(n);
    for (size_t d = 0; d < copy->axes.size(); ++d) {
      size_t q = static_cast<size_t>(n.firstDim) + d;
      copy->axes[d].offset += copy->axes[d].scale * (q < shift.size() ? shift[q] : 0);
    }
    return copy;
  });
}

// Whether crop `c` (reading its source at `offsets`) may compute its source's
// points itself: the source is one whole-extent piece that only `c` reads, not
// a result, that reads no computed stage of its own extent (one the planner
// could fuse with it), and the points `c` reads lie in the source's valid box.
bool foldable(const ir::Pipeline& p, const ir::Stage& c, const std::vector<int>& offsets,
              const std::vector<ir::Edge>& edges, const std::set<int>& dead) {
  const int src = c.pieces[0].body.result->producer;
  const ir::Stage& s = p.stages[static_cast<size_t>(src)];
  if (!isWholeStencil(p, s)) return false;
  for (int o : p.outputs)
    if (o == src) return false;
  for (const auto& e : edges)
    if (e.producer == src && e.consumer != c.id && !dead.count(e.consumer)) return false;
  const ir::Piece& from = s.pieces[0];
  const ir::Piece& to = c.pieces[0];
  // A computed stage of the source's extent that it reads could be fused with
  // it, but not with the crop: its extent differs.
  const int np = static_cast<int>(p.params.size());
  bool smallOffsets = true, fusable = false;
  ir::forEachExpr(from.body, [&](const Expr& e) {
    if (e.kind != Expr::ImageRead && e.kind != Expr::IndexRead) return;
    const ir::Stage& x = p.stages[static_cast<size_t>(e.producer)];
    bool sameExtent = x.rank() == s.rank();
    for (size_t d = 0; sameExtent && d < x.extent.size(); ++d) sameExtent = ir::sameSize(x.extent[d], s.extent[d], np);
    fusable = fusable || (x.kind == ir::Stage::Computed && sameExtent);
    if (e.kind != Expr::ImageRead) return;
    for (const auto& a : e.axes)
      smallOffsets = smallOffsets && a.offset > -(1 << 30) && a.offset < (1 << 30) && a.scale > -1024 && a.scale < 1024;
  });
  if (!smallOffsets || fusable) return false;
  for (size_t d = 0; d < offsets.size(); ++d) {
    if (!atMost(p, from.validLo[d], -offsets[d], to.validLo[d])) return false;
    if (!atMost(p, to.validHi[d], offsets[d], from.validHi[d])) return false;
  }
  return true;
}

}  // namespace

void foldCrops(ir::Pipeline& p) {
  std::set<int> dead;
  for (bool changed = true; changed;) {
    changed = false;
    const std::vector<ir::Edge> edges = ir::collectEdges(p);
    for (auto& c : p.stages) {
      std::vector<int> offsets;
      if (dead.count(c.id) || !cropOffsets(p, c, &offsets) || !foldable(p, c, offsets, edges, dead)) continue;
      const int src = c.pieces[0].body.result->producer;
      const ir::Stage& source = p.stages[static_cast<size_t>(src)];
      const ir::Body& from = source.pieces[0].body;
      c.origin = source.origin + ", " + c.origin;
      ir::Body moved;
      for (const auto& l : from.lets) moved.lets.push_back(ir::Let{l.name, l.type, moveReads(l.value, offsets)});
      moved.result = moveReads(from.result, offsets);
      c.pieces[0].body = std::move(moved);
      dead.insert(src);
      changed = true;
      break;
    }
  }
  if (!dead.empty()) removeStages(p, dead);
}

}  // namespace formac::passes
