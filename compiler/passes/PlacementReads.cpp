#include "passes/PlacementReads.h"

#include <memory>

#include "passes/FusionPlan.h"

namespace formac::passes {
namespace {

using ir::Expr;
using ir::ExprPtr;

// The read at the heart of `e` (a read, or conversions of one), or null.
const Expr* placedRead(const ExprPtr& e) {
  const Expr* n = e.get();
  while (n->kind == Expr::Cast) n = n->args[0].get();
  if (n->kind != Expr::ImageRead || n->field >= 0 || !readsOwnPoint(*n)) return nullptr;
  return n;
}

// `e` with its read `from` replaced by `to`.
ExprPtr replaceRead(const ExprPtr& e, const Expr* from, ExprPtr to) {
  if (e.get() == from) return to;
  auto copy = std::make_shared<Expr>(*e);
  copy->args[0] = replaceRead(e->args[0], from, std::move(to));
  return copy;
}

// Rewrites `s` if it places a whole image (PlacementReads.h); leaves it alone otherwise.
void rewritePlacement(const ir::Pipeline& p, ir::Stage& s) {
  if (s.kind != ir::Stage::Computed || s.pieces.size() != 1 || s.type.isStruct()) return;
  ir::Piece& pc = s.pieces[0];
  if (!pc.body.lets.empty()) return;
  const Expr* read = placedRead(pc.body.result);
  if (!read) return;
  const ir::Stage& x = p.stages[static_cast<size_t>(read->producer)];
  if (x.type.isStruct() || x.rank() != s.rank()) return;
  const int np = static_cast<int>(p.params.size());
  std::vector<long long> start(pc.axes.size());
  for (size_t d = 0; d < pc.axes.size(); ++d) {
    long long lo = -1;
    if (pc.axes[d].step != 1 || !ir::isConst(pc.axes[d].start, &start[d])) return;
    if (start[d] <= -(1 << 30) || start[d] >= (1 << 30)) return;  // an int offset
    if (!ir::sameSize(pc.axes[d].count, x.extent[d], np)) return;
    if (!ir::isConst(pc.validLo[d], &lo) || lo != 0) return;
    if (!ir::sameSize(pc.validHi[d], ir::sizeSub(x.extent[d], ir::sizeConst(1)), np)) return;
  }
  bool shifted = false;
  for (long long v : start) shifted = shifted || v != 0;
  if (!shifted) return;  // already the whole image at its own points
  auto shiftedRead = std::make_shared<Expr>(*read);
  for (size_t d = 0; d < start.size(); ++d) shiftedRead->axes[d].offset = static_cast<int>(-start[d]);
  shiftedRead->mode = BoundaryMode::Constant;
  shiftedRead->constant = 0.0;
  for (size_t d = 0; d < pc.axes.size(); ++d) {
    pc.axes[d].start = ir::sizeConst(0);
    pc.axes[d].count = s.extent[d];
    pc.validHi[d] = ir::sizeSub(s.extent[d], ir::sizeConst(1));
  }
  pc.body.result = replaceRead(pc.body.result, read, shiftedRead);
}

}  // namespace

void placementReads(ir::Pipeline& p) {
  for (auto& s : p.stages) rewritePlacement(p, s);
}

}  // namespace formac::passes
