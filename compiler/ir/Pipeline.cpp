#include "ir/Pipeline.h"

#include <functional>

namespace formac::ir {

const char* binOpSpelling(BinOp op) {
  switch (op) {
    case BinOp::Add: return "+";
    case BinOp::Sub: return "-";
    case BinOp::Mul: return "*";
    case BinOp::Div: return "/";
    case BinOp::Mod: return "%";
    case BinOp::Pow: return "pow";
    case BinOp::Lt: return "<";
    case BinOp::Gt: return ">";
    case BinOp::Le: return "<=";
    case BinOp::Ge: return ">=";
    case BinOp::Eq: return "==";
    case BinOp::Ne: return "!=";
    case BinOp::And: return "&&";
    case BinOp::Or: return "||";
  }
  return "?";
}

const char* mathFnName(MathFn f) {
  switch (f) {
    case MathFn::Sqrt: return "sqrt";
    case MathFn::Exp: return "exp";
    case MathFn::Log: return "log";
    case MathFn::Pow: return "pow";
    case MathFn::Sin: return "sin";
    case MathFn::Cos: return "cos";
    case MathFn::Tan: return "tan";
    case MathFn::Atan: return "atan";
    case MathFn::Atan2: return "atan2";
    case MathFn::Fabs: return "fabs";
    case MathFn::Abs: return "abs";
    case MathFn::Absd: return "absd";
    case MathFn::Min: return "min";
    case MathFn::Max: return "max";
    case MathFn::Floor: return "floor";
    case MathFn::Ceil: return "ceil";
    case MathFn::Round: return "round";
  }
  return "?";
}

void dropUnusedLets(Body& b) {
  std::vector<bool> needed(b.lets.size(), false);
  std::function<void(const Expr&)> mark = [&](const Expr& e) {
    if (e.kind == Expr::Local && !needed[static_cast<size_t>(e.local)]) {
      needed[static_cast<size_t>(e.local)] = true;
      mark(*b.lets[static_cast<size_t>(e.local)].value);
    }
    for (const auto& a : e.args) mark(*a);
  };
  mark(*b.result);
  std::vector<int> renumber(b.lets.size(), -1);
  std::vector<Let> kept;
  for (size_t i = 0; i < b.lets.size(); ++i) {
    if (!needed[i]) continue;
    renumber[i] = static_cast<int>(kept.size());
    kept.push_back(b.lets[i]);
  }
  if (kept.size() == b.lets.size()) return;
  std::function<ExprPtr(const ExprPtr&)> relink = [&](const ExprPtr& e) -> ExprPtr {
    std::vector<ExprPtr> args;
    bool changed = false;
    for (const auto& a : e->args) {
      args.push_back(relink(a));
      changed = changed || args.back() != a;
    }
    bool local = e->kind == Expr::Local && renumber[static_cast<size_t>(e->local)] != e->local;
    if (!changed && !local) return e;
    auto c = std::make_shared<Expr>(*e);
    c->args = std::move(args);
    if (local) c->local = renumber[static_cast<size_t>(e->local)];
    return c;
  };
  for (auto& l : kept) l.value = relink(l.value);
  b.result = relink(b.result);
  b.lets = std::move(kept);
}

std::vector<std::string> Pipeline::paramNames() const {
  std::vector<std::string> names;
  for (const auto& p : params) names.push_back(p.name);
  return names;
}

std::string displayName(const Stage& s) {
  bool generated = s.name.rfind("_t", 0) == 0 && !s.origin.empty();
  return generated ? s.origin : "'" + s.name + "'";
}

}  // namespace formac::ir
