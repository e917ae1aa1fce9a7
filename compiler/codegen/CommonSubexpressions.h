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

// Binds every compound index of a directly indexed read with no mode or a
// constant one (`W[i + 1, cast<int>(X)]`) to a new let before the let (or
// result) that reads, innermost first; returns how many lets were added. The
// printed read tests its indices for range and then reads with them: left in
// place, each index would be printed twice, and a read indexed by such a read
// four times, so nested reads grew the code exponentially (a random program of
// 3 KB gave 38 MB of C). The index is then computed where the read's `?:` did
// not ask for it, which changes no value: every operation formac prints is
// total (integer division by 0 gives 0, integer arithmetic wraps, float-to-int
// conversion is defined everywhere; reads are resolved, guarded or in range at
// every point of the loop).
int bindReadIndices(ir::Body& b);

}  // namespace formac::codegen
