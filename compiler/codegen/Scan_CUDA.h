// The CUDA kernels of a Scan stage (ir/Pipeline.h: scan and sat) and the host
// code that launches them. Floating scans follow ir's floating Scan order bit
// for bit (runs of ir::kScanRun values; run prefixes combined as aligned
// balanced groups), so the results equal the evaluator's; integer scans add
// in int64, modulo 2^64, through the same kernels.
//
// Method: a deterministic single-pass scan in the spirit of decoupled
// look-back (Merrill and Garland). One kernel per scanned dimension (sat:
// the last first, then down to 0). Each thread takes one run of 8 values
// along a line and adds them sequentially from +0.0 (the run's prefixes l[i]
// stay in registers). A block's runs form a tile; the block up-sweeps its
// run totals in shared memory (G of every aligned group inside the tile).
// Tiles are taken in order from a counter (atomicAdd), so every earlier tile
// is running or done. When a line spans several tiles, tile t publishes the
// groups that end at it (its own total, then the groups of 2, 4, ... tiles
// whose last tile it is, each its left half, published by an earlier tile,
// plus its right half) with a flag per group (value, __threadfence, flag;
// flags reset per pass by cudaMemsetAsync), and its carry E[first run] is
// the published groups of the bits of t, largest first, added left to right
// from +0.0: exactly the recursion E[r] = E[r - b] + G(r - b, b). A run's
// E is then the carry plus the tile's groups of its bits, and each value is
// E + l[i], converted to the stage's type on the last pass.
//
//  * Along the last dimension (contiguous lines): 256 threads, a tile of 256
//    runs of one line; lines shorter than that share a tile, each in a
//    segment of a power-of-two number of runs.
//  * Along an earlier dimension (strided lines): 32 x 8 threads, a tile of
//    32 consecutive columns x 8 runs down each; a warp's loads are 32
//    consecutive columns of one row (coalesced); the look-back is per column.
//
// Between the passes of a sat the values stay in the accumulation type in a
// scratch buffer of the workspace (every pass reads and writes its own
// points, so in place).
#pragma once

#include <string>

#include "codegen/LaunchSchedule.h"
#include "codegen/Naming.h"
#include "ir/Pipeline.h"

namespace formac::codegen {

struct ScanCuda {
  const ir::Pipeline* pipeline = nullptr;
  const ir::Stage* stage = nullptr;  // a Scan stage
  const Names* names = nullptr;
  std::string name;         // the stem of its kernels' names
  std::string inputParams;  // kernel parameters of the images and scalars it reads ("" if none)
  std::vector<HostArg> inputs;  // the host's arguments for them
  // Its scratch in the schedule: every point in the accumulation type
  // (scanNeedsValues), the published groups (scanGroupCountCuda elements),
  // the tile counter and a flag per group (1 + scanGroupCountCuda).
  int values = -1, groups = -1, flags = -1;
};

// The accumulation type's C spelling: "double" or "unsigned long long".
std::string scanAccumulationType(const ir::Stage& s);
// Whether the stage scans more than one dimension (values kept between passes).
bool scanNeedsValues(const ir::Stage& s);
// The stage's points, and the most groups one of its passes publishes.
HostExpr scanPointsCuda(const ir::Stage& s);
HostExpr scanGroupCountCuda(const ir::Stage& s);

// The helpers every scan uses (once per file, after the common prelude):
// tile counts, the look-back.
std::string scanPreludeCuda();
// The kernels (templates over the index type I, as the other kernels).
std::string emitScanKernelsCuda(const ScanCuda& s);
// The host's steps enqueuing them (LaunchSchedule.h), in a block; the
// kernels join `s`.
HostStep scheduleScanCuda(const ScanCuda& c, LaunchSchedule& s);

}  // namespace formac::codegen
