#include "passes/FuseReductions.h"

#include <memory>
#include <set>

#include "ir/Edges.h"
#include "passes/FusionPlan.h"
#include "passes/KernelEpilogue.h"
#include "passes/RemoveStages.h"

namespace formac::passes {
namespace {

using ir::Expr;
using ir::ExprPtr;

// The piece whose body gives the values a Reduce or Scan stage combines.
const ir::Piece& inputOf(const ir::Stage& s) { return s.kind == ir::Stage::Scan ? s.scan.input : s.reduction.input; }
ir::Piece& inputOf(ir::Stage& s) { return s.kind == ir::Stage::Scan ? s.scan.input : s.reduction.input; }

// `e` with reads of `stage` replaced by `with` and locals shifted by `shift`.
ExprPtr rewrite(const ExprPtr& e, int stage, const ExprPtr& with, int shift) {
  return ir::rebuildExpr(e, [&](const Expr& n) -> ExprPtr {
    if (n.kind == Expr::ImageRead && n.producer == stage) return with;
    if (n.kind != Expr::Local || shift == 0) return nullptr;
    auto copy = std::make_shared<Expr>(n);
    copy->local += shift;
    return copy;
  });
}

// A producer of reduction or scan `r` that may be absorbed into it, or -1. Stages in
// `dead` were absorbed already: their reads no longer count.
int absorbable(const ir::Pipeline& p, const ir::Stage& r, const std::vector<ir::Edge>& edges,
               const std::set<int>& dead, bool forEpilogues) {
  std::set<int> outputs(p.outputs.begin(), p.outputs.end());
  std::set<int> candidates, refused;
  ir::forEachExpr(inputOf(r).body, [&](const Expr& e) {
    if (e.kind == Expr::IndexRead) refused.insert(e.producer);
    if (e.kind != Expr::ImageRead) return;
    (readsOwnPoint(e) && e.field < 0 ? candidates : refused).insert(e.producer);
  });
  for (int c : candidates) {
    const ir::Stage& s = p.stages[static_cast<size_t>(c)];
    if (refused.count(c) || outputs.count(c) || s.kind != ir::Stage::Computed || !coversWholeExtent(p, s)) continue;
    if (forEpilogues && keepsStencilForEpilogue(p, r, c)) continue;
    bool onlyHere = true;
    for (const auto& e : edges)
      onlyHere = onlyHere && (e.producer != c || e.consumer == r.id || dead.count(e.consumer));
    if (onlyHere) return c;
  }
  return -1;
}

void absorb(ir::Pipeline& p, int reduction, int producer) {
  const ir::Body& from = p.stages[static_cast<size_t>(producer)].pieces[0].body;
  ir::Body& into = inputOf(p.stages[static_cast<size_t>(reduction)]).body;
  ir::Body merged;
  merged.lets = from.lets;
  int at = static_cast<int>(merged.lets.size());
  merged.lets.push_back(ir::Let{p.stages[static_cast<size_t>(producer)].name, from.result->type, from.result});
  auto value = std::make_shared<Expr>();
  value->kind = Expr::Local;
  value->type = from.result->type;
  value->local = at;
  for (const auto& l : into.lets)
    merged.lets.push_back(ir::Let{l.name, l.type, rewrite(l.value, producer, value, at + 1)});
  merged.result = rewrite(into.result, producer, value, at + 1);
  into = std::move(merged);
}

}  // namespace

void fuseReductions(ir::Pipeline& p, bool forEpilogues) {
  std::set<int> dead;
  for (bool changed = true; changed;) {
    changed = false;
    std::vector<ir::Edge> edges = ir::collectEdges(p);
    for (const auto& s : p.stages) {
      if (s.kind != ir::Stage::Reduce && s.kind != ir::Stage::Scan) continue;
      int producer = absorbable(p, s, edges, dead, forEpilogues);
      if (producer < 0 || dead.count(producer)) continue;
      absorb(p, s.id, producer);
      dead.insert(producer);
      changed = true;
      break;
    }
  }
  if (!dead.empty()) removeStages(p, dead);
}

}  // namespace formac::passes
