// The CUDA backend: the pipeline's kernels compiled by NVRTC and run through
// the CUDA driver API, both opened at run time (CudaDriver.h), so a machine
// with the NVIDIA driver and libnvrtc runs pipelines on its GPU without nvcc
// or the CUDA Toolkit's headers.
//
// codegen::generateCudaKernels gives the kernels alone (templates over the
// index type, no host code) and how to launch them; this file is the host
// code the generated .cu would otherwise hold:
//   compile  NVRTC, for the GPU's architecture (a CUBIN; PTX when NVRTC does
//            not know the GPU), `kernel<int>` and `kernel<long long>` of
//            every launch as name expressions, and `kernel<int, b>` for each
//            of a heavy fused kernel's tight forms. The image and the lowered
//            names are cached (CompileCache.h) under a key of formac's
//            version, NVRTC's version, the options and the source, so a
//            second run loads them without compiling.
//   load     each launch's functions; a kernel with tight forms runs the
//            first one the compiler kept (nearly) free of local memory (at
//            most kTightLocalBytes: cuFuncGetAttribute) for int indices, else
//            kernel<int>, as the generated create() chooses.
//   prepare  a device buffer per stage that needs one, zeroed once (points a
//            stage does not compute stay 0) and kept between runs.
//   run      inputs host -> device, every launch in order on the default
//            stream (grid and block as CodeGen_CUDA.h says), outputs device
//            -> host, then a synchronisation; every CUDA error is a UserError
//            with the driver's message.
//   runOnDevice  the caller's device images in place of the input and
//            output stages' buffers (outputs zeroed first), the launches on
//            the caller's stream: no copies, no synchronisation (the Python
//            module's path for torch, CuPy and JAX arrays).
// Everything runs in GPU 0's primary context.
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <map>

#include "codegen/CodeGen_CUDA.h"
#include "codegen/FusedKernel_CUDA.h"
#include "run/Bindings.h"
#include "run/CompileCache.h"
#include "run/CudaDriver.h"
#include "run/Executor.h"

#ifndef FORMAC_VERSION
#define FORMAC_VERSION "unknown"
#endif

namespace formac::run {
namespace {

using namespace cuda;
using Clock = std::chrono::steady_clock;

std::string took(Clock::time_point t0) {
  double s = std::chrono::duration<double>(Clock::now() - t0).count();
  char buf[32];
  std::snprintf(buf, sizeof buf, s >= 0.1 ? "%.2f s" : "%.1f ms", s >= 0.1 ? s : s * 1e3);
  return buf;
}

// GPU 0 and its primary context, held while an executor uses it.
struct Gpu {
  const Driver& d;
  CUdevice device = 0;
  CUcontext context = nullptr;
  int major = 0, minor = 0;
  std::string name;

  explicit Gpu(const Driver& driver) : d(driver) {
    auto noGpu = [&](const char* call, CUresult r) {
      const char* text = nullptr;
      if (d.cuGetErrorString(r, &text) != 0 || !text) text = "unknown error";
      return UserError(std::string("--backend=cuda found no usable GPU (") + call + ": " + text + ")");
    };
    if (CUresult r = d.cuInit(0)) throw noGpu("cuInit", r);
    if (CUresult r = d.cuDeviceGet(&device, 0)) throw noGpu("cuDeviceGet", r);
    char text[256] = {};
    d.check(d.cuDeviceGetName(text, sizeof text - 1, device), "cuDeviceGetName");
    name = text;
    d.check(d.cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device),
            "cuDeviceGetAttribute");
    d.check(d.cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device),
            "cuDeviceGetAttribute");
    d.check(d.cuDevicePrimaryCtxRetain(&context, device), "cuDevicePrimaryCtxRetain");
    if (CUresult r = d.cuCtxSetCurrent(context)) {
      d.cuDevicePrimaryCtxRelease(device);
      d.check(r, "cuCtxSetCurrent");
    }
  }
  ~Gpu() {
    if (context) d.cuDevicePrimaryCtxRelease(device);
  }
  void makeCurrent() const { d.check(d.cuCtxSetCurrent(context), "cuCtxSetCurrent"); }
};

// A cache entry: a header line, the lowered names one a line, the image.
const std::string kEntryHeader = "formac nvrtc module 1";

std::string packEntry(const NvrtcOutput& c) {
  std::string t = kEntryHeader + "\n" + std::to_string(c.lowered.size()) + "\n";
  for (const auto& n : c.lowered) t += n + "\n";
  return t + c.image;
}

bool unpackEntry(const std::string& bytes, size_t names, NvrtcOutput& c) {
  size_t at = 0;
  auto line = [&](std::string& out) {
    size_t nl = bytes.find('\n', at);
    if (nl == std::string::npos) return false;
    out = bytes.substr(at, nl - at);
    at = nl + 1;
    return true;
  };
  std::string header, count;
  if (!line(header) || header != kEntryHeader || !line(count) || count != std::to_string(names)) return false;
  c.lowered.assign(names, "");
  for (auto& n : c.lowered)
    if (!line(n) || n.empty()) return false;
  c.image = bytes.substr(at);
  return !c.image.empty();
}

// Where a launch's instantiations are among the name expressions.
struct LaunchNames {
  size_t intForm = 0, longForm = 0;
  std::vector<size_t> tight;  // kernel<int, b> for each of CudaLaunch::tightBlocks
};

class CudaExecutor : public Executor {
 public:
  CudaExecutor(std::shared_ptr<const ir::Pipeline> p, codegen::CudaKernels k, std::shared_ptr<Gpu> gpu)
      : p_(std::move(p)), k_(std::move(k)), gpu_(std::move(gpu)), d_(gpu_->d) {}

  ~CudaExecutor() override {
    if (d_.cuCtxSetCurrent(gpu_->context) != 0) return;
    freeBuffers();
    if (module_) d_.cuModuleUnload(module_);
  }

  // Loads the compiled module; functions_[i] are launch i's int and
  // <long long> kernels, `lowered[names[i].*]` their names. Returns a note
  // per kernel that runs a tight form.
  std::vector<std::string> load(const std::string& image, const std::vector<std::string>& lowered,
                                const std::vector<LaunchNames>& names) {
    d_.check(d_.cuModuleLoadData(&module_, image.c_str()), "loading the compiled kernels (cuModuleLoadData)");
    std::vector<std::string> notes;
    int optin = -1;
    for (size_t i = 0; i < k_.launches.size(); ++i) {
      const codegen::CudaLaunch& l = k_.launches[i];
      auto function = [&](size_t name) {
        CUfunction fn = nullptr;
        d_.check(d_.cuModuleGetFunction(&fn, module_, lowered[name].c_str()), "cuModuleGetFunction " + l.kernel);
        return fn;
      };
      std::array<CUfunction, 2> f{function(names[i].intForm), function(names[i].longForm)};
      std::string form = "int";
      for (size_t t = 0; t < names[i].tight.size(); ++t) {
        CUfunction fn = function(names[i].tight[t]);
        int localBytes = -1;
        d_.check(d_.cuFuncGetAttribute(&localBytes, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, fn),
                 "cuFuncGetAttribute " + l.kernel);
        if (localBytes > codegen::kTightLocalBytes) {
          notes.push_back("cuda: " + l.kernel + "'s <int, " + std::to_string(l.tightBlocks[t]) + "> form uses " +
                          std::to_string(localBytes) + " bytes of local memory (spills): not run");
          continue;
        }
        f[0] = fn;
        form = "int, " + std::to_string(l.tightBlocks[t]);
        notes.push_back("cuda: " + l.kernel + " runs its <" + form + "> form (" + std::to_string(l.tightBlocks[t]) +
                        " blocks per SM, " +
                        (localBytes ? std::to_string(localBytes) + " bytes of local memory" : std::string("no spills")) +
                        ")");
        break;
      }
      functions_.push_back(f);
      intForms_.push_back(form);
      if (l.sharedBytes <= 48 * 1024) continue;
      if (optin < 0)
        d_.check(d_.cuDeviceGetAttribute(&optin, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, gpu_->device),
                 "cuDeviceGetAttribute");
      if (l.sharedBytes > optin)
        throw UserError("cuda: kernel " + l.kernel + " needs " + std::to_string(l.sharedBytes) +
                        " bytes of shared memory per block, but " + gpu_->name + " allows " + std::to_string(optin) +
                        " (try --no-fuse)");
      for (CUfunction fn : f)
        d_.check(
            d_.cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, static_cast<int>(l.sharedBytes)),
            "cuFuncSetAttribute " + l.kernel);
    }
    return notes;
  }

  void prepare(const std::vector<long long>& params) override {
    gpu_->makeCurrent();
    freeBuffers();
    const ir::Pipeline& p = *p_;
    paramsLong_ = params;
    paramsInt_.assign(params.begin(), params.end());
    extents_.clear();
    intIndex_ = true;
    for (const auto& s : p.stages) {
      extents_.push_back(stageExtent(p, s.id, params));
      long long points = 1;
      for (long long n : extents_.back()) points = n > 0 && points > (1LL << 62) / n ? (1LL << 62) : points * n;
      intIndex_ = intIndex_ && points < codegen::CudaKernels::kIntIndexLimit;
    }
    buffers_.assign(p.stages.size(), 0);
    for (int id : k_.buffers) {
      size_t bytes = bytesOf(id);
      CUdeviceptr& b = buffers_[static_cast<size_t>(id)];
      d_.check(d_.cuMemAlloc(&b, bytes + 16),
               "allocating " + std::to_string(bytes) + " bytes for image '" + stage(id).name + "' (cuMemAlloc)");
      d_.check(d_.cuMemsetD8(b, 0, bytes + 16), "cuMemsetD8");
    }
  }

  void run(void* const* args) override {
    gpu_->makeCurrent();
    const ir::Pipeline& p = *p_;
    for (size_t k = 0; k < p.inputs.size(); ++k) {
      const ir::EntryArg& a = p.inputs[k];
      if (a.kind != ir::EntryArg::Image) continue;
      if (size_t bytes = bytesOf(a.index))
        d_.check(d_.cuMemcpyHtoD(buffer(a.index), args[k], bytes),
                 "copying input '" + stage(a.index).name + "' to the GPU (cuMemcpyHtoD)");
    }
    launchAll(scalarArguments(args), nullptr);
    for (size_t i = 0; i < p.outputs.size(); ++i) {
      int id = p.outputs[i];
      if (size_t bytes = bytesOf(id))
        d_.check(d_.cuMemcpyDtoH(args[p.inputs.size() + i], buffer(id), bytes),
                 "running the kernels and copying output '" + stage(id).name + "' to the host (cuMemcpyDtoH)");
    }
    d_.check(d_.cuCtxSynchronize(), "cuCtxSynchronize");
  }

  // The caller's device images stand in for the input and output stages'
  // buffers for one run on `stream`; each output is zeroed first (the points
  // no stage computes are 0, as in the buffers prepare() zeroes).
  void runOnDevice(void* const* args, void* stream) override {
    gpu_->makeCurrent();
    const ir::Pipeline& p = *p_;
    auto s = static_cast<CUstream>(stream);
    std::vector<CUdeviceptr> own = buffers_;
    struct Restore {
      std::vector<CUdeviceptr>& buffers;
      std::vector<CUdeviceptr>& own;
      ~Restore() { buffers.swap(own); }
    } restore{buffers_, own};
    for (size_t k = 0; k < p.inputs.size(); ++k)
      if (p.inputs[k].kind == ir::EntryArg::Image)
        buffers_[static_cast<size_t>(p.inputs[k].index)] = reinterpret_cast<CUdeviceptr>(args[k]);
    for (size_t i = 0; i < p.outputs.size(); ++i) {
      int id = p.outputs[i];
      if (stage(id).kind == ir::Stage::Input)
        throw UserError("cuda: the program returns its input '" + stage(id).name +
                        "' unchanged, which a run on device arrays does not do yet");
      CUdeviceptr out = reinterpret_cast<CUdeviceptr>(args[p.inputs.size() + i]);
      buffers_[static_cast<size_t>(id)] = out;
      if (size_t bytes = bytesOf(id))
        d_.check(d_.cuMemsetD8Async(out, 0, bytes, s), "zeroing output '" + stage(id).name + "' (cuMemsetD8Async)");
    }
    launchAll(scalarArguments(args), s);
  }

 private:
  // Pointers to the scalar inputs' values among the entry point's arguments,
  // by scalar index, in the C types the kernels take.
  std::vector<void*> scalarArguments(void* const* args) const {
    std::vector<void*> scalars(p_->scalars.size(), nullptr);
    for (size_t k = 0; k < p_->inputs.size(); ++k)
      if (p_->inputs[k].kind == ir::EntryArg::Scalar) scalars[static_cast<size_t>(p_->inputs[k].index)] = args[k];
    return scalars;
  }

  // Every launch in order on `stream`, on the stages' buffers.
  void launchAll(const std::vector<void*>& scalars, CUstream stream) {
    std::vector<void*> values;
    for (size_t i = 0; i < k_.launches.size(); ++i) {
      const codegen::CudaLaunch& l = k_.launches[i];
      unsigned grid[3], block[3];
      if (!shape(l, grid, block)) continue;
      values.clear();
      for (const auto& a : l.args) {
        size_t at = static_cast<size_t>(a.index);
        if (a.kind == codegen::CudaKernelArg::Stage) {
          buffer(a.index);  // checks that it exists
          values.push_back(&buffers_[at]);
        } else if (a.kind == codegen::CudaKernelArg::Scalar) {
          values.push_back(scalars.at(at));
        } else {
          values.push_back(intIndex_ ? static_cast<void*>(&paramsInt_.at(at)) : &paramsLong_.at(at));
        }
      }
      CUfunction f = functions_[i][intIndex_ ? 0 : 1];
      d_.check(d_.cuLaunchKernel(f, grid[0], grid[1], grid[2], block[0], block[1], block[2],
                                 static_cast<unsigned>(l.sharedBytes), stream, values.data(), nullptr),
               "launching " + l.kernel + "<" + (intIndex_ ? intForms_[i] : "long long") + "> (cuLaunchKernel)");
    }
  }

  const ir::Stage& stage(int id) const { return p_->stages.at(static_cast<size_t>(id)); }
  size_t bytesOf(int id) const {
    size_t n = typeSize(stage(id).type);
    for (long long e : extents_.at(static_cast<size_t>(id))) n *= static_cast<size_t>(e);
    return n;
  }
  CUdeviceptr buffer(int id) const {
    CUdeviceptr b = buffers_.at(static_cast<size_t>(id));
    if (!b) throw InternalError("cuda: stage " + stage(id).name + " has no device buffer");
    return b;
  }
  void freeBuffers() {
    for (CUdeviceptr& b : buffers_)
      if (b) d_.cuMemFree(b), b = 0;
  }

  // The grid and block of launch `l` (CodeGen_CUDA.h); false when its
  // extent is empty.
  bool shape(const codegen::CudaLaunch& l, unsigned grid[3], unsigned block[3]) const {
    const std::vector<long long>& n = extents_.at(static_cast<size_t>(l.extentStage));
    for (long long e : n)
      if (e <= 0) return false;
    auto ceilDiv = [](long long a, long long b) { return (a + b - 1) / b; };
    auto clamp = [](long long v, long long most) { return static_cast<unsigned>(std::min(v, most)); };
    size_t r = n.size();
    grid[0] = grid[1] = grid[2] = block[0] = block[1] = block[2] = 1;
    if (!l.tile.empty()) {  // fused: one tile of {rows, cols} per block, no striding
      long long x = ceilDiv(n[1], l.tile[1]), y = ceilDiv(n[0], l.tile[0]);
      if (x > 2147483647LL || y > 65535)
        throw UserError("cuda: image '" + stage(l.extentStage).name + "' is too large for the fused kernel " +
                        l.kernel + " (" + std::to_string(y) + " x " + std::to_string(x) +
                        " tiles; at most 65535 rows of tiles): use --no-fuse");
      block[0] = 32, block[1] = 8;
      grid[0] = static_cast<unsigned>(x);
      grid[1] = static_cast<unsigned>(y);
    } else if (r == 1) {
      block[0] = 256;
      grid[0] = clamp(ceilDiv(n[0], 256), 1LL << 30);
    } else if (r >= 2) {
      long long outer = 1;
      for (size_t d = 0; d + 2 < r; ++d) outer = std::min(outer * n[d], 65535LL);
      block[0] = 32, block[1] = 8;
      grid[0] = clamp(ceilDiv(n[r - 1], 32), 1LL << 30);
      grid[1] = clamp(ceilDiv(n[r - 2], 8), 65535);
      grid[2] = clamp(outer, 65535);
    }
    return true;
  }

  std::shared_ptr<const ir::Pipeline> p_;
  codegen::CudaKernels k_;
  std::shared_ptr<Gpu> gpu_;
  const Driver& d_;
  CUmodule module_ = nullptr;
  std::vector<std::array<CUfunction, 2>> functions_;  // per launch: the int form it runs, <long long>
  std::vector<std::string> intForms_;                 // per launch: that int form's template arguments
  std::vector<std::vector<long long>> extents_;       // per stage, for the prepared parameters
  std::vector<CUdeviceptr> buffers_;                  // per stage; 0 when it has none
  std::vector<long long> paramsLong_;
  std::vector<int> paramsInt_;
  bool intIndex_ = true;
};

}  // namespace

std::unique_ptr<Executor> makeCudaExecutor(std::shared_ptr<const ir::Pipeline> p, const BackendOptions& o,
                                           CompileReport& report) {
  // The kernels-only form (CudaLaunch) has no host loop over a reduction's
  // combining levels yet: refuse rather than leave the result 0.
  for (const auto& s : p->stages)
    if (s.kind == ir::Stage::Reduce)
      throw UserError("--backend=cuda does not run reductions yet (" + ir::describeStage(*p, s.id) +
                      "); the generated CUDA (--emit=cuda) and --backend=jit or eval do");
  // Nor a scan's passes, each a kernel after a reset of its flags.
  for (const auto& s : p->stages)
    if (s.kind == ir::Stage::Scan)
      throw UserError(s.loc, "--backend=cuda does not run scans and summed-area tables yet (" +
                                 ir::describeStage(*p, s.id) + "); the generated CUDA (--emit=cuda) and --backend=eval do");
  auto t0 = Clock::now();
  const Driver& d = driver();
  auto gpu = std::make_shared<Gpu>(d);
  const Nvrtc& n = nvrtc();
  int driverVersion = 0;
  d.cuDriverGetVersion(&driverVersion);
  report.notes.push_back("cuda: " + gpu->name + " (sm_" + std::to_string(gpu->major * 10 + gpu->minor) +
                         "), driver for CUDA " + std::to_string(driverVersion / 1000) + "." +
                         std::to_string(driverVersion % 1000 / 10) + "; NVRTC " + std::to_string(n.major) + "." +
                         std::to_string(n.minor) + " from " + n.path + " (" + took(t0) + ")");

  codegen::CudaOptions co;
  co.kernelName = o.kernelName;
  co.sourcePath = o.sourcePath;
  codegen::CudaKernels k = codegen::printCudaKernels(passes::lower(*p, passes::Target::cuda(o.fuse)), co);
  // Name expressions: each kernel's instantiations, once.
  std::vector<std::string> names;
  std::map<std::string, LaunchNames> first;
  std::vector<LaunchNames> launchNames;
  for (const auto& l : k.launches) {
    if (!first.count(l.kernel)) {
      LaunchNames& n = first[l.kernel];
      n.intForm = names.size();
      names.push_back(l.kernel + "<int>");
      n.longForm = names.size();
      names.push_back(l.kernel + "<long long>");
      for (int b : l.tightBlocks) {
        n.tight.push_back(names.size());
        names.push_back(l.kernel + "<int, " + std::to_string(b) + ">");
      }
    }
    launchNames.push_back(first[l.kernel]);
  }

  std::string arch = nvrtcArchitecture(n, gpu->major, gpu->minor);
  std::string options;
  for (const auto& opt : nvrtcOptions(arch)) options += (options.empty() ? "" : " ") + opt;
  std::string key = std::string("formac ") + FORMAC_VERSION + "\nnvrtc " + std::to_string(n.major) + "." +
                    std::to_string(n.minor) + "\n" + options + "\n";
  for (const auto& name : names) key += name + "\n";
  key += k.source;
  CompileCache cache(o.cacheDir);
  NvrtcOutput compiled;
  auto t1 = Clock::now();
  std::string bytes;
  if (o.useCache && cache.load(key, ".nvrtc", bytes) && unpackEntry(bytes, names.size(), compiled)) {
    report.cached = true;
    report.notes.push_back("cuda: cache hit, loaded " + cache.pathFor(key, ".nvrtc") + " (" + took(t1) + ")");
  } else {
    compiled = compileWithNvrtc(n, k.source, o.kernelName + ".cu", names, arch);
    report.notes.push_back("cuda: NVRTC " + options + ": " + took(t1) + ", " + (compiled.cubin ? "CUBIN " : "PTX ") +
                           std::to_string(compiled.image.size()) + " bytes");
    if (o.useCache) {
      if (cache.store(key, ".nvrtc", packEntry(compiled)))
        report.notes.push_back("cuda: cached as " + cache.pathFor(key, ".nvrtc"));
      else
        report.notes.push_back("cuda: cannot write the cache in '" + cache.dir() + "' (not cached)");
    }
  }

  auto t2 = Clock::now();
  size_t launches = k.launches.size();
  auto e = std::make_unique<CudaExecutor>(std::move(p), std::move(k), gpu);
  for (auto& note : e->load(compiled.image, compiled.lowered, launchNames)) report.notes.push_back(note);
  auto count = [](size_t n, const std::string& what) {
    return std::to_string(n) + " " + what + (n == 1 ? "" : what.back() == 'h' ? "es" : "s");
  };
  report.notes.push_back("cuda: module loaded: " + count(first.size(), "kernel") + ", " +
                         count(launches, "launch") + " per run (" + took(t2) + ")");
  return e;
}

}  // namespace formac::run
