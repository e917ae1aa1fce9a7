// Settle_CUDA: the kernel that settles a `do` loop that is a monotone
// propagation (passes/LocalFixpoint.h) on the GPU, one pass at a time.
//
// A block takes a tile of 64 x 64 points: it loads the tile and its halo
// into shared memory and recomputes the tile's points in place, with the
// loop's body, until a sweep changes none (its local fixed point); rows are
// swept downwards and upwards in turn. A tile that changed writes its points
// back and marks itself (at a border whose mode reads inside the image) and
// its 8 neighbours for the next pass; later passes take only marked tiles.
// The first pass takes every tile and also compares round 1's image with
// X<0>: the directions seen and the sum of |changes| go to the state, which
// the graph (Loop_CUDA.h) reads to stop, or to run the rounds one by one.
#pragma once

#include <string>
#include <vector>

#include "ir/Pipeline.h"
#include "passes/LocalFixpoint.h"

namespace formac::codegen {

constexpr int kSettleTile = 64;      // the tile's rows and columns
constexpr int kSettleThreads = 256;  // a block's threads: 4 rows of 64 at a time

struct SettleCuda {
  std::string kernel;  // the __global__ function
  // Which of the loop's reads, scalars and parameters the kernel takes after
  // x and x0 (in that order), before the state and the tile marks.
  std::vector<int> reads, scalars, params;
};

// `name`(x, x0, <reads, scalars, params>, state, marks).
SettleCuda settleKernelCuda(const ir::Loop& loop, const passes::LocalFixpoint& lf, const std::string& name);

}  // namespace formac::codegen
