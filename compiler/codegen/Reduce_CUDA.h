// The CUDA kernels of a Reduce stage (ir/Pipeline.h) and the host code that
// launches them, mirroring codegen/Reduce_C: the points in chunks of
// ir::kSumChunk, each reduced into a partial in a device scratch buffer, the
// partials then combined on the device, floating sums in ir's order
// (bit-identical to the evaluator), the rest in any order. The result stays
// in the stage's device buffer: nothing comes back to the host.
//
//  * Every point (dim = -1): one kernel, a warp per chunk, grid-stride.
//    Floating sums: lane j takes the chunk's points k = j mod 32 in
//    increasing k (the rule's lanes) and the lanes fold with
//    __shfl_down_sync, s = 16 .. 1 (the rule's pairwise fold), a partial a
//    chunk; the last block to finish (a ticket) combines the partials level
//    by level by the same rule (a warp per chunk of 2048 partials) and writes
//    the value in the stage's type. Other ops, whose value is the same in
//    any order: a warp accumulates all its chunks, a block folds into one
//    partial, the last block folds the blocks'. A point-wise input is read
//    16 bytes a lane (ReduceFlat_CUDA.h).
//  * Histograms, where and topk: Select_CUDA.h.
//  * Along dimension d: a thread per (output point, chunk of its line) and a
//    thread per output point combining its line's partials.
#pragma once

#include <string>

#include "codegen/LaunchSchedule.h"
#include "codegen/LoopNest.h"
#include "codegen/Naming.h"
#include "codegen/Stmt.h"
#include "ir/Pipeline.h"

namespace formac::codegen {

struct ReduceCuda {
  const ir::Pipeline* pipeline = nullptr;
  const ir::Stage* stage = nullptr;  // a Reduce stage
  const Names* names = nullptr;
  std::string name;         // the stem of its kernels' names
  std::vector<Param> inputParams;  // kernel parameters of the images and scalars it reads
  std::vector<HostArg> inputs;  // the host's arguments for them
  int partials = -1;        // its scratch in the schedule (reduceScratchCuda elements)
};

// The bytes of one of a Reduce stage's partials (its scratch's elements).
int reducePartialBytesCuda(const ir::Stage& s);
// The scratch a Reduce stage needs: this many elements of reducePartialType.
HostExpr reduceScratchCuda(const ir::Stage& s);
// The number of points of its reduced domain, for the choice of the kernels'
// index type (LaunchSchedule::indexedPoints).
HostExpr reduceDomainPoints(const ir::Stage& s);

// The kernels (templates over the index type I, as the other kernels).
std::string emitReduceKernelsCuda(const ReduceCuda& r);
// The host's steps enqueuing them (LaunchSchedule.h), in a block; the
// kernels join `s`.
HostStep scheduleReduceCuda(const ReduceCuda& r, LaunchSchedule& s);

// Pieces of these kernels that Select_CUDA.cpp and Scan_CUDA.cpp build on.
namespace reduce_cuda {
// In a kernel: the lattice indices (`prefix`0.., I) of the point formac_k,
// and moving them on by `step` points.
std::vector<Stmt> pointIndices(const ReduceCuda& r, const std::string& prefix = "q");
std::vector<Stmt> advance(const ReduceCuda& r, const std::string& prefix, const std::string& step);
// Declares formac_v, the value at q0.., and computes it (the fused input body).
std::vector<Stmt> pointValue(const ReduceCuda& r);
// `template <typename I> __global__ void NAME<suffix>(<inputs>, <params>,
// <parameters as I>) { body }`, `minBlocks` a multiprocessor when not 0.
Stmt kernel(const ReduceCuda& r, const std::string& suffix, std::vector<Param> params, std::vector<Stmt> body,
            int minBlocks = 0);
// In a kernel: the domain's extents formac_n0.. (I), formac_len and formac_chunks (long long).
std::vector<Stmt> domainDeclarations(const ReduceCuda& r);
// The options computing formac_v, the value of `domain` (domainStage of a
// Reduce or Scan stage) at q0.., in CUDA; `domain` outlives them.
LoopNestOptions pointOptions(const ir::Pipeline& p, const ir::Stage& domain, const Names& n);
// Declares formac_v and computes it, for any Reduce or Scan stage `s` (Scan_CUDA.cpp too).
std::vector<Stmt> pointValueOf(const ir::Pipeline& p, const ir::Stage& s, const Names& n);
// Host: the points combined into one value (formac_len), and the output
// points (formac_outs, along a dimension); values of `s`.
HostExpr hostLen(const ir::Stage& s);
HostExpr hostOuts(const ir::Stage& s);
// Host: a launch of the template `kernel` over (<inputs>, args, <parameters>).
HostStep hostLaunch(const ReduceCuda& r, LaunchSchedule& s, const std::string& kernel, HostExpr grid,
                    std::vector<HostArg> args, int threads = 256);
// A plain (non-template) kernel of the schedule.
int plainKernel(LaunchSchedule& s, const std::string& name);
}  // namespace reduce_cuda

}  // namespace formac::codegen
