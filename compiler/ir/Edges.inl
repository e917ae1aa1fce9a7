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

}  // namespace formac::ir
