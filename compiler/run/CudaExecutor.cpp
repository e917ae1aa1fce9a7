// The CUDA backend: the generated .cu (with the entry shim) compiled by nvcc
// into a shared library, cached like the JIT's objects, loaded with dlopen.
// NVRTC cannot compile the host half of the generated .cu (allocation and
// launches); running only the kernels through the driver API needs codegen to
// emit a kernels-only unit and a launch description (README.md, "Left to do").
#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "codegen/CodeGen_CUDA.h"
#include "run/CompileCache.h"
#include "run/Executor.h"

#ifndef FORMAC_VERSION
#define FORMAC_VERSION "unknown"
#endif

namespace formac::run {
namespace {

bool executable(const std::string& path) { return access(path.c_str(), X_OK) == 0; }

// $FORMAC_NVCC, the nvcc CMake found, nvcc on PATH, /usr/local/cuda/bin/nvcc.
std::string findNvcc() {
  if (const char* env = std::getenv("FORMAC_NVCC")) return executable(env) ? env : "";
#ifdef FORMAC_NVCC_PATH
  if (executable(FORMAC_NVCC_PATH)) return FORMAC_NVCC_PATH;
#endif
  if (const char* path = std::getenv("PATH")) {
    std::string dirs = path;
    for (size_t at = 0; at <= dirs.size();) {
      size_t colon = dirs.find(':', at);
      if (colon == std::string::npos) colon = dirs.size();
      std::string dir = dirs.substr(at, colon - at);
      if (!dir.empty() && executable(dir + "/nvcc")) return dir + "/nvcc";
      at = colon + 1;
    }
  }
  return executable("/usr/local/cuda/bin/nvcc") ? "/usr/local/cuda/bin/nvcc" : "";
}

std::string quote(const std::string& s) {
  std::string t = "'";
  for (char c : s) t += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return t + "'";
}

// Runs a shell command; returns its exit status and what it printed.
int capture(const std::string& command, std::string& output) {
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (!pipe) return -1;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) output.append(buf, n);
  return pclose(pipe);
}

// "sm_90" for the first GPU (nvidia-smi), or "native".
std::string gpuArch() {
  std::string out;
  if (capture("nvidia-smi --query-gpu=compute_cap --format=csv,noheader", out) == 0) {
    std::string digits;
    for (char c : out.substr(0, out.find('\n')))
      if (isdigit(static_cast<unsigned char>(c))) digits += c;
    if (digits.size() >= 2) return "sm_" + digits;
  }
  return "native";
}

double secondsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

std::unique_ptr<Executor> makeCudaExecutor(std::shared_ptr<const ir::Pipeline> p, const BackendOptions& o,
                                           CompileReport& report) {
  std::string nvcc = findNvcc();
  if (nvcc.empty())
    throw UserError("--backend=cuda needs nvcc (the CUDA Toolkit): put it on PATH or set FORMAC_NVCC");
  codegen::CudaOptions co;
  co.kernelName = o.kernelName;
  co.sourcePath = o.sourcePath;
  co.fuse = o.fuse;
  std::string source = codegen::generateCuda(*p, co).source + entryShim(*p, o.kernelName, true);
  std::string arch = gpuArch();
  std::string flags = "-O3 -shared -Xcompiler -fPIC -arch=" + arch;
  std::string version;
  capture(quote(nvcc) + " --version", version);
  std::string key = std::string("formac ") + FORMAC_VERSION + "\n" + version + flags + "\n" + source;

  CompileCache cache(o.cacheDir);
  std::string library = cache.pathFor(key, ".so");
  struct stat st;
  bool cached = o.useCache && !cache.dir().empty() && stat(library.c_str(), &st) == 0;
  std::string tempDir;
  if (!cached) {
    auto t0 = std::chrono::steady_clock::now();
    char dirTemplate[] = "/tmp/formac-cuda-XXXXXX";
    if (!mkdtemp(dirTemplate)) throw UserError("cuda: cannot make a temporary folder in /tmp");
    tempDir = dirTemplate;
    std::string cu = tempDir + "/pipeline.cu", so = tempDir + "/pipeline.so";
    std::ofstream(cu, std::ios::binary) << source;
    std::string output;
    int status = capture(quote(nvcc) + " " + flags + " -o " + quote(so) + " " + quote(cu), output);
    if (status != 0)
      throw UserError("cuda: nvcc failed on the generated code (kept in " + cu + "):\n" + output);
    char took[32];
    std::snprintf(took, sizeof took, "%.2f s", secondsSince(t0));
    report.notes.push_back("cuda: nvcc " + flags + ": " + took);
    std::ifstream in(so, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (o.useCache && cache.store(key, ".so", bytes)) {
      report.notes.push_back("cuda: cached as " + library);
      std::remove(so.c_str());
    } else {
      library = so;
    }
    std::remove(cu.c_str());
  } else {
    report.cached = true;
    report.notes.push_back("cuda: cache hit " + library);
  }
  void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!tempDir.empty()) {
    std::remove((tempDir + "/pipeline.so").c_str());
    rmdir(tempDir.c_str());
  }
  if (!handle) throw UserError(std::string("cuda: cannot load the compiled pipeline: ") + dlerror());
  ShimFunctions f;
  f.create = reinterpret_cast<void* (*)(const long long*)>(dlsym(handle, "formac_shim_create"));
  f.run = reinterpret_cast<int (*)(void*, void* const*)>(dlsym(handle, "formac_shim_run"));
  f.destroy = reinterpret_cast<void (*)(void*)>(dlsym(handle, "formac_shim_destroy"));
  if (!f.create || !f.run || !f.destroy) throw InternalError("cuda: the entry shim is missing from " + library);
  std::shared_ptr<void> keep(handle, [](void* h) { dlclose(h); });
  return makeShimExecutor(f, keep, "cuda");
}

}  // namespace formac::run
