// The CUDA backend: the pipeline's kernels compiled by NVRTC and run through
// the CUDA driver API, both opened at run time (CudaDriver.h), so a machine
// with the NVIDIA driver and libnvrtc runs pipelines on its GPU without nvcc
// or the CUDA Toolkit's headers.
//
// codegen::generateCudaKernels gives the kernels alone (templates over the
// index type, no host code) and the host's work as data (a LaunchSchedule);
// this file and CudaSchedule.cpp are the host code the generated .cu would
// otherwise hold:
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
//            stage does not compute stay 0), and the schedule's scratch
//            buffers, kept between runs.
//   run      inputs host -> device, the schedule enqueued on the default
//            stream (enqueue: its steps interpreted, CudaSchedule.h), outputs
//            device -> host (a reduction's value too), then a
//            synchronisation; every CUDA error is a UserError with the
//            driver's message.
//   loops    a `do` loop's body is a pipeline of its own with an executor
//            of its own (its own module); each round enqueues the body on
//            the run's stream, copies each X<i> into the body's X<i-1>
//            buffer and reads the condition back (the host waits for each
//            round: the generated .cu runs the whole loop as one graph).
//   runOnDevice  the caller's device images in place of the input and
//            output stages' buffers (outputs zeroed first), the schedule on
//            the caller's stream: no copies, no synchronisation (the Python
//            module's path for torch, CuPy and JAX arrays).
// Everything runs in GPU 0's primary context.
#include <algorithm>
#include <array>
#include <chrono>
#include <cstring>
#include <cstdio>
#include <map>

#include "codegen/CodeGen_CUDA.h"
#include "codegen/FusedKernel_CUDA.h"
#include "codegen/StageFacts.h"
#include "run/Bindings.h"
#include "run/CompileCache.h"
#include "run/CudaDriver.h"
#include "run/CudaSchedule.h"
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
  int major = 0, minor = 0, sms = 1;
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
    d.check(d.cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device), "cuDeviceGetAttribute");
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

// Where a kernel's functions are among the name expressions.
struct KernelNames {
  size_t intForm = 0, longForm = 0;  // a plain kernel: intForm only
  std::vector<size_t> tight;         // kernel<int, b> for each of HostKernel::tightBlocks
};

class CudaExecutor : public Executor {
 public:
  CudaExecutor(std::shared_ptr<const ir::Pipeline> p, codegen::CudaKernels k, std::shared_ptr<Gpu> gpu)
      : p_(std::move(p)), k_(std::move(k)), gpu_(std::move(gpu)), d_(gpu_->d) {}

  ~CudaExecutor() override {
    loops_.clear();
    if (d_.cuCtxSetCurrent(gpu_->context) != 0) return;
    freeBuffers();
    if (module_) d_.cuModuleUnload(module_);
  }

  // Loads the compiled module; kernels_[i] are schedule kernel i's int and
  // <long long> functions, `lowered[names[i].*]` their names. Returns a note
  // per kernel that runs a tight form.
  std::vector<std::string> load(const std::string& image, const std::vector<std::string>& lowered,
                                const std::vector<KernelNames>& names) {
    d_.check(d_.cuModuleLoadData(&module_, image.c_str()), "loading the compiled kernels (cuModuleLoadData)");
    std::vector<std::string> notes;
    int optin = -1;
    for (size_t i = 0; i < k_.schedule.kernels.size(); ++i) {
      const codegen::HostKernel& l = k_.schedule.kernels[i];
      auto function = [&](size_t name) {
        CUfunction fn = nullptr;
        d_.check(d_.cuModuleGetFunction(&fn, module_, lowered[name].c_str()), "cuModuleGetFunction " + l.name);
        return fn;
      };
      cuda::LoadedKernel f;
      f.f[0] = function(names[i].intForm);
      if (l.templated) f.f[1] = function(names[i].longForm);
      for (size_t t = 0; t < names[i].tight.size(); ++t) {
        CUfunction fn = function(names[i].tight[t]);
        int localBytes = -1;
        d_.check(d_.cuFuncGetAttribute(&localBytes, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, fn),
                 "cuFuncGetAttribute " + l.name);
        if (localBytes > codegen::kTightLocalBytes) {
          notes.push_back("cuda: " + l.name + "'s <int, " + std::to_string(l.tightBlocks[t]) + "> form uses " +
                          std::to_string(localBytes) + " bytes of local memory (spills): not run");
          continue;
        }
        f.f[0] = fn;
        f.intForm = "int, " + std::to_string(l.tightBlocks[t]);
        notes.push_back("cuda: " + l.name + " runs its <" + f.intForm + "> form (" + std::to_string(l.tightBlocks[t]) +
                        " blocks per SM, " +
                        (localBytes ? std::to_string(localBytes) + " bytes of local memory" : std::string("no spills")) +
                        ")");
        break;
      }
      kernels_.push_back(f);
      if (l.sharedBytes <= 48 * 1024) continue;
      if (optin < 0)
        d_.check(d_.cuDeviceGetAttribute(&optin, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, gpu_->device),
                 "cuDeviceGetAttribute");
      if (l.sharedBytes > optin)
        throw UserError("cuda: kernel " + l.name + " needs " + std::to_string(l.sharedBytes) +
                        " bytes of shared memory per block, but " + gpu_->name + " allows " + std::to_string(optin) +
                        " (try --no-fuse)");
      for (CUfunction fn : f.f)
        if (fn)
          d_.check(d_.cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                         static_cast<int>(l.sharedBytes)),
                   "cuFuncSetAttribute " + l.name);
    }
    return notes;
  }

  void prepare(const std::vector<long long>& params) override {
    gpu_->makeCurrent();
    freeBuffers();
    const ir::Pipeline& p = *p_;
    params_ = params;
    extents_.clear();
    auto small = [](long long points) { return points < codegen::CudaKernels::kIntIndexLimit; };
    intIndex_ = true;
    for (const auto& s : p.stages) {
      extents_.push_back(stageExtent(p, s.id, params));
      long long points = 1;
      for (long long n : extents_.back()) points = n > 0 && points > (1LL << 62) / n ? (1LL << 62) : points * n;
      intIndex_ = intIndex_ && small(points);
    }
    for (const auto& e : k_.schedule.indexedPoints)
      intIndex_ = intIndex_ && small(codegen::evaluate(e, {}, params, gpu_->sms));
    buffers_.assign(p.stages.size(), 0);
    for (int id : k_.buffers) allocate(buffers_[static_cast<size_t>(id)], bytesOf(id), "image '" + stage(id).name + "'");
    std::vector<long long> counts = cuda::scratchCounts(k_.schedule, params, gpu_->sms);
    scratch_.assign(counts.size(), 0);
    for (size_t i = 0; i < counts.size(); ++i) {
      const codegen::HostScratch& b = k_.schedule.scratch[i];
      allocate(scratch_[i], static_cast<size_t>(std::max(counts[i], 0LL)) * static_cast<size_t>(b.elementBytes),
               "the scratch " + b.member);
    }
    for (auto& [first, l] : loops_) l.body->prepare(params);
  }

  // The body of the loop whose first LoopResult stage is `first`.
  // The loop's body ran through lower() on its own, and its passes may have
  // removed stages (fuse-reductions folds canny's `c<i>` into `any(c<i>)`):
  // the loop's ids of body stages are the program's, so they are found again
  // by name in the lowered body.
  void addLoop(int first, std::unique_ptr<CudaExecutor> body) {
    const ir::Loop& loop = *stage(first).loop;
    const ir::Pipeline& from = *loop.body;
    const ir::Pipeline& to = body->pipeline();
    auto lowered = [&](int id) {
      const std::string& name = from.stages.at(static_cast<size_t>(id)).name;
      for (const auto& s : to.stages)
        if (s.name == name) return s.id;
      throw InternalError("cuda: the loop's body stage '" + name + "' is gone after lowering");
    };
    auto l = std::make_shared<ir::Loop>(loop);
    for (auto* bindings : {&l->carried, &l->reads})
      for (auto& b : *bindings) b.inner = lowered(b.inner);
    for (int& n : l->next) n = lowered(n);
    l->condition = lowered(l->condition);
    loops_[first] = LoopRun{std::move(l), std::move(body)};
  }
  std::vector<long long> loopRounds() override { return rounds_; }
  const ir::Pipeline& pipeline() const { return *p_; }

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
    rounds_.clear();
    enqueue(buffers_, scalarArguments(args), nullptr);
    for (size_t i = 0; i < p.outputs.size(); ++i) {
      int id = p.outputs[i];
      if (size_t bytes = bytesOf(id))
        d_.check(d_.cuMemcpyDtoH(args[p.inputs.size() + i], buffer(id), bytes),
                 "running the kernels and copying output '" + stage(id).name + "' to the host (cuMemcpyDtoH)");
    }
    d_.check(d_.cuCtxSynchronize(), "cuCtxSynchronize");
  }

  // The caller's device images stand in for the input and output stages'
  // buffers for one run on `stream`. An output with points that no stage
  // computes is zeroed first (CudaKernels::zeroedOutputs: those points are 0,
  // as in the buffers prepare() zeroes); a stage returned twice is computed
  // into the first output's array and copied into the other's.
  void runOnDevice(void* const* args, void* stream) override {
    gpu_->makeCurrent();
    const ir::Pipeline& p = *p_;
    auto s = static_cast<CUstream>(stream);
    auto output = [&](size_t i) { return reinterpret_cast<CUdeviceptr>(args[p.inputs.size() + i]); };
    std::vector<CUdeviceptr> stages = buffers_;
    for (size_t k = 0; k < p.inputs.size(); ++k)
      if (p.inputs[k].kind == ir::EntryArg::Image)
        stages[static_cast<size_t>(p.inputs[k].index)] = reinterpret_cast<CUdeviceptr>(args[k]);
    for (size_t i = 0; i < p.outputs.size(); ++i) {
      int id = p.outputs[i];
      if (stage(id).kind == ir::Stage::Input)
        throw UserError("cuda: the program returns its input '" + stage(id).name +
                        "' unchanged, which a run on device arrays does not do yet");
      if (codegen::outputOwner(p, i)) stages[static_cast<size_t>(id)] = output(i);
    }
    for (int i : k_.zeroedOutputs) {
      int id = p.outputs[static_cast<size_t>(i)];
      if (size_t bytes = bytesOf(id))
        d_.check(d_.cuMemsetD8Async(output(static_cast<size_t>(i)), 0, bytes, s),
                 "zeroing output '" + stage(id).name + "' (cuMemsetD8Async)");
    }
    rounds_.clear();
    enqueue(stages, scalarArguments(args), s);
    for (size_t i = 0; i < p.outputs.size(); ++i) {
      int id = p.outputs[i];
      size_t bytes = bytesOf(id);
      if (!codegen::outputOwner(p, i) && bytes)
        d_.check(d_.cuMemcpyDtoDAsync(output(i), stages[static_cast<size_t>(id)], bytes, s),
                 "copying output '" + stage(id).name + "' (cuMemcpyDtoDAsync)");
    }
  }

  // One run's device work on `stream`, on these stage buffers (per stage
  // id; every stage of CudaKernels::buffers has one) and scalars.
  void enqueue(const std::vector<CUdeviceptr>& stages, const std::vector<void*>& scalars, CUstream stream) {
    cuda::DeviceRun r;
    r.schedule = &k_.schedule;
    r.kernels = &kernels_;
    r.stages = stages;
    r.scratch = scratch_;
    r.scalars = scalars;
    r.params = params_;
    r.intIndex = intIndex_;
    r.sms = gpu_->sms;
    r.loop = [this](int first, const cuda::DeviceRun& run, CUstream s) { runLoop(first, run, s); };
    cuda::enqueueSchedule(d_, r, stream);
  }

 private:
  struct LoopRun {
    std::shared_ptr<const ir::Loop> loop;
    std::unique_ptr<CudaExecutor> body;
  };

  // Rounds of a loop's body (ir::Loop) on `s`: the body's X<i-1> buffers
  // start as the loop's initial images, each round's X<i> is copied into
  // them, and the host reads the condition after each round. The results
  // are the X<i-1> buffers' last values.
  void runLoop(int first, const cuda::DeviceRun& outer, CUstream s) {
    LoopRun& l = loops_.at(first);
    const ir::Loop& loop = *l.loop;
    CudaExecutor& b = *l.body;
    auto copy = [&](CUdeviceptr to, CUdeviceptr from, size_t bytes, const std::string& what) {
      if (to != from && bytes) d_.check(d_.cuMemcpyDtoDAsync(to, from, bytes, s), what + " (cuMemcpyDtoDAsync)");
    };
    std::vector<CUdeviceptr> inner = b.buffers_;
    for (const auto& r : loop.reads) inner.at(static_cast<size_t>(r.inner)) = outer.stages.at(static_cast<size_t>(r.outer));
    for (const auto& c : loop.carried)
      copy(b.buffer(c.inner), outer.stages.at(static_cast<size_t>(c.outer)), bytesOf(c.outer),
           "the loop's initial '" + stage(c.outer).name + "'");
    const ir::Stage& cond = b.stage(loop.condition);
    long long rounds = ir::evalSize(loop.rounds, params_), ran = 0;
    while (ran < rounds) {
      b.enqueue(inner, outer.scalars, s);
      ++ran;
      for (size_t j = 0; j < loop.carried.size(); ++j)
        copy(b.buffer(loop.carried[j].inner), b.buffer(loop.next[j]), b.bytesOf(loop.next[j]),
             "round " + std::to_string(ran) + "'s '" + b.stage(loop.next[j]).name + "'");
      unsigned char value[16] = {};
      d_.check(d_.cuStreamSynchronize(s), "round " + std::to_string(ran) + " of the loop (cuStreamSynchronize)");
      d_.check(d_.cuMemcpyDtoH(value, b.buffer(loop.condition), typeSize(cond.type)),
               "reading the loop's condition (cuMemcpyDtoH)");
      if (!truthy(value, cond.type)) break;
    }
    for (size_t j = 0; j < loop.carried.size(); ++j)
      copy(outer.stages.at(static_cast<size_t>(first) + j), b.buffer(loop.carried[j].inner),
           bytesOf(first + static_cast<int>(j)), "the loop's result '" + stage(first + static_cast<int>(j)).name + "'");
    rounds_.push_back(ran);
  }

  // A condition's value (a scalar of its type) is not 0.
  static bool truthy(const unsigned char* v, const Type& t) {
    auto as = [&](auto x) { std::memcpy(&x, v, sizeof x); return x != 0; };
    switch (t.scalar) {
      case ScalarKind::Float: return as(0.0f);
      case ScalarKind::Double: return as(0.0);
      default: break;
    }
    for (size_t i = 0; i < typeSize(t); ++i)
      if (v[i]) return true;
    return false;
  }

  // Pointers to the scalar inputs' values among the entry point's arguments,
  // by scalar index, in the C types the kernels take.
  std::vector<void*> scalarArguments(void* const* args) const {
    std::vector<void*> scalars(p_->scalars.size(), nullptr);
    for (size_t k = 0; k < p_->inputs.size(); ++k)
      if (p_->inputs[k].kind == ir::EntryArg::Scalar) scalars[static_cast<size_t>(p_->inputs[k].index)] = args[k];
    return scalars;
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
  void allocate(CUdeviceptr& b, size_t bytes, const std::string& what) {
    d_.check(d_.cuMemAlloc(&b, bytes + 16),
             "allocating " + std::to_string(bytes) + " bytes for " + what + " (cuMemAlloc)");
    d_.check(d_.cuMemsetD8(b, 0, bytes + 16), "cuMemsetD8");
  }
  void freeBuffers() {
    for (auto* list : {&buffers_, &scratch_})
      for (CUdeviceptr& b : *list)
        if (b) d_.cuMemFree(b), b = 0;
  }

  std::shared_ptr<const ir::Pipeline> p_;
  codegen::CudaKernels k_;
  std::shared_ptr<Gpu> gpu_;
  const Driver& d_;
  CUmodule module_ = nullptr;
  std::vector<cuda::LoadedKernel> kernels_;      // per schedule kernel
  std::vector<std::vector<long long>> extents_;  // per stage, for the prepared parameters
  std::vector<CUdeviceptr> buffers_;             // per stage; 0 when it has none
  std::vector<CUdeviceptr> scratch_;             // per schedule scratch
  std::vector<long long> params_;
  bool intIndex_ = true;
  std::map<int, LoopRun> loops_;  // by the first LoopResult stage
  std::vector<long long> rounds_;  // per loop, in the last run
};

// The executor of `p` (a program, or a loop's body) on `gpu`; each loop's
// body gets one of its own.
std::unique_ptr<CudaExecutor> makeCuda(std::shared_ptr<const ir::Pipeline> p, const BackendOptions& o,
                                       CompileReport& report, const std::shared_ptr<Gpu>& gpu) {
  const Nvrtc& n = nvrtc();
  codegen::CudaOptions co;
  co.kernelName = o.kernelName;
  co.sourcePath = o.sourcePath;
  // The schedule names the lowered pipeline's stages (fuse-reductions drops
  // some); its inputs, outputs, scalars and parameters are the program's, in order.
  passes::LoweredPipeline lowered = passes::lower(*p, passes::Target::cuda(o.fuse));
  codegen::CudaKernels k = codegen::printCudaKernels(lowered, co);
  p = std::make_shared<const ir::Pipeline>(std::move(lowered.pipeline));
  // Name expressions: each kernel's instantiations (a plain kernel: its name).
  std::vector<std::string> names;
  std::vector<KernelNames> kernelNames;
  for (const auto& l : k.schedule.kernels) {
    KernelNames n;
    n.intForm = names.size();
    names.push_back(l.templated ? l.name + "<int>" : l.name);
    if (l.templated) {
      n.longForm = names.size();
      names.push_back(l.name + "<long long>");
    }
    for (int b : l.tightBlocks) {
      n.tight.push_back(names.size());
      names.push_back(l.name + "<int, " + std::to_string(b) + ">");
    }
    kernelNames.push_back(n);
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
  size_t kernels = k.schedule.kernels.size();
  auto e = std::make_unique<CudaExecutor>(std::move(p), std::move(k), gpu);
  for (auto& note : e->load(compiled.image, compiled.lowered, kernelNames)) report.notes.push_back(note);
  auto count = [](size_t n, const std::string& what) {
    return std::to_string(n) + " " + what + (n == 1 ? "" : what.back() == 'h' ? "es" : "s");
  };
  report.notes.push_back("cuda: module loaded: " + count(kernels, "kernel") + " (" + took(t2) + ")");
  for (const auto& s : e->pipeline().stages)
    if (s.kind == ir::Stage::LoopResult && s.loopIndex == 0) {
      BackendOptions bo = o;
      bo.kernelName = o.kernelName + "_loop" + std::to_string(s.id);
      report.notes.push_back("cuda: the body of the do loop over '" + s.loop->iterator + "' (line " +
                             std::to_string(s.loop->loc.line) + "):");
      e->addLoop(s.id, makeCuda(s.loop->body, bo, report, gpu));
    }
  return e;
}

}  // namespace

std::unique_ptr<Executor> makeCudaExecutor(std::shared_ptr<const ir::Pipeline> p, const BackendOptions& o,
                                           CompileReport& report) {
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
  return makeCuda(std::move(p), o, report, gpu);
}

}  // namespace formac::run
