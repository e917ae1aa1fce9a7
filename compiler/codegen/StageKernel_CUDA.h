// The CUDA kernels of an unfused stage (no group, not tiled): a grid-stride
// loop nest over each piece's box, stagePointsPerThread points a thread and
// pass along the last dimension, a block's width apart (so that each load
// and store of a warp stays contiguous, and a thread has that many loads in
// flight: one 1-byte point a thread moved an 8192² image at a quarter of the
// copy's speed on the H100, one float at 0.72 of it; 16 bytes a thread
// reach the copy: bench/gpu/experiments/points_per_thread.cu, figures in
// bench/gpu/canny_full/RESULTS.md).
//
// A stage whose pieces interleave on one lattice (latticeComposite: the
// four parity pieces of an up-sampled image, `@[(1,2),(0,2)] = ...`) gets a
// single kernel over the lattice instead, each thread computing every
// piece's point at its lattice index. Separate kernels would each write
// every other element: a 4-byte float at a stride of 8 bytes fills half of
// each 32-byte sector, and the memory merges the halves written by four
// launches by reading the sector back; one kernel writes both halves of a
// sector from neighbouring stores of a warp.
#pragma once

#include <functional>
#include <string>

#include "codegen/LoopNest.h"
#include "codegen/Naming.h"
#include "ir/Pipeline.h"

namespace formac::codegen {

// Whether the stage's pieces interleave on one lattice: two or more pieces,
// each dimension's step the same in every piece, some step above 1, and
// every start a constant in [0, step) (a residue of the lattice).
bool latticeComposite(const ir::Stage& s);

// Points a thread along the last dimension: 16 bytes of the narrowest
// element the stage reads or writes, at most 8 (1 for a wider struct).
int stagePointsPerThread(const ir::Pipeline& p, int sid);

struct StageKernelRequest {
  const ir::Stage* stage = nullptr;
  int pointsPerThread = 1;  // stagePointsPerThread
  const Names* names = nullptr;
  std::string comment;  // printed above each kernel
  std::vector<Param> params;  // the kernels' parameters (index type I)
  std::function<LoopNestOptions(const ir::Piece&)> options;  // a piece's loop-nest options
  std::function<std::string(size_t piece)> kernelName;      // latticeComposite: piece 0's only
};

// The stage's kernels: one per piece, or one for a lattice composite.
std::string stageKernelsCuda(const StageKernelRequest& r);

// Declarations of lo/hi (and fast_lo/fast_hi with `fast`) for a piece, as
// in the C backend, converted once to the kernel's index type I.
std::vector<Stmt> boxDeclarations(const LoopNestOptions& lo, bool fast);

}  // namespace formac::codegen
