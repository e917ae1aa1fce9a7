// Constant folding (Evaluator.h, foldConstants): every operation of constants
// replaced by the value the evaluator computes for it.
#include <cmath>
#include <cstring>

#include "eval/Evaluator.h"
#include "eval/Value.h"

namespace formac::eval {

using ir::Expr;
using namespace detail;

namespace {

// A Const node holding `v`, or null where C has no literal for it (a NaN
// other than x86's default one, +-0x...8..., which no operation on numbers
// makes).
ir::ExprPtr constNode(const Val& v, const Type& t) {
  auto c = std::make_shared<Expr>();
  c->kind = Expr::Const;
  c->type = t;
  if (isFloating(t.scalar)) {
    if (std::isnan(v.f)) {
      uint64_t bits;
      std::memcpy(&bits, &v.f, 8);
      if ((bits & 0x7fffffffffffffffULL) != 0x7ff8000000000000ULL) return nullptr;
    }
    c->floatValue = v.f;
  } else {
    c->intValue = v.i;
    c->floatValue = static_cast<double>(v.i);
  }
  return c;
}

// The values an integer expression can take: its type's, or, through a
// widening cast of an integer, the narrower type's.
void valueRange(const Expr& e, long long* lo, long long* hi) {
  integerRange(e.type.scalar, lo, hi);
  if (e.kind == Expr::Cast && !e.args[0]->type.isStruct() && !isFloating(e.args[0]->type.scalar)) {
    long long alo, ahi;
    valueRange(*e.args[0], &alo, &ahi);
    if (alo >= *lo && ahi <= *hi) *lo = alo, *hi = ahi;
  }
}

// A comparison of an integer expression with a constant outside the values
// the expression can take has one result whatever the expression's value
// (`(long long)i < LLONG_MIN`: false): that result as a constant, else null.
// (gcc's -Wtype-limits reports such a comparison printed as it is.)
ir::ExprPtr decidedComparison(const Expr& e, const std::vector<ir::ExprPtr>& args) {
  if (e.kind != Expr::Binary || e.type.isStruct() || args[0]->type.isStruct() || args[1]->type.isStruct())
    return nullptr;
  ir::BinOp op = e.binOp;
  bool comparison = op == ir::BinOp::Lt || op == ir::BinOp::Gt || op == ir::BinOp::Le || op == ir::BinOp::Ge ||
                    op == ir::BinOp::Eq || op == ir::BinOp::Ne;
  if (!comparison || isFloating(args[0]->type.scalar) || isFloating(args[1]->type.scalar)) return nullptr;
  bool constLeft = args[0]->kind == Expr::Const;
  if (constLeft == (args[1]->kind == Expr::Const)) return nullptr;
  const Expr& x = constLeft ? *args[1] : *args[0];
  long long k = constLeft ? args[0]->intValue : args[1]->intValue, lo, hi;
  valueRange(x, &lo, &hi);
  // The comparison as x OP k.
  if (constLeft) {
    if (op == ir::BinOp::Lt) op = ir::BinOp::Gt;
    else if (op == ir::BinOp::Gt) op = ir::BinOp::Lt;
    else if (op == ir::BinOp::Le) op = ir::BinOp::Ge;
    else if (op == ir::BinOp::Ge) op = ir::BinOp::Le;
  }
  int result;
  switch (op) {
    case ir::BinOp::Lt: if (k > hi) result = 1; else if (k <= lo) result = 0; else return nullptr; break;
    case ir::BinOp::Le: if (k >= hi) result = 1; else if (k < lo) result = 0; else return nullptr; break;
    case ir::BinOp::Gt: if (k < lo) result = 1; else if (k >= hi) result = 0; else return nullptr; break;
    case ir::BinOp::Ge: if (k <= lo) result = 1; else if (k > hi) result = 0; else return nullptr; break;
    case ir::BinOp::Eq: if (k < lo || k > hi) result = 0; else return nullptr; break;
    case ir::BinOp::Ne: if (k < lo || k > hi) result = 1; else return nullptr; break;
    default: return nullptr;
  }
  Val v;
  v.kind = e.type.scalar;
  v.i = result;
  v.f = result;
  return constNode(v, e.type);
}

ir::ExprPtr fold(const ir::ExprPtr& e, const std::vector<ir::ExprPtr>& lets) {
  if (e->kind == Expr::Local) {
    const ir::ExprPtr& v = lets.at(static_cast<size_t>(e->local));
    return v->kind == Expr::Const ? v : e;
  }
  std::vector<ir::ExprPtr> args;
  bool changed = false, constant = true;
  for (const auto& a : e->args) {
    args.push_back(fold(a, lets));
    changed = changed || args.back() != a;
    constant = constant && args.back()->kind == Expr::Const;
  }
  if (e->kind == Expr::Select && args[0]->kind == Expr::Const)
    return truthy(constVal(*args[0])) ? args[1] : args[2];
  bool op = e->kind == Expr::Unary || e->kind == Expr::Binary || e->kind == Expr::Call ||
            e->kind == Expr::Cast;
  if (op && constant && !e->type.isStruct()) {
    Val vals[3];
    FORMAC_INTERNAL_CHECK(args.size() <= 3, "an operation of more than 3 operands");
    for (size_t k = 0; k < args.size(); ++k) vals[k] = constVal(*args[k]);
    if (ir::ExprPtr c = constNode(applyOp(*e, vals, args.size()), e->type)) return c;
  }
  if (ir::ExprPtr decided = decidedComparison(*e, args)) return decided;
  if (!changed) return e;
  auto c = std::make_shared<Expr>(*e);
  c->args = std::move(args);
  return c;
}

}  // namespace

void foldConstants(ir::Body& b) {
  std::vector<ir::ExprPtr> lets;
  for (auto& l : b.lets) {
    l.value = fold(l.value, lets);
    lets.push_back(l.value);
  }
  b.result = fold(b.result, lets);
  ir::dropUnusedLets(b);
}

void foldConstants(ir::Pipeline& p) {
  for (auto& s : p.stages) ir::forEachPiece(s, [](ir::Piece& pc) { foldConstants(pc.body); });
}

}  // namespace formac::eval
