// CudaDriver: the CUDA driver API (libcuda.so.1) and NVRTC (libnvrtc), opened
// with dlopen when `--backend=cuda` first needs them.
//
// formac neither links against CUDA nor includes its headers, so it builds
// and starts on machines without CUDA; running on a GPU needs only the
// NVIDIA driver and the NVRTC library (no nvcc, no CUDA Toolkit headers).
// The few types, constants and prototypes used are declared here with the
// values of cuda.h and nvrtc.h (stable ABI); the driver functions are
// resolved by their versioned symbol names (cuMemAlloc_v2, ...), the names
// cuda.h's macros select.
//
// Libraries: the driver is $FORMAC_LIBCUDA if set, else libcuda.so.1.
// NVRTC is $FORMAC_NVRTC if set, else libnvrtc.so, libnvrtc.so.13, .12,
// .11.2 on the library path, then in $CUDA_HOME/lib64 and
// /usr/local/cuda/lib64. Every failure is a UserError that says what is
// missing.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace formac::run::cuda {

using CUresult = int;  // CUDA_SUCCESS = 0
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st*;
using CUmodule = struct CUmod_st*;
using CUfunction = struct CUfunc_st*;
using CUstream = struct CUstream_st*;
using nvrtcResult = int;  // NVRTC_SUCCESS = 0
using nvrtcProgram = struct _nvrtcProgram*;

constexpr int CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;
constexpr int CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97;
constexpr int CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES = 3;
constexpr int CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8;

struct Driver {
  std::string path;
  CUresult (*cuInit)(unsigned flags);
  CUresult (*cuDriverGetVersion)(int* version);
  CUresult (*cuDeviceGet)(CUdevice* device, int ordinal);
  CUresult (*cuDeviceGetName)(char* name, int length, CUdevice device);
  CUresult (*cuDeviceGetAttribute)(int* value, int attribute, CUdevice device);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext* context, CUdevice device);
  CUresult (*cuDevicePrimaryCtxRelease)(CUdevice device);
  CUresult (*cuCtxSetCurrent)(CUcontext context);
  CUresult (*cuCtxSynchronize)();
  CUresult (*cuModuleLoadData)(CUmodule* module, const void* image);
  CUresult (*cuModuleUnload)(CUmodule module);
  CUresult (*cuModuleGetFunction)(CUfunction* function, CUmodule module, const char* name);
  CUresult (*cuFuncGetAttribute)(int* value, int attribute, CUfunction function);
  CUresult (*cuFuncSetAttribute)(CUfunction function, int attribute, int value);
  CUresult (*cuMemAlloc)(CUdeviceptr* pointer, size_t bytes);
  CUresult (*cuMemFree)(CUdeviceptr pointer);
  CUresult (*cuMemsetD8)(CUdeviceptr pointer, unsigned char value, size_t count);
  CUresult (*cuMemsetD8Async)(CUdeviceptr pointer, unsigned char value, size_t count, CUstream stream);
  CUresult (*cuMemcpyHtoD)(CUdeviceptr to, const void* from, size_t bytes);
  CUresult (*cuMemcpyDtoH)(void* to, CUdeviceptr from, size_t bytes);
  CUresult (*cuMemcpyDtoDAsync)(CUdeviceptr to, CUdeviceptr from, size_t bytes, CUstream stream);
  CUresult (*cuStreamSynchronize)(CUstream stream);
  CUresult (*cuLaunchKernel)(CUfunction f, unsigned gridX, unsigned gridY, unsigned gridZ, unsigned blockX,
                             unsigned blockY, unsigned blockZ, unsigned sharedBytes, CUstream stream,
                             void** params, void** extra);
  CUresult (*cuGetErrorString)(CUresult error, const char** text);

  // Throws UserError("cuda: WHAT: the driver's message") unless r is CUDA_SUCCESS.
  void check(CUresult r, const std::string& what) const;
};

struct Nvrtc {
  std::string path;
  int major = 0, minor = 0;  // nvrtcVersion
  nvrtcResult (*nvrtcVersion)(int* major, int* minor);
  nvrtcResult (*nvrtcGetNumSupportedArchs)(int* count);  // these two: NVRTC 11.2 on, else null
  nvrtcResult (*nvrtcGetSupportedArchs)(int* archs);
  nvrtcResult (*nvrtcCreateProgram)(nvrtcProgram* program, const char* source, const char* name, int headers,
                                    const char* const* headerSources, const char* const* headerNames);
  nvrtcResult (*nvrtcDestroyProgram)(nvrtcProgram* program);
  nvrtcResult (*nvrtcAddNameExpression)(nvrtcProgram program, const char* expression);
  nvrtcResult (*nvrtcCompileProgram)(nvrtcProgram program, int count, const char* const* options);
  nvrtcResult (*nvrtcGetProgramLogSize)(nvrtcProgram program, size_t* bytes);
  nvrtcResult (*nvrtcGetProgramLog)(nvrtcProgram program, char* log);
  nvrtcResult (*nvrtcGetPTXSize)(nvrtcProgram program, size_t* bytes);
  nvrtcResult (*nvrtcGetPTX)(nvrtcProgram program, char* ptx);
  nvrtcResult (*nvrtcGetCUBINSize)(nvrtcProgram program, size_t* bytes);  // NVRTC 11.1 on, else null
  nvrtcResult (*nvrtcGetCUBIN)(nvrtcProgram program, char* cubin);
  nvrtcResult (*nvrtcGetLoweredName)(nvrtcProgram program, const char* expression, const char** lowered);
  const char* (*nvrtcGetErrorString)(nvrtcResult r);
};

// Opens the library and resolves every function; throws UserError when it is
// missing or lacks a function. The first success is kept for the process
// (never closed); a failure is tried again on the next call.
const Driver& driver();
const Nvrtc& nvrtc();
// The same without keeping anything (tests of the messages).
Driver loadDriver();
Nvrtc loadNvrtc();

// What NVRTC compiles for a GPU of compute capability major.minor:
// "sm_XY" (a CUBIN) when it knows that GPU, else "compute_XY" (PTX, which
// the driver compiles) for the newest architecture it knows below it.
// Throws UserError when the GPU is older than every architecture NVRTC knows.
std::string nvrtcArchitecture(const Nvrtc& n, int major, int minor);
// The options formac compiles with for `arch`.
std::vector<std::string> nvrtcOptions(const std::string& arch);

struct NvrtcOutput {
  std::string image;                 // a CUBIN for sm_XY, else PTX (NUL-terminated)
  bool cubin = false;
  std::vector<std::string> lowered;  // the lowered name of each name expression, in order
};
// Compiles `source` with nvrtcOptions(arch); `names` are name expressions
// ("kernel<int>"). Throws UserError with NVRTC's log (and the source kept
// in a file under /tmp) when it does not compile.
NvrtcOutput compileWithNvrtc(const Nvrtc& n, const std::string& source, const std::string& programName,
                             const std::vector<std::string>& names, const std::string& arch);

}  // namespace formac::run::cuda
