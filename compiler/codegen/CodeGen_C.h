// CodeGen_C: the pipeline IR -> C99 with OpenMP (`--print-c`, `--target=openmp`).
//
// Stencil chains that passes/FusionPlan groups are computed tile by tile with
// their intermediates in per-thread, cache-sized buffers (FusedTiles_C.h).
// Every other stage gets one loop nest per piece, the outer loop parallel;
// its valid box is split along the innermost dimension into check-free
// interior runs and border runs that resolve boundary modes. Materialised
// intermediates live in a workspace (create / run / destroy); the Forma entry
// point keeps one cached workspace between calls of the same size.
#pragma once

#include <string>

#include "ir/Pipeline.h"
#include "passes/Lower.h"

namespace formac::codegen {

struct COptions {
  std::string kernelName;
  std::string sourcePath;   // for comments
  // The target generateC lowers for (passes::Target::c); printC takes the
  // lowered pipeline's target instead.
  bool openmp = true;
  bool fuse = true;  // cache-tiled fusion of stencil chains (FusedTiles_C.h)
  // A loop's body inside its pipeline's file: only its functions and its
  // workspace's, all static (no includes, preludes or Forma entry point).
  bool embedded = false;
};

struct GeneratedC {
  std::string source;  // the .c file
  std::string header;  // the .h file
};

// Prints a pipeline lowered for the C target (passes::lower); decides nothing.
GeneratedC printC(const passes::LoweredPipeline& lowered, const COptions& options);

// Lowers `p` for passes::Target::c(options.fuse, options.openmp) and prints it.
GeneratedC generateC(const ir::Pipeline& p, const COptions& options);

}  // namespace formac::codegen
