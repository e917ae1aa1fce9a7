// The CUDA kernels of the Reduce stages that give a list (ir/Pipeline.h):
// histogram, where and topk, called from Reduce_CUDA for those ops. As there,
// the values come from the reduction's fused input body, the points go in
// chunks of ir::kSumChunk, a warp per chunk (lane j takes k = j mod 32), work
// areas live in the stage's device scratch, and everything runs on the
// caller's stream with nothing copied back to the host. Results are integers
// and equal the evaluator's whatever the order of the work.
//
//  * histogram: each block counts into histograms in shared memory (one per
//    warp when they fit, else one; more than 8192 bins: atomics straight
//    into the int64 result), each thread adding a run of equal bins at once,
//    so that every value in one bin costs no contention; the block's counts
//    are then added into the result, zeroed first. 8-bit values find their
//    bin in a table built per block in shared memory, 16-bit ones in a table
//    of the scratch; others compute it by the rule.
//  * where: one pass. A block takes the next tile of 8 chunks (a warp each)
//    from a counter; each lane marks its points that are not 0 in a 64-bit
//    word; the tile's count is published in a 16-byte {value, flag} word
//    and the points before the tile are counted by looking back over the
//    words of the tiles before it (Merrill and Garland's decoupled
//    look-back; integers, so no order to keep); each chunk then writes its
//    indices in order (ballot + popc). A second kernel writes -1 from the
//    total on.
//  * topk: a radix select on an order-preserving unsigned key (11-bit
//    digits from the top: a histogram of the digit among the points that
//    match the digits chosen so far, then a block picks the digit holding
//    the K-th best), which gives the K-th key T and how many of the points
//    with key T are taken. The points with a key above T are appended (at
//    most K), those with key T too when all are taken, else the first ones
//    in index order by a count per chunk, a scan and a write; the candidates
//    are then sorted by (key desc, index asc): one block's bitonic sort up
//    to 2048, a bitonic sort of the device beyond.
#pragma once

#include <string>
#include <vector>

#include "codegen/Reduce_CUDA.h"

namespace formac::codegen {

// Copies of a histogram a block counts into in shared memory: up to
// kLaneBins bins, 32 interleaved (bin b of lane j at [b * 32 + j]: a lane
// always hits its own bank, and no two lanes of a warp the same counter,
// whatever the values); up to 1024, a copy per warp; up to 8192, one per
// block; beyond, none (atomics straight into the result).
constexpr long long kLaneBins = 320;
int histogramCopies(long long bins);
// After a block's counting: its copies (`counts`, histogramCopies(bins) of
// them) summed per bin and added into the int64 result `out`, by threads
// from `thread` on in steps of `threads`.
std::vector<Stmt> histogramCountsAdded(long long bins, const std::string& counts, const std::string& out,
                                       const std::string& thread, const std::string& threads);

// A histogram's values counted in another kernel (a fused stencil's
// epilogue, passes/KernelEpilogue.h): `helpers` (device functions, named
// from `name`) give `bin`, the int bin of a value formac_x of the stage's
// element type, -1 when it is not counted (never, if `every`).
struct HistogramCounting {
  std::string helpers;
  std::string bin;
  bool every = false;
};
HistogramCounting histogramCounting(const ir::Stage& s, const std::string& name);

bool isSelection(ir::ReduceOp op);  // histogram, where, topk
// The scratch of such a stage: this many long long.
HostExpr selectScratchCuda(const ir::Stage& s);
std::string emitSelectKernelsCuda(const ReduceCuda& r);
HostStep scheduleSelectCuda(const ReduceCuda& r, LaunchSchedule& s);

}  // namespace formac::codegen
