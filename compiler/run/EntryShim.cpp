// The entry shim appended to generated code, and the executor that calls a
// compiled shim through function pointers (jit, cuda).
#include <algorithm>

#include "codegen/ExprPrinter.h"
#include "codegen/StageFacts.h"
#include "run/Executor.h"

namespace formac::run {
namespace {

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
      throw UserError(backend_ + ": cannot allocate the intermediate images (out of memory)");
  }

  void run(void* const* args) override {
    if (f_.run(ws_, args) != 0) throw UserError(backend_ + ": the pipeline reported a failure");
  }

  std::vector<long long> loopRounds() override {
    int n = ws_ ? f_.rounds(ws_, nullptr) : 0;
    std::vector<long long> r(static_cast<size_t>(std::max(n, 0)));
    if (n > 0) f_.rounds(ws_, r.data());
    return r;
  }

 private:
  ShimFunctions f_;
  std::shared_ptr<void> keepAlive_;
  std::string backend_;
  void* ws_ = nullptr;
};

}  // namespace

std::unique_ptr<Executor> makeShimExecutor(const ShimFunctions& f, std::shared_ptr<void> keepAlive,
                                           const std::string& backend) {
  return std::make_unique<ShimExecutor>(f, std::move(keepAlive), backend);
}

std::string entryShim(const ir::Pipeline& p, const std::string& K) {
  std::string s =
      "\n/* formac run: the workspace API behind pointer arrays (compiler/run/Executor.h). */\n";
  s += "void* formac_shim_create(const long long* params) {\n  (void)params;\n  return (void*)" + K +
       "_create(";
  for (size_t i = 0; i < p.params.size(); ++i) s += (i ? ", " : "") + std::string("(int)params[") + std::to_string(i) + "]";
  s += ");\n}\n";
  s += "int formac_shim_run(void* ws, void* const* args) {\n  (void)args;\n  return " + K + "_run((" + K +
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
  s += "void formac_shim_destroy(void* ws) { " + K + "_destroy((" + K + "_workspace*)ws); }\n";
  if (codegen::loopsOf(p).empty())
    s += "int formac_shim_rounds(void* ws, long long* rounds) {\n  (void)ws;\n  (void)rounds;\n  return 0;\n}\n";
  else
    s += "int formac_shim_rounds(void* ws, long long* rounds) { return " + K + "_loop_rounds((" + K +
         "_workspace*)ws, rounds); }\n";
  return s;
}

}  // namespace formac::run
