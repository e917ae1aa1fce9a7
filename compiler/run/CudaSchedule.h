// CudaSchedule: a pipeline's LaunchSchedule (codegen/LaunchSchedule.h)
// enqueued through the CUDA driver API: the steps interpreted on the host,
// their values evaluated from the run's parameters, each launch given its
// grid, block, shared memory and arguments, each memset done with
// cuMemsetD8Async, all on the stream given. Nothing here computes a grid.
#pragma once

#include <array>
#include <functional>
#include <string>
#include <vector>

#include "codegen/LaunchSchedule.h"
#include "run/CudaDriver.h"

namespace formac::run::cuda {

// A schedule kernel as loaded: the function for int indices (a tight form
// where one was chosen) and the <long long> one; plain kernels have one.
struct LoadedKernel {
  std::array<CUfunction, 2> f{};
  std::string intForm = "int";  // the int function's template arguments
};

// What one run uses.
struct DeviceRun {
  const codegen::LaunchSchedule* schedule = nullptr;
  const std::vector<LoadedKernel>* kernels = nullptr;
  std::vector<CUdeviceptr> stages;   // per stage id (0: none)
  std::vector<CUdeviceptr> scratch;  // per schedule scratch
  std::vector<void*> scalars;        // per scalar input, pointing at its value in its C type
  std::vector<long long> params;
  bool intIndex = true;
  long long sms = 1;
  // A Loop step: runs the `do` loop whose first LoopResult stage is `first`.
  std::function<void(int first, const DeviceRun& run, CUstream stream)> loop;
};

// Enqueues the schedule's steps on `stream`; a failed call is a UserError.
void enqueueSchedule(const Driver& d, const DeviceRun& run, CUstream stream);

// The elements of each scratch buffer for these parameters.
std::vector<long long> scratchCounts(const codegen::LaunchSchedule& s, const std::vector<long long>& params,
                                     long long sms);

}  // namespace formac::run::cuda
