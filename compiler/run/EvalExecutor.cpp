// The evaluator as a backend, and the executor over a compiled entry shim.
#include <cstring>

#include "codegen/ExprPrinter.h"
#include "eval/Evaluator.h"
#include "run/Executor.h"

namespace formac::run {
namespace {

double loadScalarArgument(ScalarKind k, const void* p) {
  switch (k) {
    case ScalarKind::Int8: return *static_cast<const unsigned char*>(p);
    case ScalarKind::Int16: return *static_cast<const short*>(p);
    case ScalarKind::Int: return *static_cast<const int*>(p);
    case ScalarKind::Float: return *static_cast<const float*>(p);
    case ScalarKind::Double: return *static_cast<const double*>(p);
  }
  return 0;
}

class EvalExecutor : public Executor {
 public:
  explicit EvalExecutor(std::shared_ptr<const ir::Pipeline> p) : p_(std::move(p)) {}

  void prepare(const std::vector<long long>& params) override { params_ = params; }

  void run(void* const* args) override {
    const ir::Pipeline& p = *p_;
    eval::Inputs in;
    in.params = params_;
    in.scalars.assign(p.scalars.size(), 0.0);
    std::vector<const unsigned char*> byStage(p.stages.size(), nullptr);
    for (size_t k = 0; k < p.inputs.size(); ++k) {
      const ir::EntryArg& a = p.inputs[k];
      if (a.kind == ir::EntryArg::Image)
        byStage[static_cast<size_t>(a.index)] = static_cast<const unsigned char*>(args[k]);
      else
        in.scalars[static_cast<size_t>(a.index)] =
            loadScalarArgument(p.scalars[static_cast<size_t>(a.index)].type, args[k]);
    }
    for (const auto& s : p.stages)  // the evaluator takes the images in stage order
      if (s.kind == ir::Stage::Input) in.images.push_back(byStage[static_cast<size_t>(s.id)]);
    std::vector<eval::Buffer> out = eval::evaluate(p, in);
    for (size_t i = 0; i < out.size(); ++i)
      std::memcpy(args[p.inputs.size() + i], out[i].bytes.data(), out[i].bytes.size());
  }

 private:
  std::shared_ptr<const ir::Pipeline> p_;
  std::vector<long long> params_;
};

class ShimExecutor : public Executor {
 public:
  ShimExecutor(const ShimFunctions& f, std::shared_ptr<void> keepAlive, std::string backend)
      : f_(f), keepAlive_(std::move(keepAlive)), backend_(std::move(backend)) {}
  ~ShimExecutor() override {
    if (ws_) f_.destroy(ws_);
  }

  void prepare(const std::vector<long long>& params) override {
    if (ws_) f_.destroy(ws_);
    ws_ = f_.create(params.data());
    if (!ws_)
      throw UserError(backend_ + ": cannot allocate the intermediate images (out of memory" +
                      (backend_ == "cuda" ? " on the GPU, or no GPU)" : ")"));
  }

  void run(void* const* args) override {
    if (f_.run(ws_, args) != 0) throw UserError(backend_ + ": the pipeline reported a failure");
  }

 private:
  ShimFunctions f_;
  std::shared_ptr<void> keepAlive_;
  std::string backend_;
  void* ws_ = nullptr;
};

}  // namespace

std::unique_ptr<Executor> makeEvalExecutor(std::shared_ptr<const ir::Pipeline> p) {
  return std::make_unique<EvalExecutor>(std::move(p));
}

std::unique_ptr<Executor> makeShimExecutor(const ShimFunctions& f, std::shared_ptr<void> keepAlive,
                                           const std::string& backend) {
  return std::make_unique<ShimExecutor>(f, std::move(keepAlive), backend);
}

std::string entryShim(const ir::Pipeline& p, const std::string& K, bool cuda) {
  std::string ext = cuda ? "extern \"C\" " : "";
  std::string s =
      "\n/* formac run: the workspace API behind pointer arrays (compiler/run/Executor.h). */\n";
  s += ext + "void* formac_shim_create(const long long* params) {\n  (void)params;\n  return (void*)" + K +
       "_create(";
  for (size_t i = 0; i < p.params.size(); ++i) s += (i ? ", " : "") + std::string("(int)params[") + std::to_string(i) + "]";
  s += ");\n}\n";
  s += ext + "int formac_shim_run(void* ws, void* const* args) {\n  (void)args;\n  return " + K + "_run((" + K +
       "_workspace*)ws";
  size_t k = 0;
  for (const auto& in : p.inputs) {
    std::string a = "args[" + std::to_string(k++) + "]";
    if (in.kind == ir::EntryArg::Image)
      s += ", (" + codegen::cType(p.stages[static_cast<size_t>(in.index)].type) + "*)" + a;
    else
      s += ", *(const " + std::string(scalarCType(p.scalars[static_cast<size_t>(in.index)].type)) + "*)" + a;
  }
  for (int o : p.outputs)
    s += ", (" + codegen::cType(p.stages[static_cast<size_t>(o)].type) + "*)args[" + std::to_string(k++) + "]";
  s += ");\n}\n";
  s += ext + "void formac_shim_destroy(void* ws) { " + K + "_destroy((" + K + "_workspace*)ws); }\n";
  return s;
}

}  // namespace formac::run
