#include "passes/Lower.h"

#include "eval/Evaluator.h"
#include "passes/FoldCrops.h"
#include "passes/FuseReductions.h"
#include "passes/KernelEpilogue.h"
#include "passes/PlacementReads.h"

namespace formac::passes {
namespace {

// Both targets: a folded infinity or NaN is printed as INFINITY or NAN, which
// <math.h> defines for C and nvcc, and the NVRTC source itself (CodeGen_CUDA).
void foldConstantsPass(LoweredPipeline& l) { eval::foldConstants(l.pipeline); }

void placementReadsPass(LoweredPipeline& l) {
  if (l.target.fuse) placementReads(l.pipeline);
}

void foldCropsPass(LoweredPipeline& l) {
  if (l.target.fuse) foldCrops(l.pipeline);
}

void fuseReductionsPass(LoweredPipeline& l) {
  if (l.target.fuse) fuseReductions(l.pipeline, l.target.kind == Target::Cuda);
}

void kernelEpiloguePass(LoweredPipeline& l) {
  if (l.target.kind == Target::Cuda && l.target.fuse) planKernelEpilogues(l.pipeline, l.groups);
}
void proveLocalFixpointPass(LoweredPipeline& l) {
  for (const auto& s : l.pipeline.stages)
    if (s.kind == ir::Stage::LoopResult && s.loopIndex == 0)
      l.localFixpoints[s.id] = analyseLocalFixpoint(l.pipeline, s);
}

void planFusionPass(LoweredPipeline& l) {
  l.groups = planFusion(l.pipeline, l.target.fusionOptions(), &l.whyMaterialised);
  l.planned = true;
}

}  // namespace

const std::vector<Pass>& passList() {
  static const std::vector<Pass> passes = {
      {"fold-constants",
       "every operation whose operands are constants is a constant, computed as the "
       "evaluator computes it (gcc and nvcc would fold them their own way)",
       foldConstantsPass},
      {"placement-reads",
       "with fusion on, a stage that places a whole image at an offset, zeros around it, reads "
       "that image at the shifted point with the constant-0 border over its whole extent",
       placementReadsPass},
      {"fold-crops",
       "with fusion on, a stage that copies a box of a stage only it reads computes that "
       "stage's points there itself, and the copied stage is removed",
       foldCropsPass},
      {"fuse-reductions",
       "with fusion on, a stage read only by a reduction or scan, at the point combined, is "
       "computed inside its loop and never stored",
       fuseReductionsPass},
      {"plan-fusion",
       "every computed stage is the sink of one group or a member of one, with its halo, the "
       "group's tile and which members are recomputed where they are read (seed 003)",
       planFusionPass},
      {"kernel-epilogue",
       "CUDA: a histogram of a rank-2 stencil's image, counted exactly, is counted by the "
       "stencil's tiled kernel as it computes each point, and the image is never stored",
       kernelEpiloguePass},
      {"prove-local-fixpoint",
       "every do loop is marked as a monotone propagation, whose rounds may run to a local "
       "fixed point inside tiles, or says why it is not one",
       proveLocalFixpointPass},
  };
  return passes;
}

LoweredPipeline lower(const ir::Pipeline& p, const Target& target,
                      const std::function<void(const Pass&, const LoweredPipeline&)>& after) {
  LoweredPipeline l;
  l.target = target;
  l.pipeline = p;
  for (const Pass& pass : passList()) {
    pass.run(l);
    if (after) after(pass, l);
  }
  return l;
}

}  // namespace formac::passes
