// Executor: a pipeline made runnable by one backend (eval, jit, cuda).
//
// An executor takes the caller's buffers in C layout and fills the outputs.
// prepare() makes the intermediate buffers for one set of parameter values
// (the generated code's NAME_create); run() may then be called any number
// of times (NAME_run). The JIT appends the entry shim below to the
// generated code and calls it through function pointers, so the host needs
// no knowledge of the C calling convention; cuda launches the kernels itself
// through the driver API (CudaExecutor.cpp).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "ir/Pipeline.h"
#include "support/Diagnostics.h"

namespace formac::run {

class Executor {
 public:
  virtual ~Executor() = default;
  // Throws UserError when the buffers cannot be made (out of memory).
  virtual void prepare(const std::vector<long long>& params) = 0;
  // `args`, in the entry point's order: each input (an image: its data; a
  // scalar: a pointer to its value in the scalar's C type), then each
  // output's data. Throws UserError if the backend reports a failure.
  virtual void run(void* const* args) = 0;
  // The rounds each `do` loop ran in the last run, in the program's order
  // (empty when the program has none).
  virtual std::vector<long long> loopRounds() { return {}; }
  // As run(), every image a device pointer on the backend's GPU, used in
  // place (no copies), the work enqueued on `stream` (a CUstream; null: the
  // default stream) and not waited for. Only the cuda backend has it.
  virtual void runOnDevice(void* const* args, void* stream) {
    (void)args, (void)stream;
    throw UserError("running on device arrays needs the cuda backend");
  }
};

struct BackendOptions {
  std::string kernelName = "pipeline";  // the generated entry point's name
  std::string sourcePath = "<memory>";  // for comments in generated code
  bool fuse = true;
  bool useCache = true;
  std::string cacheDir;  // empty: CompileCache::defaultDir()
};

// What compiling took, for --verbose and the timing line.
struct CompileReport {
  bool cached = false;             // the compiled code came from the cache
  std::vector<std::string> notes;  // one line each: what happened, how long
  // Per `do` loop (codegen::loopsOf's order): whether the compiled code
  // settles its rounds (passes/LocalFixpoint.h), as lowering decided.
  std::vector<bool> settles;
};

std::unique_ptr<Executor> makeEvalExecutor(std::shared_ptr<const ir::Pipeline> p);

// True when this formac was built with the JIT (FORMAC_ENABLE_JIT) and
// finds its library, libformac_jit.so.
bool jitAvailable();
// Compiles the generated C in-process with Clang and links it with ORC's
// LLJIT; on a cache hit loads the shared library cached for it (or the
// cached object into LLJIT). Throws UserError when the JIT is not built in.
std::unique_ptr<Executor> makeJitExecutor(std::shared_ptr<const ir::Pipeline> p, const BackendOptions& o,
                                          CompileReport& report);
// Compiles the generated kernels with NVRTC (cached) and runs them through
// the CUDA driver API on GPU 0; both libraries are opened at run time
// (CudaDriver.h). Throws UserError when the driver, a GPU or NVRTC is missing.
std::unique_ptr<Executor> makeCudaExecutor(std::shared_ptr<const ir::Pipeline> p, const BackendOptions& o,
                                           CompileReport& report);

// The functions appended to the generated C (the jit backend):
//   void* formac_shim_create(const long long* params);   NAME_create
//   int   formac_shim_run(void* ws, void* const* args);   NAME_run, args as above
//   void  formac_shim_destroy(void* ws);                  NAME_destroy
//   int   formac_shim_rounds(void* ws, long long* r);     NAME_loop_rounds (0 without loops)
std::string entryShim(const ir::Pipeline& p, const std::string& kernelName);

// The shim's functions, once loaded; shared by the compiling backends.
struct ShimFunctions {
  void* (*create)(const long long*) = nullptr;
  int (*run)(void*, void* const*) = nullptr;
  void (*destroy)(void*) = nullptr;
  int (*rounds)(void*, long long*) = nullptr;
};

// An executor over loaded shim functions; `keepAlive` owns what they live in
// (the JIT, the loaded library) and is released after the workspace.
std::unique_ptr<Executor> makeShimExecutor(const ShimFunctions& f, std::shared_ptr<void> keepAlive,
                                           const std::string& backend);

}  // namespace formac::run
