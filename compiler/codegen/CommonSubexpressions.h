// Common subexpressions of a point body become lets, computed once.
//
// A stencil often repeats a test or a product: canny's thinning writes
// `ay <= 0.41421f * ax` and `gx * gy > 0` once for each of the two neighbours
// it picks. Left repeated, nvcc computes them twice and turns the nested `?:`
// around them into branches; as lets, every `?:` selects between values
// already computed, which compiles to selects.
//
// A repeated expression is hoisted when one of its occurrences is evaluated
// unconditionally (then evaluating it earlier changes nothing), or when it
// is safe to evaluate anywhere: floating-point arithmetic, comparisons and
// math functions of values already computed. Never speculated: reads (a read
// under `?:` may be out of range), integer arithmetic (overflow, division by
// zero) and float-to-integer conversions. Values do not change: the same
// operations run on the same operands, each rounded as before.
#pragma once

#include "ir/Pipeline.h"

namespace formac::codegen {

// Hoists repeated subexpressions of `b`'s lets and result into new lets, the
// largest first; returns how many lets were added. Lets keep their order; a
// new let goes right before the first let (or the result) that uses it.
int hoistCommonSubexpressions(ir::Body& b);

}  // namespace formac::codegen
