// The C text of the test harness around generated entry points.
//
// One harness function per program (`int e2e_run_<id>(const char* dir)`)
// knows the entry point's signature from the ir::Pipeline: inputs in
// declaration order (T* for an image, T for a scalar), an int per parameter,
// then one output pointer per result. For each run it loads the inputs from
// binary files, calls the entry point three times (once alone, then twice
// concurrently), each into poisoned output buffers followed by a canary,
// writes every output to a file and checks that the inputs are unchanged. The common helpers and main() come from
// harnessCommon() and harnessMain().
#pragma once

#include <string>
#include <vector>

#include "ir/Pipeline.h"

namespace formac::e2e {

// The sizes and byte counts of one run, as the harness needs them.
struct HarnessRun {
  std::vector<long long> params;
  std::vector<size_t> inputBytes;   // per Pipeline::inputs entry
  std::vector<size_t> outputBytes;  // per Pipeline::outputs entry
};

// Calls of the entry point per run (the last two concurrently under OpenMP).
inline constexpr int kCallsPerRun = 3;

std::string inputFile(int program, int run, int input);
std::string outputFile(int program, int run, int output, int call);

// The harness function of program `id`; `header` is the generated header's
// file name, `kernel` the entry point's name.
std::string harnessFunction(const ir::Pipeline& p, int id, const std::string& kernel,
                            const std::string& header, const std::vector<HarnessRun>& runs);

// e2e.h: the helpers' declarations (included by every harness function).
std::string harnessCommonHeader();
// The device side of the E2E_DEVICE call (CUDA, compiled with nvcc).
std::string harnessDeviceSupport();
// main.c: the helpers and main(), which runs the listed programs in order from
// the position given as argv[2] and prints "start POS" / "done POS FAILURES".
// Inputs are read from the directory argv[1]; outputs are written there too,
// or into argv[3] when it is given.
std::string harnessMain(const std::vector<int>& programIds);

}  // namespace formac::e2e
