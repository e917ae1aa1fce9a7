// Target: what the lowered pipeline is for, and the limits the passes plan
// within. The backends' options live here, not in the code generators.
#pragma once

#include "passes/FusionPlan.h"

namespace formac::passes {

struct Target {
  enum Kind { C, Cuda } kind = C;
  bool fuse = true;    // false: one loop nest (C) or kernel (CUDA) per stage (--no-fuse)
  bool openmp = true;  // C: the outer loops are OpenMP parallel loops

  static Target c(bool fuse = true, bool openmp = true) { return Target{C, fuse, openmp}; }
  static Target cuda(bool fuse = true) { return Target{Cuda, fuse, true}; }
  const char* name() const { return kind == C ? "c" : "cuda"; }

  // C: every rank from 1 to 4 fused; tiles of 64 x 512 points (rank 3 and 4:
  // 64 planes, the middle dimensions whole), sized for the cache at run time
  // (no on-chip budget). CUDA: stages join a group while their tiles fit Hopper's opt-in
  // shared memory at 32 x 64; the tile is then halved down to the default
  // 48 KB where the halo allows, and cheap members are inlined. Ranks 1, 3
  // and 4 fuse too, their tiles chosen per group from the members' reach
  // (TileShape.h); lone stencils that read neighbours are tiled, in every rank.
  FusionOptions fusionOptions() const;
};

// Shared memory a CUDA block may use without the opt-in attribute, and the
// opt-in maximum of Hopper (the host checks the device's limit).
constexpr long long kCudaDefaultSharedBytes = 48 * 1024;
constexpr long long kCudaHopperSharedBytes = 227 * 1024;
// The operations a point of a fused CUDA group may compute, all its stages
// together (FusionOptions::maxGroupOperations): nvcc's time grows faster
// than the kernel (its copies of each body: the sweep's 8 points, the border
// rectangle's 4, the checked frame, in 4 instantiations), so long chains are
// cut into kernels of this size. 20 Perona-Malik steps (54 operations each)
// took 94 s in one group of 15 and one of 5; see tests/gpu/rankfusion.
constexpr int kCudaMaxGroupOperations = 400;
// Groups above this many operations a point get compact kernels
// (FusionGroup::compact): canny's group computes 167, harris's 115.
constexpr int kCudaCompactOperations = 200;
// FusionOptions::maxRecomputedCostly and compactCostly on the GPU.
constexpr double kCudaMaxRecomputedCostly = 1.0;
constexpr int kCudaCompactCostly = 8;

}  // namespace formac::passes
