#include "passes/RemoveStages.h"

#include <map>
#include <memory>

#include "ir/Edges.h"

namespace formac::passes {
namespace {

using ir::Expr;
using ir::ExprPtr;

ExprPtr renumber(const ExprPtr& e, const std::vector<int>& newId) {
  return ir::rebuildExpr(e, [&](const Expr& n) -> ExprPtr {
    bool reads = n.kind == Expr::ImageRead || n.kind == Expr::IndexRead;
    if (!reads || newId[static_cast<size_t>(n.producer)] == n.producer) return nullptr;
    auto copy = std::make_shared<Expr>(n);
    copy->producer = newId[static_cast<size_t>(n.producer)];
    return copy;
  });
}

}  // namespace

void removeStages(ir::Pipeline& p, const std::set<int>& dead) {
  std::vector<int> newId(p.stages.size(), -1);
  std::vector<ir::Stage> kept;
  for (auto& s : p.stages) {
    if (dead.count(s.id)) continue;
    newId[static_cast<size_t>(s.id)] = static_cast<int>(kept.size());
    kept.push_back(std::move(s));
  }
  for (auto& s : kept) {
    s.id = newId[static_cast<size_t>(s.id)];
    ir::forEachPiece(s, [&](ir::Piece& pc) {
      for (auto& l : pc.body.lets) l.value = renumber(l.value, newId);
      pc.body.result = renumber(pc.body.result, newId);
    });
  }
  // A loop's bindings name outer stages too: its results share one renumbered copy.
  std::map<const ir::Loop*, std::shared_ptr<const ir::Loop>> loops;
  for (auto& s : kept) {
    if (s.kind != ir::Stage::LoopResult) continue;
    std::shared_ptr<const ir::Loop>& copy = loops[s.loop.get()];
    if (!copy) {
      auto l = std::make_shared<ir::Loop>(*s.loop);
      for (auto* bindings : {&l->carried, &l->reads})
        for (auto& b : *bindings) b.outer = newId[static_cast<size_t>(b.outer)];
      copy = std::move(l);
    }
    s.loop = copy;
  }
  p.stages = std::move(kept);
  for (auto& in : p.inputs)
    if (in.kind == ir::EntryArg::Image) in.index = newId[static_cast<size_t>(in.index)];
  for (int& o : p.outputs) o = newId[static_cast<size_t>(o)];
}

}  // namespace formac::passes
