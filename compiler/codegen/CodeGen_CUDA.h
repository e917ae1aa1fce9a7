// CodeGen_CUDA: the pipeline IR -> CUDA (`--print-cuda`, `--target=cuda`).
//
// The entry point takes host or device pointers (cudaPointerGetAttributes),
// keeps its device buffers between calls of the same size, and returns when
// the output is written. Errors of CUDA calls are reported on stderr and the
// call returns; nothing exits the process.
#pragma once

#include <string>

#include "ir/Pipeline.h"

namespace formac::codegen {

struct CudaOptions {
  std::string kernelName;
  std::string sourcePath;
  bool fuse = true;
};

struct GeneratedCuda {
  std::string source;  // the .cu file
  std::string header;  // the .h file
};

GeneratedCuda generateCuda(const ir::Pipeline& p, const CudaOptions& options);

}  // namespace formac::codegen
