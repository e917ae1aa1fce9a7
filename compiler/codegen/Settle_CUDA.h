// Settle_CUDA: the kernel that settles a `do` loop that is a monotone
// propagation (passes/LocalFixpoint.h) on the GPU, one pass at a time.
//
// A block takes a tile of 64 x 64 points: it loads the tile and its halo
// (outside the image: what a read there gives) into shared memory and
// recomputes the tile's points in place, with the loop's body, until a
// sweep changes none (its local fixed point). A sweep gives each thread a run
// of 16 points, along rows and along columns in turn, forwards and backwards
// in turn (recomputing only the points near a change of the sweep before,
// tracked by 64-bit row and column masks, was slower: 1.76 against 1.43 ms
// for canny_opencv at 8192² on the H100, as it stops a change spreading along
// other threads' runs within a sweep). A tile that changed writes
// its points back and marks its 8 neighbours (and itself at a border whose
// mode reads inside the image) for the next pass; a pass takes only marked
// tiles. Before the first, formac_settle_measure (Loop_CUDA.cpp) compares
// round 1's image with X<0>: the directions seen and the sum of |changes| go
// to the state, which the graph reads to stop or to run the rounds one by
// one, and the tiles around a change are marked.
#pragma once

#include <string>
#include <vector>

#include "codegen/SettleBody.h"
#include "codegen/Stmt.h"
#include "ir/Pipeline.h"
#include "passes/LocalFixpoint.h"

namespace formac::codegen {

constexpr int kSettleTile = 64;      // the tile's rows and columns
constexpr int kSettleThreads = 256;  // a block's threads: 4 rows of 64 at a time

struct SettleCuda {
  Stmt kernel;             // the __global__ function, after its comment
  SettleParameters takes;  // what the kernel takes after x, before the state and the tile marks
};

// `name`(x, [x0 when lf.selective], <reads, scalars, params>, state, marks).
SettleCuda settleKernelCuda(const ir::Loop& loop, const passes::LocalFixpoint& lf, const std::string& name);

}  // namespace formac::codegen
