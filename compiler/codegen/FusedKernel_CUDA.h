// The fused CUDA kernel of one FusionPlan group (seed 003, Algorithm 1):
// one block per sink tile; members with a tile are computed over their
// halo-extended regions into shared memory, inlined members are recomputed
// where they are read, and the sink writes every point of its tile.
#pragma once

#include <string>

#include "codegen/LoopNest.h"
#include "codegen/Naming.h"
#include "ir/Pipeline.h"
#include "passes/FusionPlan.h"

namespace formac::codegen {

constexpr int kCudaThreads = 256;  // threads per block of every kernel
// Heavy fused kernels (the sweep) are also built for this many resident
// blocks per SM (40 registers a thread); create() picks that form when
// ptxas kept it free of spills (harris: 48 -> 40 registers, 3% faster;
// canny's spills, so it keeps its 64).
constexpr int kTightBlocks = 6;

struct FusedKernelRequest {
  const ir::Pipeline* pipeline = nullptr;
  const Names* names = nullptr;
  const passes::FusionGroup* group = nullptr;
  std::string kernelName;
  std::string params;      // the kernel's parameter list (index type I)
  std::string sourcePath;  // for the stage comments
};

std::string fusedKernelSource(const FusedKernelRequest& r);

// Dynamic shared memory of the group's kernel, in bytes (tiles 16-byte aligned).
long long fusedSharedBytes(const ir::Pipeline& p, const passes::FusionGroup& g);

// The statements of one point at (q0, q1, ...): check-free where every
// boundary-mode read is in range (fast_lo/fast_hi), resolved elsewhere.
std::string cudaPointCode(const LoopNestOptions& lo, bool fast, const std::string& ind);

}  // namespace formac::codegen
