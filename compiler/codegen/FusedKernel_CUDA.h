// The fused CUDA kernel of one FusionPlan group (seed 003, Algorithm 1), or
// of a stencil tiled alone (FusionGroup::tiledAlone): one block per sink
// tile; members with a tile are computed over their halo-extended regions
// into shared memory, inlined members are recomputed where they are read,
// and the sink writes every point of its tile. Rank 2 (this file's writer):
// one pass or a register-tiled sweep, check-free interior blocks, staged
// inputs (FusedLayout_CUDA.h, FusedStaging_CUDA.h); other ranks:
// FusedKernelND_CUDA.h. What both share: FusedStages_CUDA.h.
#pragma once

#include <string>

#include "codegen/LoopNest.h"
#include "codegen/Naming.h"
#include "ir/Pipeline.h"
#include "passes/FusionPlan.h"

namespace formac::codegen {

constexpr int kCudaThreads = 256;  // threads per block of every kernel
// Heavy fused kernels (the sweep) are also built for these many resident
// blocks per SM (40 and 48 registers a thread), tightest first; create()
// runs the tightest form whose local memory (spills and stack frame) is at
// most kTightLocalBytes a thread, else ptxas's own choice. On the H100 (4x2
// sweep) harris and canny spill at 6 and run at 5, 5% and 8% faster than at
// 64 registers and at 6 with spills (32-40 bytes). ptxas sometimes gives the
// 5-blocks form an 8-byte frame and no spill (a register saved around the
// call of a division's or square root's slow path): canny ran that form 3%
// faster than the 4-blocks one it would otherwise fall to (bench/gpu/RESULTS.md).
constexpr int kTightBlocks[] = {6, 5};
constexpr int kTightLocalBytes = 8;

struct FusedKernelRequest {
  const ir::Pipeline* pipeline = nullptr;
  const Names* names = nullptr;
  const passes::FusionGroup* group = nullptr;
  std::string kernelName;
  std::vector<Param> params;  // the kernel's parameters (index type I)
  std::string sourcePath;  // for the stage comments
  // The generator's cache of which reads may leave their producer (one per
  // pipeline: its sample sizes cost a pass over every stage).
  std::shared_ptr<ReadOutsideCache> outsideCache = std::make_shared<ReadOutsideCache>();
};

std::string fusedKernelSource(const FusedKernelRequest& r);

// Dynamic shared memory of the group's kernel, in bytes (tiles 16-byte aligned).
long long fusedSharedBytes(const ir::Pipeline& p, const passes::FusionGroup& g);

}  // namespace formac::codegen
