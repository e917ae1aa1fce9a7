// fuse-reductions: a reduction (or a scan) of a computed image computes that
// image's points inside its own loop, so the image is never written to memory
// unless something else needs it (issue 27: the sum of a blurred image, a sum
// of squared differences; issue 28: the summed-area table of x * 2 - 1).
//
// A producer P is absorbed into a Reduce stage R when R's input reads it only
// at the point being reduced, no other stage reads it, it is not a result of
// the pipeline, and it is one piece that computes every point of its extent
// (start 0, step 1, the whole valid box): its lets and its value become lets
// of R's input, whose reads of P read that value, and P is removed (stage ids
// renumbered). A Scan stage (scan, sat) absorbs its producers the same way:
// its input piece is its whole domain, read at the point scanned. Repeated
// while something changes, so a chain of point-wise stages folds into the
// reduction or scan; a producer read at other offsets (the
// input of a blur) stays in memory. The values are the same: P's body, with
// its conversions, is evaluated at the same lattice point.
#pragma once

#include "ir/Pipeline.h"

namespace formac::passes {

// forEpilogues (CUDA): a rank-2 stencil that a histogram counts exactly is
// left out of its loop, for kernel-epilogue (KernelEpilogue.h).
void fuseReductions(ir::Pipeline& p, bool forEpilogues = false);

}  // namespace formac::passes
