// CudaLaunches: the CUDA backend's kernel names and its launch schedule
// (LaunchSchedule.h) for a pipeline lowered for CUDA: per fusion group, in
// order, a Block of the steps that launch its kernels (a fused group's tile
// kernel, an unfused stage's kernel per piece, a reduction's or a scan's
// kernels with their scratch). CodeGen_CUDA prints the steps of reductions
// and scans into the .cu's enqueue function (and the scratch into its
// workspace); `formac run --backend=cuda` interprets all of them.
#pragma once

#include <string>
#include <vector>

#include "codegen/LaunchSchedule.h"
#include "codegen/Naming.h"
#include "codegen/Reduce_CUDA.h"
#include "codegen/Scan_CUDA.h"
#include "passes/Lower.h"

namespace formac::codegen {

struct CudaProgram {
  const ir::Pipeline* pipeline = nullptr;  // lowered for CUDA
  const Names* names = nullptr;
  const std::vector<passes::FusionGroup>* groups = nullptr;
  std::string kernel;  // the entry point's name, the stem of every kernel's
};

std::string cudaFusedName(const CudaProgram& c, const passes::FusionGroup& g);
std::string cudaStageKernelName(const CudaProgram& c, int sink, size_t piece);
// A fused group's stages, the sink last.
std::vector<int> cudaGroupStages(const passes::FusionGroup& g);
// Heavy fused kernels also have int forms for kTightBlocks resident blocks
// per SM (FusedKernel_CUDA.h).
bool cudaHasTightForm(const passes::FusionGroup& g);

// The request for a Reduce or Scan stage's kernels (Reduce_CUDA.h,
// Scan_CUDA.h); with `sc`, its scratch joins that schedule.
ReduceCuda cudaReduceRequest(const CudaProgram& c, int sid, LaunchSchedule* sc);
ScanCuda cudaScanRequest(const CudaProgram& c, int sid, LaunchSchedule* sc);

LaunchSchedule cudaLaunchSchedule(const CudaProgram& c);

// In create(): each heavy fused kernel runs its form for the most resident
// blocks that ptxas kept (nearly) free of local memory (ws->formac_tight_K:
// those blocks, 0 for none).
std::string cudaTightForms(const CudaProgram& c);
// In create(): kernels above the default shared memory ask for the opt-in
// amount, after checking that the device has it; `fail` runs if not.
std::string cudaSharedMemoryOptIn(const CudaProgram& c, const std::string& fail);

}  // namespace formac::codegen
