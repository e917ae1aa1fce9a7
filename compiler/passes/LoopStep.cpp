#include "passes/LoopStep.h"

#include <map>

#include "ir/Edges.h"

namespace formac::passes {
namespace {

using ir::Expr;
using ir::ExprPtr;

// `e` with its lets renumbered by `shift` and its reads of inlined stages
// made reads of their lets (`let`: stage -> let index).
ExprPtr rewrite(const ExprPtr& e, int shift, const std::map<int, int>& let) {
  if (e->kind == Expr::Local) {
    auto x = std::make_shared<Expr>(*e);
    x->local += shift;
    return x;
  }
  if (e->kind == Expr::ImageRead && let.count(e->producer)) {
    auto x = std::make_shared<Expr>();
    x->kind = Expr::Local;
    x->type = e->type;
    x->local = let.at(e->producer);
    return x;
  }
  std::vector<ExprPtr> args;
  bool changed = false;
  for (const auto& a : e->args) {
    args.push_back(rewrite(a, shift, let));
    changed = changed || args.back() != a;
  }
  if (!changed) return e;
  auto x = std::make_shared<Expr>(*e);
  x->args = std::move(args);
  return x;
}

// The body of a stage's piece appended to `out` (its lets, then its value as
// a let of the stage's type unless `last`).
void append(const ir::Stage& s, std::map<int, int>& let, ir::Body* out, bool last) {
  const ir::Body& b = s.pieces[0].body;
  const int shift = static_cast<int>(out->lets.size());
  for (const auto& l : b.lets) out->lets.push_back({l.name, l.type, rewrite(l.value, shift, let)});
  ExprPtr value = rewrite(b.result, shift, let);
  if (last) {
    out->result = value;
    return;
  }
  if (value->type != s.type) {  // the stored value: converted to the stage's type
    auto c = std::make_shared<Expr>();
    c->kind = Expr::Cast;
    c->type = s.type;
    c->args = {value};
    value = c;
  }
  let[s.id] = static_cast<int>(out->lets.size());
  out->lets.push_back({s.userName.empty() ? s.name : s.userName, s.type, value});
}

}  // namespace

bool readsAtCentre(const Expr& e, int producer) {
  if (e.kind != Expr::ImageRead || e.producer != producer || e.field >= 0 || !e.origin.empty() || e.firstDim != 0)
    return false;
  for (const auto& a : e.axes)
    if (a.offset != 0 || a.scale != 1) return false;
  return true;
}

bool wholeImage(const ir::Piece& pc, const std::vector<ir::Size>& ext, int params) {
  if (pc.axes.size() != ext.size()) return false;
  for (size_t d = 0; d < ext.size(); ++d) {
    long long v;
    if (!isConst(pc.axes[d].start, &v) || v != 0 || pc.axes[d].step != 1) return false;
    if (!ir::sameSize(pc.axes[d].count, ext[d], params)) return false;
    if (!isConst(pc.validLo[d], &v) || v != 0) return false;
    if (!ir::sameSize(pc.validHi[d], ir::sizeSub(ext[d], ir::sizeConst(1)), params)) return false;
  }
  return true;
}

bool flattenStep(const ir::Pipeline& body, int next, const std::set<int>& others, ir::Body* out, std::string* why) {
  const int params = static_cast<int>(body.params.size());
  std::set<int> inlined;
  for (const auto& s : body.stages) {
    if (s.kind == ir::Stage::Input || s.id == next || others.count(s.id)) continue;
    if (s.kind != ir::Stage::Computed || s.pieces.size() != 1 || s.type.isStruct() ||
        !wholeImage(s.pieces[0], s.extent, params)) {
      *why = "its body computes " + ir::describeStage(body, s.id) + ", which is not one piece over the whole image";
      return false;
    }
    inlined.insert(s.id);
  }
  // Every read of an inlined stage: by X<i> or another inlined stage, at the point.
  for (const auto& s : body.stages) {
    bool reader = s.id == next || inlined.count(s.id);
    bool ok = true;
    ir::forEachPiece(s, [&](const ir::Piece& pc) {
      ir::forEachExpr(pc.body, [&](const Expr& e) {
        if ((e.kind == Expr::ImageRead || e.kind == Expr::IndexRead) && inlined.count(e.producer))
          ok = ok && reader && readsAtCentre(e, e.producer);
      });
    });
    if (!ok) {
      *why = "a stage of its body is read other than by X<i> at the point it computes";
      return false;
    }
  }
  *out = ir::Body();
  std::map<int, int> let;
  for (const auto& s : body.stages)
    if (inlined.count(s.id)) append(s, let, out, false);
  append(body.stages[static_cast<size_t>(next)], let, out, true);
  return true;
}

}  // namespace formac::passes
