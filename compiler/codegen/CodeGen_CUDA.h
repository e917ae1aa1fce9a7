// CodeGen_CUDA: the pipeline IR -> CUDA (`--print-cuda`, `--target=cuda`).
//
// The entry point takes host or device pointers (cudaPointerGetAttributes),
// keeps its device buffers between calls of the same size, and returns when
// the output is written. Errors of CUDA calls are reported on stderr and the
// call returns; nothing exits the process.
#pragma once

#include <string>
#include <vector>

#include "codegen/LaunchSchedule.h"
#include "ir/Pipeline.h"
#include "passes/Lower.h"

namespace formac::codegen {

struct CudaOptions {
  std::string kernelName;
  std::string sourcePath;
  bool fuse = true;  // the target generateCuda lowers for (passes::Target::cuda)
  // A do loop's body inside its program's .cu: the kernels, the workspace and
  // NAME_enqueue, all static; no includes, helpers, run functions or header.
  bool embedded = false;
};

struct GeneratedCuda {
  std::string source;  // the .cu file
  std::string header;  // the .h file
};

// Prints a pipeline lowered for the CUDA target (passes::lower); decides nothing.
GeneratedCuda printCuda(const passes::LoweredPipeline& lowered, const CudaOptions& options);

// Lowers `p` for passes::Target::cuda(options.fuse) and prints it.
GeneratedCuda generateCuda(const ir::Pipeline& p, const CudaOptions& options);

// The kernels alone and the host's work as data, for hosts that run them
// through NVRTC and the CUDA driver API (`formac run --backend=cuda`) in
// place of the generated host code.
struct CudaKernels {
  // Compilable by NVRTC: structs, helpers and kernels; no includes, no host code.
  std::string source;
  // The kernels, their scratch, the steps of one run on one stream (LaunchSchedule.h).
  LaunchSchedule schedule;
  // Stages that need a device buffer (zeroed once; points a stage does not
  // compute stay 0): the inputs, stages computed to memory, the outputs.
  std::vector<int> buffers;
  // Outputs (by index) whose caller's buffer a run zeroes before the kernels:
  // those with points that no stage computes. Every other output's points
  // are all written.
  std::vector<int> zeroedOutputs;
  // The kernels use the int instantiation when every stage, and every
  // schedule.indexedPoints, has fewer than this many points, else long long.
  static constexpr long long kIntIndexLimit = 2147483647LL - (1LL << 24);
};

CudaKernels printCudaKernels(const passes::LoweredPipeline& lowered, const CudaOptions& options);
CudaKernels generateCudaKernels(const ir::Pipeline& p, const CudaOptions& options);

}  // namespace formac::codegen
