// CodeGen_CUDA: the pipeline IR -> CUDA (`--print-cuda`, `--target=cuda`).
//
// The entry point takes host or device pointers (cudaPointerGetAttributes),
// keeps its device buffers between calls of the same size, and returns when
// the output is written. Errors of CUDA calls are reported on stderr and the
// call returns; nothing exits the process.
#pragma once

#include <string>
#include <vector>

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

// The kernels alone and how to launch them, for hosts that run them through
// NVRTC and the CUDA driver API (`formac run --backend=cuda`) in place of
// the generated host code.
struct CudaKernelArg {
  enum Kind { Stage, Scalar, Param } kind = Stage;
  // Stage: a stage id, passed as its device buffer; Scalar: a scalar input's
  // index, passed in its C type; Param: a parameter's index, passed in the
  // kernel's index type (int or long long).
  int index = 0;
};

struct CudaLaunch {
  std::string kernel;  // a template over the index type: launch kernel<int> or kernel<long long>
  std::vector<CudaKernelArg> args;  // the kernel's parameters, in order
  int extentStage = -1;             // the stage whose extent (n0, n1, ...) the grid covers
  // Fused kernels: {rows, cols} of the tile one block computes; the block is
  // (32, 8, 1) and the grid (ceil(n1 / cols), ceil(n0 / rows), 1).
  // Unfused kernels (empty): rank 1: block (256, 1, 1), grid (min(ceil(n0 / 256), 2^30), 1, 1);
  // rank >= 2: block (32, 8, 1), grid (min(ceil(n_last / 32), 2^30), min(ceil(n_(last-1) / 8), 65535),
  // min(product of the other n, 65535)); the kernels' loops stride over the rest.
  std::vector<int> tile;
  long long sharedBytes = 0;  // dynamic shared memory per block (above 48 KB: the opt-in attribute)
  // Heavy fused kernels also have int forms kernel<int, b> compiled for b
  // resident blocks per SM, tightest first: the host runs the first that the
  // compiler kept free of spills (no local memory), else kernel<int>.
  std::vector<int> tightBlocks;
};

struct CudaKernels {
  // Compilable by NVRTC: structs, helpers and kernels; no includes, no host code.
  std::string source;
  std::vector<CudaLaunch> launches;  // in order, on one stream
  // Stages that need a device buffer (zeroed once; points a stage does not
  // compute stay 0): the inputs, stages computed to memory, the outputs.
  std::vector<int> buffers;
  // The kernels use the int instantiation when every stage has fewer than
  // this many points, else long long.
  static constexpr long long kIntIndexLimit = 2147483647LL - (1LL << 24);
};

CudaKernels printCudaKernels(const passes::LoweredPipeline& lowered, const CudaOptions& options);
CudaKernels generateCudaKernels(const ir::Pipeline& p, const CudaOptions& options);

}  // namespace formac::codegen
