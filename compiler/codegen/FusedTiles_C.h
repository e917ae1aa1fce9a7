// The fused CPU form of a fusion group (seed 003 §2.3): the sink's extent is
// cut into tiles that OpenMP threads take in turn; for each tile every member
// is computed over its halo-extended region into the thread's own buffers,
// then the sink reads them and writes its points. The tile size is chosen at
// run time so that one thread's buffers fit in half of the L2 cache.
//
// Each row of a region is cut into runs: zeros outside the member's valid box,
// checked runs where a boundary-mode read may leave its image, and a
// check-free run that the C compiler vectorizes.
#pragma once

#include <string>

#include "codegen/Naming.h"
#include "ir/Pipeline.h"
#include "passes/FusionPlan.h"

namespace formac::codegen {

struct FusedGroupC {
  const ir::Pipeline* pipeline = nullptr;
  const Names* names = nullptr;
  const passes::FusionGroup* group = nullptr;
  bool openmp = true;
  std::string functionName;
  std::string signature;  // the function's parameters up to the sink buffer and the sizes
};

// The static C function computing the group. Beyond `signature` it takes
// `unsigned char* scratch, size_t scratch_stride, int nthreads, long long TH, long long TW`.
std::string emitFusedGroupFunction(const FusedGroupC& g);

// C statements (for NAME_create) that choose the tile (TH rows, TW columns)
// for the group and the scratch bytes one thread needs; they assign the
// lvalues `th`, `tw` and `bytes` given as strings.
std::string emitTileChoice(const FusedGroupC& g, const std::string& th, const std::string& tw,
                           const std::string& bytes, const std::string& indent);

}  // namespace formac::codegen
