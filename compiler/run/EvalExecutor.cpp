// The evaluator as a backend: slow, everywhere, the definition of the semantics.
#include <cstring>

#include "eval/Evaluator.h"
#include "run/Executor.h"

namespace formac::run {
namespace {

double loadScalarArgument(ScalarKind k, const void* p) {
  switch (k) {
    case ScalarKind::Int8: return *static_cast<const unsigned char*>(p);
    case ScalarKind::Int16: return *static_cast<const short*>(p);
    case ScalarKind::Uint16: return *static_cast<const unsigned short*>(p);
    case ScalarKind::Int: return *static_cast<const int*>(p);
    case ScalarKind::Int64: return static_cast<double>(*static_cast<const long long*>(p));
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
    rounds_.clear();
    in.loopRounds = &rounds_;
    std::vector<eval::Buffer> out = eval::evaluate(p, in);
    for (size_t i = 0; i < out.size(); ++i)
      std::memcpy(args[p.inputs.size() + i], out[i].bytes.data(), out[i].bytes.size());
  }

  std::vector<long long> loopRounds() override { return rounds_; }

 private:
  std::shared_ptr<const ir::Pipeline> p_;
  std::vector<long long> params_;
  std::vector<long long> rounds_;
};

}  // namespace

std::unique_ptr<Executor> makeEvalExecutor(std::shared_ptr<const ir::Pipeline> p) {
  return std::make_unique<EvalExecutor>(std::move(p));
}

}  // namespace formac::run
