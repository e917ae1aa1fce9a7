#include "run/CudaDriver.h"

#include <dlfcn.h>
#include <link.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <mutex>

#include "support/Diagnostics.h"

namespace formac::run::cuda {
namespace {

// Resolves `f` as the first of `names` that `handle` has; lists it in
// `missing` when none (and `required`).
template <typename F>
void resolve(void* handle, F& f, std::initializer_list<const char*> names, std::string& missing,
             bool required = true) {
  f = nullptr;
  for (const char* n : names)
    if (void* p = dlsym(handle, n)) {
      f = reinterpret_cast<F>(p);
      return;
    }
  if (required) missing += (missing.empty() ? "" : ", ") + std::string(*names.begin());
}

// Where the dynamic loader found the library `handle` (for --verbose).
std::string loadedFrom(void* handle, const std::string& name) {
  link_map* map = nullptr;
  return dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name && *map->l_name ? map->l_name : name;
}

std::string envOr(const char* name) {
  const char* v = std::getenv(name);
  return v && *v ? v : "";
}

// Keeps the first successful load for the process.
template <typename T>
const T& once(T (*load)()) {
  static std::mutex mutex;
  static std::unique_ptr<T> loaded;
  std::lock_guard<std::mutex> lock(mutex);
  if (!loaded) loaded = std::make_unique<T>(load());
  return *loaded;
}

}  // namespace

void Driver::check(CUresult r, const std::string& what) const {
  if (r == 0) return;
  const char* text = nullptr;
  if (cuGetErrorString(r, &text) != 0 || !text) text = "unknown error";
  throw UserError("cuda: " + what + ": " + text + " (CUDA error " + std::to_string(r) + ")");
}

Driver loadDriver() {
  std::string override = envOr("FORMAC_LIBCUDA");
  std::string name = override.empty() ? "libcuda.so.1" : override;
  void* h = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char* why = dlerror();
    throw UserError("--backend=cuda needs the NVIDIA driver (libcuda.so.1), which did not load" +
                    (override.empty() ? std::string() : " from $FORMAC_LIBCUDA") + ": " + (why ? why : name));
  }
  Driver d{};
  d.path = loadedFrom(h, name);
  std::string missing;
  resolve(h, d.cuInit, {"cuInit"}, missing);
  resolve(h, d.cuDriverGetVersion, {"cuDriverGetVersion"}, missing);
  resolve(h, d.cuDeviceGet, {"cuDeviceGet"}, missing);
  resolve(h, d.cuDeviceGetName, {"cuDeviceGetName"}, missing);
  resolve(h, d.cuDeviceGetAttribute, {"cuDeviceGetAttribute"}, missing);
  resolve(h, d.cuDevicePrimaryCtxRetain, {"cuDevicePrimaryCtxRetain"}, missing);
  resolve(h, d.cuDevicePrimaryCtxRelease, {"cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease"}, missing);
  resolve(h, d.cuCtxSetCurrent, {"cuCtxSetCurrent"}, missing);
  resolve(h, d.cuCtxSynchronize, {"cuCtxSynchronize"}, missing);
  resolve(h, d.cuModuleLoadData, {"cuModuleLoadData"}, missing);
  resolve(h, d.cuModuleUnload, {"cuModuleUnload"}, missing);
  resolve(h, d.cuModuleGetFunction, {"cuModuleGetFunction"}, missing);
  resolve(h, d.cuFuncGetAttribute, {"cuFuncGetAttribute"}, missing);
  resolve(h, d.cuFuncSetAttribute, {"cuFuncSetAttribute"}, missing);
  resolve(h, d.cuMemAlloc, {"cuMemAlloc_v2"}, missing);
  resolve(h, d.cuMemFree, {"cuMemFree_v2"}, missing);
  resolve(h, d.cuMemsetD8, {"cuMemsetD8_v2"}, missing);
  resolve(h, d.cuMemsetD8Async, {"cuMemsetD8Async"}, missing);
  resolve(h, d.cuMemcpyHtoD, {"cuMemcpyHtoD_v2"}, missing);
  resolve(h, d.cuMemcpyDtoH, {"cuMemcpyDtoH_v2"}, missing);
  resolve(h, d.cuMemcpyDtoDAsync, {"cuMemcpyDtoDAsync_v2"}, missing);
  resolve(h, d.cuStreamSynchronize, {"cuStreamSynchronize"}, missing);
  resolve(h, d.cuLaunchKernel, {"cuLaunchKernel"}, missing);
  resolve(h, d.cuGetErrorString, {"cuGetErrorString"}, missing);
  if (!missing.empty()) {
    dlclose(h);
    throw UserError("--backend=cuda: the NVIDIA driver " + name + " lacks " + missing +
                    " (too old a driver: CUDA 11 or newer is needed)");
  }
  return d;
}

Nvrtc loadNvrtc() {
  std::vector<std::string> tried;
  std::string override = envOr("FORMAC_NVRTC");
  if (!override.empty()) {
    tried.push_back(override);
  } else {
    std::vector<std::string> dirs = {""};
    if (!envOr("CUDA_HOME").empty()) dirs.push_back(envOr("CUDA_HOME") + "/lib64/");
    dirs.push_back("/usr/local/cuda/lib64/");
    for (const auto& dir : dirs)
      for (const char* n : {"libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2"})
        tried.push_back(dir + n);
  }
  void* h = nullptr;
  std::string path;
  for (const auto& t : tried)
    if ((h = dlopen(t.c_str(), RTLD_NOW | RTLD_LOCAL))) {
      path = t;
      break;
    }
  if (!h) {
    if (!override.empty()) {
      const char* why = dlerror();
      throw UserError("--backend=cuda: NVRTC did not load from $FORMAC_NVRTC: " + std::string(why ? why : override));
    }
    std::string list;
    for (const auto& t : tried) list += (list.empty() ? "" : ", ") + t;
    throw UserError("--backend=cuda needs NVRTC (libnvrtc, from the CUDA Toolkit or NVIDIA's nvrtc package); "
                    "tried " + list + " (set FORMAC_NVRTC to its path)");
  }
  Nvrtc n{};
  n.path = loadedFrom(h, path);
  std::string missing;
  resolve(h, n.nvrtcVersion, {"nvrtcVersion"}, missing);
  resolve(h, n.nvrtcGetNumSupportedArchs, {"nvrtcGetNumSupportedArchs"}, missing, false);
  resolve(h, n.nvrtcGetSupportedArchs, {"nvrtcGetSupportedArchs"}, missing, false);
  resolve(h, n.nvrtcCreateProgram, {"nvrtcCreateProgram"}, missing);
  resolve(h, n.nvrtcDestroyProgram, {"nvrtcDestroyProgram"}, missing);
  resolve(h, n.nvrtcAddNameExpression, {"nvrtcAddNameExpression"}, missing);
  resolve(h, n.nvrtcCompileProgram, {"nvrtcCompileProgram"}, missing);
  resolve(h, n.nvrtcGetProgramLogSize, {"nvrtcGetProgramLogSize"}, missing);
  resolve(h, n.nvrtcGetProgramLog, {"nvrtcGetProgramLog"}, missing);
  resolve(h, n.nvrtcGetPTXSize, {"nvrtcGetPTXSize"}, missing);
  resolve(h, n.nvrtcGetPTX, {"nvrtcGetPTX"}, missing);
  resolve(h, n.nvrtcGetCUBINSize, {"nvrtcGetCUBINSize"}, missing, false);
  resolve(h, n.nvrtcGetCUBIN, {"nvrtcGetCUBIN"}, missing, false);
  resolve(h, n.nvrtcGetLoweredName, {"nvrtcGetLoweredName"}, missing);
  resolve(h, n.nvrtcGetErrorString, {"nvrtcGetErrorString"}, missing);
  if (!missing.empty() || n.nvrtcVersion(&n.major, &n.minor) != 0) {
    dlclose(h);
    throw UserError("--backend=cuda: " + path + " is not a usable NVRTC (it lacks " +
                    (missing.empty() ? std::string("nvrtcVersion") : missing) + ")");
  }
  return n;
}

const Driver& driver() { return once(loadDriver); }
const Nvrtc& nvrtc() { return once(loadNvrtc); }

std::string nvrtcArchitecture(const Nvrtc& n, int major, int minor) {
  int want = major * 10 + minor;
  std::string sm = "sm_" + std::to_string(want);
  int count = 0;
  if (!n.nvrtcGetNumSupportedArchs || !n.nvrtcGetSupportedArchs || n.nvrtcGetNumSupportedArchs(&count) != 0 ||
      count <= 0)
    return n.nvrtcGetCUBINSize ? sm : "compute_" + std::to_string(want);
  std::vector<int> archs(static_cast<size_t>(count));
  if (n.nvrtcGetSupportedArchs(archs.data()) != 0) return sm;
  std::sort(archs.begin(), archs.end());
  if (std::find(archs.begin(), archs.end(), want) != archs.end() && n.nvrtcGetCUBINSize) return sm;
  auto below = std::upper_bound(archs.begin(), archs.end(), want);
  if (below == archs.begin())
    throw UserError("--backend=cuda: NVRTC " + std::to_string(n.major) + "." + std::to_string(n.minor) + " (" +
                    n.path + ") does not compile for this GPU (" + sm + "); the oldest it knows is sm_" +
                    std::to_string(archs.front()) + ": set FORMAC_NVRTC to an older CUDA Toolkit's libnvrtc");
  return "compute_" + std::to_string(*(below - 1));
}

std::vector<std::string> nvrtcOptions(const std::string& arch) {
  return {"--gpu-architecture=" + arch, "-std=c++17"};
}

NvrtcOutput compileWithNvrtc(const Nvrtc& n, const std::string& source, const std::string& programName,
                             const std::vector<std::string>& names, const std::string& arch) {
  auto fail = [&](const std::string& what, nvrtcResult r) {
    throw UserError("cuda: NVRTC: " + what + ": " + n.nvrtcGetErrorString(r));
  };
  nvrtcProgram prog = nullptr;
  if (nvrtcResult r = n.nvrtcCreateProgram(&prog, source.c_str(), programName.c_str(), 0, nullptr, nullptr))
    fail("nvrtcCreateProgram", r);
  struct Destroy {  // the program, however this returns
    const Nvrtc& n;
    nvrtcProgram& p;
    ~Destroy() { n.nvrtcDestroyProgram(&p); }
  } destroy{n, prog};
  for (const auto& name : names)
    if (nvrtcResult r = n.nvrtcAddNameExpression(prog, name.c_str())) fail("nvrtcAddNameExpression " + name, r);
  std::vector<std::string> options = nvrtcOptions(arch);
  std::vector<const char*> argv;
  for (const auto& o : options) argv.push_back(o.c_str());
  nvrtcResult compiled = n.nvrtcCompileProgram(prog, static_cast<int>(argv.size()), argv.data());
  if (compiled != 0) {
    size_t size = 0;
    std::string log;
    if (n.nvrtcGetProgramLogSize(prog, &size) == 0 && size > 1) {
      log.resize(size);
      if (n.nvrtcGetProgramLog(prog, &log[0]) != 0) log.clear();
      while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
    }
    // The source, for whoever reads the log.
    std::string kept;
    char path[] = "/tmp/formac-nvrtc-XXXXXX.cu";
    int fd = mkstemps(path, 3);
    if (fd >= 0) {
      if (write(fd, source.data(), source.size()) == static_cast<ssize_t>(source.size())) kept = path;
      close(fd);
    }
    std::string flags;
    for (const auto& o : options) flags += " " + o;
    throw UserError("cuda: NVRTC " + std::to_string(n.major) + "." + std::to_string(n.minor) + flags +
                    " did not compile the generated kernels (" + n.nvrtcGetErrorString(compiled) + ")" +
                    (kept.empty() ? "" : "; the source is kept in " + kept) + (log.empty() ? "" : ":\n" + log));
  }
  NvrtcOutput out;
  out.cubin = arch.rfind("sm_", 0) == 0;
  if (out.cubin && !n.nvrtcGetCUBINSize) throw UserError("cuda: NVRTC before 11.1 makes no CUBIN for " + arch);
  size_t size = 0;
  nvrtcResult r = out.cubin ? n.nvrtcGetCUBINSize(prog, &size) : n.nvrtcGetPTXSize(prog, &size);
  if (r != 0) fail(out.cubin ? "nvrtcGetCUBINSize" : "nvrtcGetPTXSize", r);
  out.image.resize(size);
  r = out.cubin ? n.nvrtcGetCUBIN(prog, &out.image[0]) : n.nvrtcGetPTX(prog, &out.image[0]);
  if (r != 0) fail(out.cubin ? "nvrtcGetCUBIN" : "nvrtcGetPTX", r);
  for (const auto& name : names) {
    const char* lowered = nullptr;
    if (nvrtcResult e = n.nvrtcGetLoweredName(prog, name.c_str(), &lowered)) fail("nvrtcGetLoweredName " + name, e);
    out.lowered.push_back(lowered);
  }
  return out;
}

}  // namespace formac::run::cuda
