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
  // 48 KB where the halo allows, and cheap members are inlined.
  FusionOptions fusionOptions() const;
};

// Shared memory a CUDA block may use without the opt-in attribute, and the
// opt-in maximum of Hopper (the host checks the device's limit).
constexpr long long kCudaDefaultSharedBytes = 48 * 1024;
constexpr long long kCudaHopperSharedBytes = 227 * 1024;

}  // namespace formac::passes
