#include "run/CudaSchedule.h"

#include <cstring>

#include "support/Diagnostics.h"

namespace formac::run::cuda {
namespace {

using codegen::HostArg;
using codegen::HostExpr;
using codegen::HostStep;

class Interpreter {
 public:
  Interpreter(const Driver& d, const DeviceRun& r, CUstream stream)
      : d_(d), r_(r), stream_(stream), values_(r.schedule->values.size(), 0) {}

  void steps(const std::vector<HostStep>& list) {
    for (const auto& s : list) step(s);
  }

 private:
  long long eval(const HostExpr& e) const { return codegen::evaluate(e, values_, r_.params, r_.sms); }

  void step(const HostStep& s) {
    switch (s.kind) {
      case HostStep::Var:
      case HostStep::Assign: values_.at(static_cast<size_t>(s.value)) = eval(s.expr); return;
      case HostStep::If: steps(eval(s.expr) ? s.body : s.orElse); return;
      case HostStep::While:
        while (eval(s.expr)) steps(s.body);
        return;
      case HostStep::Block: steps(s.body); return;
      case HostStep::Launch: launch(s); return;
      case HostStep::Loop:
        if (!r_.loop) throw InternalError("cuda: a do loop without its runner");
        r_.loop(s.value, r_, stream_);
        return;
      case HostStep::Memset: {
        long long bytes = eval(s.bytes);
        if (bytes > 0)
          d_.check(d_.cuMemsetD8Async(pointer(s.args.at(0)), 0, static_cast<size_t>(bytes), stream_), "cuMemsetD8Async");
        return;
      }
    }
  }

  CUdeviceptr pointer(const HostArg& a) const {
    if (a.kind == HostArg::Stage) {
      CUdeviceptr b = r_.stages.at(static_cast<size_t>(a.index));
      if (!b) throw InternalError("cuda: stage " + std::to_string(a.index) + " has no device buffer");
      return b;
    }
    const codegen::HostScratch& s = r_.schedule->scratch.at(static_cast<size_t>(a.index));
    return r_.scratch.at(static_cast<size_t>(a.index)) +
           static_cast<CUdeviceptr>(eval(a.at)) * static_cast<CUdeviceptr>(s.elementBytes);
  }

  void launch(const HostStep& s) {
    const codegen::HostKernel& k = r_.schedule->kernels.at(static_cast<size_t>(s.kernel));
    long long grid[3], block[3];
    for (int i = 0; i < 3; ++i) {
      grid[i] = eval(s.grid[i]);
      block[i] = eval(s.block[i]);
      if (grid[i] <= 0 || block[i] <= 0) return;  // nothing to compute
    }
    if (grid[0] > 2147483647LL || grid[1] > 65535 || grid[2] > 65535)
      throw UserError("cuda: kernel " + k.name + " needs " + std::to_string(grid[0]) + " x " + std::to_string(grid[1]) +
                      " x " + std::to_string(grid[2]) +
                      " blocks, more than a GPU runs (2^31 - 1 x 65535 x 65535): the image is too large" +
                      (k.sharedBytes ? " for this fused kernel (try --no-fuse)" : ""));
    // Each argument's bytes, then pointers to them, as cuLaunchKernel takes them.
    std::vector<std::array<unsigned char, 8>> bytes(s.args.size());
    std::vector<void*> params(s.args.size());
    for (size_t i = 0; i < s.args.size(); ++i) {
      const HostArg& a = s.args[i];
      auto put = [&](auto v) {
        std::memcpy(bytes[i].data(), &v, sizeof v);
        params[i] = bytes[i].data();
      };
      switch (a.kind) {
        case HostArg::Stage:
        case HostArg::Scratch: put(pointer(a)); break;
        case HostArg::Scalar: params[i] = r_.scalars.at(static_cast<size_t>(a.index)); break;
        case HostArg::Param: {
          long long v = r_.params.at(static_cast<size_t>(a.index));
          if (r_.intIndex) put(static_cast<int>(v));
          else put(v);
          break;
        }
        case HostArg::Value: put(eval(a.at)); break;
        case HostArg::Int: put(static_cast<int>(eval(a.at))); break;
      }
    }
    const LoadedKernel& f = r_.kernels->at(static_cast<size_t>(s.kernel));
    bool useLong = k.templated && !r_.intIndex;
    auto u = [](long long v) { return static_cast<unsigned>(v); };
    // (The message is built only on failure: a run may launch hundreds of kernels.)
    if (CUresult e = d_.cuLaunchKernel(f.f[useLong ? 1 : 0], u(grid[0]), u(grid[1]), u(grid[2]), u(block[0]),
                                       u(block[1]), u(block[2]), static_cast<unsigned>(k.sharedBytes), stream_,
                                       params.data(), nullptr))
      d_.check(e, "launching " + k.name + (!k.templated ? "" : useLong ? "<long long>" : "<" + f.intForm + ">") +
                      " (cuLaunchKernel)");
  }

  const Driver& d_;
  const DeviceRun& r_;
  CUstream stream_;
  std::vector<long long> values_;
};

}  // namespace

void enqueueSchedule(const Driver& d, const DeviceRun& run, CUstream stream) {
  Interpreter(d, run, stream).steps(run.schedule->steps);
}

std::vector<long long> scratchCounts(const codegen::LaunchSchedule& s, const std::vector<long long>& params,
                                     long long sms) {
  std::vector<long long> counts;
  for (const auto& b : s.scratch) counts.push_back(codegen::evaluate(b.count, {}, params, sms));
  return counts;
}

}  // namespace formac::run::cuda
