// The CUDA kernels of a Scan stage (ir/Pipeline.h: scan and sat) and the host
// code that launches them. Floating scans follow ir's floating Scan order bit
// for bit (runs of ir::kScanRun values; run prefixes combined as aligned
// balanced groups), so the results equal the evaluator's; integer scans add
// in int64, modulo 2^64, through the same kernels.
//
// Method: a deterministic single-pass scan in the spirit of decoupled
// look-back (Merrill and Garland). Persistent blocks take tiles in order
// from a counter (atomicAdd), so every earlier tile is running or done. A
// thread adds each of its runs of 8 values sequentially from +0.0; a tile
// up-sweeps its run totals in shared memory (G of every aligned group
// inside it). When a line spans several tiles, tile t publishes the groups
// that end at it (its own total, then the groups of 2, 4, ... tiles whose
// last tile it is: the published left half plus its right half), each as a
// 16-byte word {value, flag} written in one access (words reset per run by
// cudaMemsetAsync), and its carry E[first run] is the published groups of
// the bits of t, largest first, added left to right from +0.0: exactly
// E[r] = E[r - b] + G(r - b, b). Lanes of a warp wait for several groups at
// once (formac_scan_lookback), so no tile waits for a chain of waits. A
// run's E is then the carry plus the tile's groups of its bits, and each
// value is E + its run prefix (recomputed from the values in registers),
// converted to the stage's type on the last pass.
//
//  * Along the last dimension (contiguous lines): 256 threads, each 4 runs
//    (2 of 8-byte values), thread j taking runs j, j + 256, ...: a tile of
//    1024 runs (8192 values) of one line; lines shorter than that share a
//    tile, each in a segment of a power-of-two number of runs. A run of an
//    input image (and of the output) moves as 16-byte vectors when aligned.
//  * Along an earlier dimension (strided lines): 32 x 8 threads, a tile of
//    32 consecutive columns x 32 runs (16 of 8-byte values) down each; a
//    warp's loads are 32 consecutive columns of one row (coalesced); the
//    look-back per column, 8 lanes each.
//  * sat of an image (the last two dimensions of a volume): one pass. 16 x
//    16 threads, each an 8 x 8 block (a run along its rows and down its
//    columns at once), a tile of 128 x 128 points read once and written
//    once: the thread sums its rows, the tile up-sweeps them along each row,
//    the row carries come by look-back from the tiles to the left; then the
//    row-scanned values (E + prefix, recomputed) are summed down each
//    column, up-swept down the tile, and the column carries come from the
//    tiles above. Exactly ir's order: rows first, then columns, in the
//    accumulation type. Tiles go row-major, so both carries are of earlier
//    tiles.
//
// A sat of more than two dimensions keeps the values in the accumulation type
// in a scratch buffer of the workspace between its 2-D pass and the column
// passes of the earlier dimensions (every pass reads and writes its own
// points, so in place).
#pragma once

#include <string>

#include "codegen/LaunchSchedule.h"
#include "codegen/Naming.h"
#include "codegen/Stmt.h"
#include "ir/Pipeline.h"

namespace formac::codegen {

struct ScanCuda {
  const ir::Pipeline* pipeline = nullptr;
  const ir::Stage* stage = nullptr;  // a Scan stage
  const Names* names = nullptr;
  std::string name;         // the stem of its kernels' names
  std::vector<Param> inputParams;  // kernel parameters of the images and scalars it reads
  std::vector<HostArg> inputs;  // the host's arguments for them
  // Its scratch in the schedule: every point in the accumulation type
  // (scanNeedsValues), the published groups (scanGroupCountCuda words of
  // two elements: value and flag) and the tile counter (one element).
  int values = -1, groups = -1, counter = -1;
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
