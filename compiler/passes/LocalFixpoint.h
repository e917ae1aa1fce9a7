// prove-local-fixpoint: decides which `do` loops may iterate inside tiles to a
// local fixed point before their global step (issue 29), and proves why.
//
// A loop qualifies when it is a monotone propagation:
//  * it carries one rank-2 image X of an integer type, and its condition is
//    any(X<i> != X<i-1>) (directly or through a stage computing the test);
//  * its body computes X<i> in one piece over the whole image (through
//    stages of its own that X<i> reads at the point, inlined: LoopStep.h),
//    from X<i-1> read at constant offsets with boundary mode constant,
//    clamped, extend or mirror (or none at offset 0), and from anything that
//    does not change between rounds (the loop's outer images, scalars);
//  * X<i> = f(X<i-1>) is monotone: x <= y point by point implies
//    f(x) <= f(y). Proved either by a polarity analysis of the body (min,
//    max, sums, non-negative products and comparisons of non-decreasing
//    terms, with an interval analysis showing that no conversion wraps and no
//    operation overflows), or, for a body that reads nothing but X, by
//    evaluating it on every combination of the values X can ever hold (the
//    values of X<0>, found by a value-set analysis of its stage, the
//    boundary constants, and whatever f makes of them, closed under f).
//
// What the backends then do, and why the results never change: round 1 runs
// as written (X1 = f(X0)). If X1 >= X0 everywhere (or <= everywhere), the
// Jacobi rounds X<k> = f^k(X0) increase (decrease) monotonically to the least
// fixed point F above X0 (the greatest below), and any schedule that updates
// points one at a time in place with f, in any order, from X1, reaches the same
// F (chaotic iteration of a monotone operator from a post-fixed point). Each
// Jacobi round before the last changes at least one point by at least 1, so
// the written loop stops at F within B = sum |F - X0| changing rounds: when
// the round limit R >= B, the loop's result is F. The backends measure the
// direction after round 1 and B as they go; a mixed direction or B > R runs the
// rounds one by one from X0 instead. A *selective* f (every value depending on
// X a read of it, a min, a max, a ?: on a condition that does not depend on X,
// or a value-keeping conversion: reconstruction, geodesic dilation) commutes
// with thresholds: for each level t, [X<k> >= t] runs a monotone Boolean
// network, which changes in consecutive rounds only, each flipping a point
// for good; so the loop needs at most B = count(F != X0) changing rounds, the
// bound used then. docs/language-decisions.md says this for users.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "ir/Pipeline.h"

namespace formac::passes {

struct LocalFixpoint {
  bool ok = false;
  std::string why;    // ok: the proof ("monotone: ..."); else why not
  int carried = -1;   // the body's Input stage holding X<i-1>
  int next = -1;      // the body's stage computing X<i>
  ir::Body body;      // X<i>'s value at a point, the stages computed for it inlined (LoopStep.h)
  std::vector<std::array<int, 2>> taps;  // the offsets f reads X<i-1> at, distinct
  int radius = 0;     // the largest |offset| of a tap
  BoundaryMode mode = BoundaryMode::Constant;  // of the taps off the centre
  double constant = 0.0;                       // mode Constant: the value
  bool selective = false;  // the rounds' bound counts the points changed, not their changes' sum
  // Proved by enumeration: the values a point keeps whatever its neighbours
  // hold (canny's 0 and 2: only a weak edge changes). A point holding one
  // never changes, so the settling never needs to recompute it.
  std::vector<long long> stable;
};

// The decision for the loop whose first LoopResult stage is `first` in
// pipeline `outer` (whose stages give X<0>).
LocalFixpoint analyseLocalFixpoint(const ir::Pipeline& outer, const ir::Stage& first);

}  // namespace formac::passes
