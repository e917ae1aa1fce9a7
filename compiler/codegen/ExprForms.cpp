#include "codegen/ExprForms.h"

#include <cmath>
#include <limits>

namespace formac::codegen {

using ir::BinOp;
using ir::Expr;

bool powerOfTwo(const Expr& e, int* k) {
  if (e.kind != Expr::Const || !isFloating(e.type.scalar)) return false;
  int exp = 0;
  double m = std::frexp(e.floatValue, &exp);  // value = m * 2^exp, |m| in [0.5, 1)
  *k = exp - 1;
  return std::fabs(m) == 0.5;
}

bool exactReciprocal(const Expr& e, bool f, double* recip) {
  int k = 0;
  if (!powerOfTwo(e, &k)) return false;
  int limit = f ? 126 : 1022;
  if (k < -limit || k > limit) return false;
  *recip = std::ldexp(e.floatValue > 0 ? 1.0 : -1.0, -k);
  return true;
}

const Expr* oddIntegerDivisor(const Expr& e) {
  if (e.kind != Expr::Const || e.type.scalar != ScalarKind::Float) return nullptr;
  double m = std::fabs(e.floatValue);
  bool odd = m >= 3 && m < (1 << 21) && m == std::floor(m) && std::fmod(m, 2.0) == 1.0;
  return odd ? &e : nullptr;
}

const Expr* scaledBoundedRead(const Expr& m, const ExprContext& ctx, const Expr** c) {
  if (!ctx.boundedRead || m.kind != Expr::Binary || m.binOp != BinOp::Mul || !isFloating(m.type.scalar)) return nullptr;
  for (size_t i = 0; i < 2; ++i) {
    const Expr& k = *m.args[i];
    const Expr& x = *m.args[1 - i];
    int p = 0;
    if (!powerOfTwo(k, &p) || p < 0 || p > 20 || k.type.scalar != m.type.scalar || x.kind != Expr::ImageRead ||
        x.type.scalar != m.type.scalar || !ctx.boundedRead(x))
      continue;
    *c = &k;
    return &x;
  }
  return nullptr;
}

double magnitudeBound(const Expr& e, const ExprContext& ctx) {
  const double inf = std::numeric_limits<double>::infinity(), slack = 1 + std::ldexp(1.0, -20);
  if (!ctx.boundedRead || e.type.isStruct() || e.type.scalar != ScalarKind::Float) return inf;
  auto arg = [&](size_t i) { return magnitudeBound(*e.args[i], ctx); };
  switch (e.kind) {
    case Expr::Const: return std::fabs(e.floatValue);
    case Expr::ImageRead: return ctx.boundedRead(e) ? std::ldexp(1.0, 100) : inf;
    case Expr::Unary: return e.unOp == ir::UnOp::Neg ? arg(0) : inf;
    case Expr::Binary:
      if (e.binOp == BinOp::Add || e.binOp == BinOp::Sub) return (arg(0) + arg(1)) * slack;
      if (e.binOp == BinOp::Mul) return arg(0) * arg(1) * slack;
      return inf;
    case Expr::Select: return std::max(arg(1), arg(2));
    default: return inf;
  }
}

}  // namespace formac::codegen
