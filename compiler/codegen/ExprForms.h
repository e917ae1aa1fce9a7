// Facts about an expression that choose the form ExprPrinter prints it in:
// constants that are exact powers of two or odd integers, products that are
// exact, magnitudes bounded where the context bounds the reads. The printer
// decides the form; these only say what holds.
#pragma once

#include "codegen/ExprPrinter.h"

namespace formac::codegen {

// Whether `e` is a floating constant +-2^k, and k.
bool powerOfTwo(const ir::Expr& e, int* k);
// Whether `e` is a floating constant +-2^k whose reciprocal is a normal
// number of the operation's type (float when `f`), and that reciprocal.
bool exactReciprocal(const ir::Expr& e, bool f, double* recip);
// The divisor `e` when it is a float constant c, an odd integer with
// 3 <= |c| < 2^21: x / c is then formac_div_odd_f's three roundings,
// correctly rounded for every float x (divisionByOddConstant).
const ir::Expr* oddIntegerDivisor(const ir::Expr& e);
// `m` as c * x: c = +-2^k (0 <= k <= 20) and x a read the context bounds
// (ExprContext::boundedRead), both of m's floating type. Then c * x is exact.
const ir::Expr* scaledBoundedRead(const ir::Expr& m, const ExprContext& ctx, const ir::Expr** c);
// An upper bound on |e| in a context that bounds reads (ExprContext::
// boundedRead: below 2^100), +inf where unknown: constants, bounded reads and
// the +, -, *, negation and ?: of bounded operands, each op with a relative
// slack of 2^-20 for its rounding. Float only (the reads' bound is float's).
double magnitudeBound(const ir::Expr& e, const ExprContext& ctx);

}  // namespace formac::codegen
