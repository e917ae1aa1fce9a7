// kernel-epilogue (CUDA): a histogram of a rank-2 stencil's image is counted
// by the stencil's tiled kernel as it computes each point, and the image is
// never stored (issue 27: "a reduction of a computed image never writes that
// image to memory"; the histogram of a gradient).
//
// A group G takes Reduce stage R as its epilogue (FusionGroup::epilogue)
// when G's code is the rank-2 tiled kernel, R is a histogram whose input is
// exactly G's sink read at the point counted (no lets, no conversion), over
// the sink's whole extent, and nothing else reads the sink or returns it.
// Each point of the sink is computed once by that kernel, so the counts are
// the same as R's own loop over the stored image: integer counts do not
// depend on their order.
//
// fuse-reductions leaves such a stencil out of the histogram's loop
// (keepsStencilForEpilogue) so that this pass finds it; where the stencil
// does not get a tiled kernel after all, it is stored and counted as before.
#pragma once

#include <vector>

#include "ir/Pipeline.h"
#include "passes/FusionPlan.h"

namespace formac::passes {

// Whether fuse-reductions leaves `producer` out of reduction `r`'s loop for
// kernel-epilogue: r is a histogram of exactly `producer` at the point, and
// `producer` is a rank-2 stencil that reads a neighbour.
bool keepsStencilForEpilogue(const ir::Pipeline& p, const ir::Stage& r, int producer);

// Sets FusionGroup::epilogue where a group's kernel can count its sink.
void planKernelEpilogues(const ir::Pipeline& p, std::vector<FusionGroup>& groups);

// Whether `stage` is a sink that its kernel counts and never stores.
bool countedNotStored(const std::vector<FusionGroup>& groups, int stage);

// The group whose kernel counts Reduce stage `reduce`, or null.
const FusionGroup* epilogueGroupOf(const std::vector<FusionGroup>& groups, int reduce);

}  // namespace formac::passes
