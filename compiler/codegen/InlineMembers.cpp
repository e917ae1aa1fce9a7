#include "codegen/InlineMembers.h"

#include <functional>
#include <memory>
#include <vector>

#include "codegen/StageFacts.h"
#include "ir/Edges.h"

namespace formac::codegen {
namespace {

using ir::Expr;
using ir::ExprPtr;

// `e` rebuilt bottom-up, with every node for which `f` returns non-null
// replaced by that (and not descended into).
template <typename F>
ExprPtr rewrite(const ExprPtr& e, const F& f) {
  if (ExprPtr r = f(*e)) return r;
  bool changed = false;
  std::vector<ExprPtr> args;
  for (const auto& a : e->args) {
    args.push_back(rewrite(a, f));
    changed = changed || args.back() != a;
  }
  if (!changed) return e;
  auto c = std::make_shared<Expr>(*e);
  c->args = std::move(args);
  return c;
}

template <typename F>
void rewriteBody(ir::Body& b, const F& f) {
  for (auto& l : b.lets) l.value = rewrite(l.value, f);
  b.result = rewrite(b.result, f);
}

bool reads(const ir::Piece& pc, int producer) {
  bool any = false;
  ir::forEachExpr(pc.body, [&](const Expr& e) {
    if ((e.kind == Expr::ImageRead || e.kind == Expr::IndexRead) && e.producer == producer) any = true;
  });
  return any;
}

// The reads of `producer` in a piece.
std::vector<const Expr*> readsOf(const ir::Piece& pc, int producer) {
  std::vector<const Expr*> out;
  ir::forEachExpr(pc.body, [&](const Expr& e) {
    if (e.kind == Expr::ImageRead && e.producer == producer) out.push_back(&e);
  });
  return out;
}

// The member's result with its lets written out, read at `at`: each of its
// reads (all at offset 0) takes the offsets and the boundary mode of `at`.
// Valid unless `at` reads a constant outside (the member's value there is
// the constant, not the member of constants).
ExprPtr valueAt(const ir::Piece& member, const Expr& at) {
  std::function<ExprPtr(const ExprPtr&)> expand = [&](const ExprPtr& e) {
    return rewrite(e, [&](const Expr& x) -> ExprPtr {
      if (x.kind == Expr::Local) return expand(member.body.lets[static_cast<size_t>(x.local)].value);
      if (x.kind != Expr::ImageRead) return nullptr;
      auto r = std::make_shared<Expr>(x);
      for (size_t d = 0; d < r->axes.size(); ++d) r->axes[d].offset = at.axes[d].offset;
      r->mode = at.mode;
      return r;
    });
  };
  return expand(member.body.result);
}

// Substitutes the pointwise member `id` at each of its reads in `c`.
void substitute(ir::Piece& c, int id, const ir::Piece& member) {
  rewriteBody(c.body, [&](const Expr& x) -> ExprPtr {
    return x.kind == Expr::ImageRead && x.producer == id ? valueAt(member, x) : nullptr;
  });
}

// Puts the member's lets and result in front of the lets of `c`, whose reads
// of it (all at offset 0) become the result's let.
void prependLets(ir::Piece& c, int id, const ir::Piece& member, const ir::Stage& stage, const std::string& name) {
  int shift = static_cast<int>(member.body.lets.size()) + 1;
  auto value = std::make_shared<Expr>();
  value->kind = Expr::Local;
  value->type = stage.type;
  value->local = shift - 1;
  rewriteBody(c.body, [&](const Expr& x) -> ExprPtr {
    if (x.kind == Expr::Local) {
      auto l = std::make_shared<Expr>(x);
      l->local += shift;
      return l;
    }
    if (x.kind != Expr::ImageRead || x.producer != id) return nullptr;
    if (x.field < 0) return value;
    auto f = std::make_shared<Expr>();
    f->kind = Expr::Field;
    f->type = x.type;
    f->field = x.field;
    f->args = {value};
    return f;
  });
  std::vector<ir::Let> lets = member.body.lets;
  lets.push_back(ir::Let{name, stage.type, member.body.result});
  lets.insert(lets.end(), c.body.lets.begin(), c.body.lets.end());
  c.body.lets = std::move(lets);
}

}  // namespace

InlinedGroup inlineMembers(const ir::Pipeline& p, const Names& names, const passes::FusionGroup& g) {
  InlinedGroup out;
  for (const auto& m : g.members) out.pieces[m.stage] = p.stages[static_cast<size_t>(m.stage)].pieces[0];
  out.pieces[g.sink] = p.stages[static_cast<size_t>(g.sink)].pieces[0];
  // Members in topological order: a member's own inlined producers are
  // already in its body when it is inlined in turn.
  for (const auto& m : g.members) {
    const ir::Stage& s = p.stages[static_cast<size_t>(m.stage)];
    const ir::Piece member = out.pieces.at(m.stage);
    std::vector<int> consumers;
    bool keepsOwnRead = false, offsetReads = false;  // keepsOwnRead: a read that substitution would change
    for (const auto& [id, pc] : out.pieces) {
      if (id == m.stage || !reads(pc, m.stage)) continue;
      consumers.push_back(id);
      for (const Expr* r : readsOf(pc, m.stage)) {
        keepsOwnRead = keepsOwnRead || r->mode == ir::BoundaryMode::Constant || r->field >= 0;
        for (const auto& a : r->axes) offsetReads = offsetReads || a.offset != 0;
      }
    }
    // Substitution computes the member at every point its consumers read:
    // only right where the member is computed everywhere (a member with no
    // reads left, such as `t = X@[-3,0]; return 1;`, may still have a
    // shrunk valid box, and 0 outside it).
    bool cheap = !s.type.isStruct() && passes::cheapPointwise(member) && coversExtent(p, s);
    if (cheap && !keepsOwnRead) {
      for (int c : consumers) substitute(out.pieces.at(c), m.stage, member);
    } else if (consumers.size() == 1 && !offsetReads && coversExtent(p, s)) {
      prependLets(out.pieces.at(consumers[0]), m.stage, member, s, names.stage[static_cast<size_t>(m.stage)]);
    } else {
      continue;
    }
    out.inlined.insert(m.stage);
    out.pieces.erase(m.stage);
  }
  return out;
}

}  // namespace formac::codegen
