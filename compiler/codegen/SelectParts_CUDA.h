// The pieces the CUDA kernels of the selections share (Select_CUDA.h:
// histogram, where and topk; SelectTopK_CUDA.cpp): the walk of the chunks,
// the host's sizes and arguments, a one-block scan of per-chunk counts.
#pragma once

#include <string>
#include <vector>

#include "codegen/Reduce_CUDA.h"

namespace formac::codegen::select_cuda {

std::string str(long long v);

ScalarKind elementOf(const ir::Stage& s);  // the element type of the values selected
std::string K(const ir::Stage& s);         // the stage's K (or bins) as a literal

// How a kernel goes through a chunk's points (chunkSteps, eachPoint).
struct Walk {
  std::vector<Stmt> chunk;  // starts a chunk (in eachPoint, it may `continue` to the next)
  std::vector<Stmt> point;  // runs at every step
  std::vector<Stmt> end;    // ends a chunk
  std::string done;         // (warp-uniform) once it holds, the chunk's steps stop
};
// Chunk formac_c's points, its warp's 32 lanes going through it together so
// that they can ballot: lane formac_j visits the points k = j mod 32,
// formac_in says whether its k is in the chunk and formac_x is then the
// value at k (else 0).
std::vector<Stmt> chunkSteps(const ReduceCuda& r, const Walk& w);
// The chunks of the domain, a warp per chunk, grid-stride (chunkSteps).
std::vector<Stmt> eachPoint(const ReduceCuda& r, const Walk& w);
std::vector<Stmt> eachPoint(const ReduceCuda& r, std::vector<Stmt> chunk, std::vector<Stmt> point,
                            std::vector<Stmt> end = {}, const std::string& done = "");
// A plain kernel's loop over i in [0, n).
std::string gridStride(const std::string& n);

// The host's values of a selection (hostSizes).
struct Sizes {
  int len, chunks, blocks;
};
Sizes hostSizes(const ReduceCuda& r, LaunchSchedule& s, std::vector<HostStep>& t, int blocksPerSm = 8);
HostExpr flatGrid(HostExpr n);
HostExpr perSm(int blocks);  // `blocks` for each SM of the device (at least one SM)
HostArg scratchAt(const ReduceCuda& r, HostExpr at = hc(0), const std::string& cast = "");
HostArg resultOf(const ReduceCuda& r, const std::string& cast = "");
HostArg val(HostExpr e);
HostArg intArg(long long v);
HostExpr positive(int v);

// A one-block kernel `<name>_scan`: counts[0..n) into exclusive offsets,
// counts[n] the total; and its launch over the scratch at `counts`.
std::string scanKernel(const ReduceCuda& r);
HostStep scanCounts(const ReduceCuda& r, LaunchSchedule& s, HostExpr counts, int chunks);

// topk (SelectTopK_CUDA.cpp).
std::string topkKernels(const ReduceCuda& r);
HostStep topkSchedule(const ReduceCuda& r, LaunchSchedule& s);
HostExpr topkScratch(const ir::Stage& s);

}  // namespace formac::codegen::select_cuda
