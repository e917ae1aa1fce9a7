// The fused CPU form of a fusion group (seed 003 section 2.3, with Halide's
// sliding windows): the sink's extent is cut into tiles, bands of TH rows by
// strips of TW columns (the whole width while one thread's buffers fit in
// half the L2), which OpenMP threads take in turn. Down a tile, each stored
// member keeps a ring of its last rows and computes one new row per output
// row, as far ahead of it as its consumers read (boundary modes included);
// members that are cheap or read once are computed inside their consumers
// instead (InlineMembers.h). Only the first rows of a band are computed twice.
// Every rank: in rank 3 and 4 a "row" is a plane (the dimensions between the
// first and the last whole, the last cut into strips), so rings hold planes;
// rank 1 has no rows to slide along: each tile is a chunk of TW points, and
// each stored member computes its chunk widened by its halo once.
//
// Each stage's row is a function whose reads go through restrict pointers
// to the rows they read, cut into runs: zeros outside the valid box, checked
// runs where a boundary-mode read may leave its image, and a check-free run
// that gcc and clang vectorize.
#pragma once

#include <string>

#include "codegen/LoopNest.h"
#include "codegen/Naming.h"
#include "codegen/Stmt.h"
#include "ir/Pipeline.h"
#include "passes/FusionPlan.h"

namespace formac::codegen {

struct FusedGroupC {
  const ir::Pipeline* pipeline = nullptr;
  const Names* names = nullptr;
  const passes::FusionGroup* group = nullptr;
  bool openmp = true;
  std::string functionName;
  std::vector<Param> signature;  // the function's parameters up to the sink buffer and the sizes
  std::shared_ptr<ReadOutsideCache> outsideCache = std::make_shared<ReadOutsideCache>();  // the generator's
};

// The static C functions computing the group (one per stored stage's row,
// then the group's). Beyond `signature` the group's takes
// `unsigned char* scratch, size_t scratch_stride, int nthreads, long long TH, long long TW`.
std::string emitFusedGroupFunction(const FusedGroupC& g);

// C statements (for NAME_create) that choose the tile (TH rows, TW columns)
// for the group and the scratch bytes one thread needs for its rings; they
// assign the lvalues `th`, `tw` and `bytes` given as strings.
std::string emitTileChoice(const FusedGroupC& g, const std::string& th, const std::string& tw,
                           const std::string& bytes, const std::string& indent);

}  // namespace formac::codegen
