#pragma once

namespace formac::ir {

namespace detail {
template <typename F>
void visitExpr(const Expr& e, F& f) {
  f(e);
  for (const auto& a : e.args) visitExpr(*a, f);
}
}  // namespace detail

template <typename F>
void forEachExpr(const Body& body, F&& f) {
  for (const auto& l : body.lets) detail::visitExpr(*l.value, f);
  detail::visitExpr(*body.result, f);
}

template <typename F>
ExprPtr rebuildExpr(const ExprPtr& e, F&& f) {
  std::vector<ExprPtr> args;
  bool changed = false;
  for (const auto& a : e->args) {
    args.push_back(rebuildExpr(a, f));
    changed = changed || args.back() != a;
  }
  ExprPtr node = e;
  if (changed) {
    auto copy = std::make_shared<Expr>(*e);
    copy->args = std::move(args);
    node = copy;
  }
  ExprPtr replaced = f(*node);
  return replaced ? replaced : node;
}

}  // namespace formac::ir
