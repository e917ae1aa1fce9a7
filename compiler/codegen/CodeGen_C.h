// CodeGen_C: the pipeline IR -> C99 with OpenMP (`--print-c`, `--target=openmp`).
//
// Unfused: one loop nest per stage piece, the outer loop parallel. Each
// piece's valid box is split along the innermost dimension into check-free
// interior runs and border runs that resolve boundary modes. Intermediates
// live in a workspace (create / run / destroy); the Forma entry point keeps
// one cached workspace between calls of the same size.
#pragma once

#include <string>

#include "ir/Pipeline.h"

namespace formac::codegen {

struct COptions {
  std::string kernelName;
  std::string sourcePath;   // for comments
  bool openmp = true;
};

struct GeneratedC {
  std::string source;  // the .c file
  std::string header;  // the .h file
};

GeneratedC generateC(const ir::Pipeline& p, const COptions& options);

}  // namespace formac::codegen
