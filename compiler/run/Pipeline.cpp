#include "run/Pipeline.h"

#include <cctype>
#include <chrono>
#include <mutex>

#include "codegen/StageFacts.h"
#include "frontend/EntryName.h"
#include "frontend/Frontend.h"
#include "run/Executor.h"

namespace formac {

struct CompiledPipeline::State {
  std::shared_ptr<SourceFile> source;
  SourceFiles imported;  // the program's imports: the pipeline's locations point into them
  std::shared_ptr<const SourceFiles> built;  // a built program's host files (its locations)
  std::shared_ptr<const ir::Pipeline> pipeline;
  std::string name;
  Backend backend = Backend::Eval;
  std::vector<std::string> warnings;
  double compileSeconds = 0;
  run::CompileReport report;
  std::unique_ptr<run::Executor> executor;
  std::mutex mutex;  // run(): the executor and its workspace
  bool prepared = false;
  std::vector<long long> preparedParams;
};

namespace {

void checkExtent(const std::string& what, const std::vector<long long>& given, const std::vector<long long>& want) {
  if (given == want) return;
  auto text = [](const std::vector<long long>& e) {
    std::string t;
    for (size_t d = 0; d < e.size(); ++d) t += (d ? ", " : "") + std::to_string(e[d]);
    return "[" + t + "]";
  };
  throw UserError(what + " has extent " + text(given) + ", but the program computes " + text(want));
}

}  // namespace

const char* backendName(Backend b) {
  switch (b) {
    case Backend::Default: return "default";
    case Backend::Eval: return "eval";
    case Backend::Jit: return "jit";
    case Backend::Cuda: return "cuda";
  }
  return "?";
}

Backend parseBackend(const std::string& name) {
  if (name == "eval") return Backend::Eval;
  if (name == "jit") return Backend::Jit;
  if (name == "cuda") return Backend::Cuda;
  throw UserError("unknown backend '" + name + "' (jit, eval or cuda)");
}

Backend defaultBackend() { return run::jitAvailable() ? Backend::Jit : Backend::Eval; }

namespace {

// Everything after the front end, shared by text and built programs.
CompiledPipeline finish(std::shared_ptr<CompiledPipeline::State> s, ir::Pipeline pipeline, const Warnings& warnings,
                        const CompileOptions& o, std::chrono::steady_clock::time_point t0) {
  s->warnings = warnings.rendered();
  s->pipeline = std::make_shared<const ir::Pipeline>(std::move(pipeline));

  run::BackendOptions bo;
  bo.kernelName = s->name;
  bo.sourcePath = s->source->path;
  bo.fuse = o.fuse;
  bo.useCache = o.useCache;
  bo.cacheDir = o.cacheDir;
  switch (s->backend) {
    case Backend::Jit: s->executor = run::makeJitExecutor(s->pipeline, bo, s->report); break;
    case Backend::Cuda: s->executor = run::makeCudaExecutor(s->pipeline, bo, s->report); break;
    default: s->executor = run::makeEvalExecutor(s->pipeline); break;
  }
  s->compileSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return CompiledPipeline::fromState(std::move(s));
}

std::shared_ptr<CompiledPipeline::State> startState(const CompileOptions& o, const std::string& defaultPath,
                                                    const std::string& text, Warnings& warnings) {
  auto s = std::make_shared<CompiledPipeline::State>();
  s->source = std::make_shared<SourceFile>(SourceFile{o.sourcePath.empty() ? defaultPath : o.sourcePath, text});
  s->name = entryPointName(o.sourcePath, o.name, warnings);
  s->backend = o.backend == Backend::Default ? defaultBackend() : o.backend;
  return s;
}

}  // namespace

CompiledPipeline CompiledPipeline::fromState(std::shared_ptr<State> s) {
  CompiledPipeline p;
  p.s_ = std::move(s);
  return p;
}

CompiledPipeline compile(const std::string& sourceText, const CompileOptions& o) {
  auto t0 = std::chrono::steady_clock::now();
  Warnings warnings;
  auto s = startState(o, "<memory>", sourceText, warnings);
  std::vector<std::string> importPath = o.importPath;
  for (auto& dir : defaultImportPath()) importPath.push_back(dir);
  ir::Pipeline pipeline = checkedPipeline(*s->source, s->name, warnings, s->imported, importPath);
  return finish(s, std::move(pipeline), warnings, o, t0);
}

CompiledPipeline compile(const ast::Program& program, std::shared_ptr<const SourceFiles> files,
                         const CompileOptions& o) {
  auto t0 = std::chrono::steady_clock::now();
  Warnings warnings;
  auto s = startState(o, "<builder>", "", warnings);
  s->built = std::move(files);
  ir::Pipeline pipeline = checkedPipeline(program, s->name, warnings);
  return finish(s, std::move(pipeline), warnings, o, t0);
}

Backend CompiledPipeline::backend() const { return s_->backend; }
const std::string& CompiledPipeline::name() const { return s_->name; }
const ir::Pipeline& CompiledPipeline::pipeline() const { return *s_->pipeline; }
const std::vector<std::string>& CompiledPipeline::warnings() const { return s_->warnings; }
double CompiledPipeline::compileSeconds() const { return s_->compileSeconds; }
bool CompiledPipeline::cached() const { return s_->report.cached; }
const std::vector<std::string>& CompiledPipeline::notes() const { return s_->report.notes; }
std::vector<bool> CompiledPipeline::loopsSettle() const {
  std::vector<bool> settles = s_->report.settles;
  settles.resize(codegen::loopsOf(*s_->pipeline).size(), false);
  return settles;
}

std::vector<ImageInfo> CompiledPipeline::inputImages() const {
  std::vector<ImageInfo> out;
  for (int id : run::imageInputs(*s_->pipeline)) {
    const ir::Stage& st = s_->pipeline->stages[static_cast<size_t>(id)];
    out.push_back({ir::userText(*s_->pipeline, id), st.type, st.rank()});
  }
  return out;
}

std::vector<ImageInfo> CompiledPipeline::outputImages() const {
  std::vector<ImageInfo> out;
  for (int id : s_->pipeline->outputs) {
    const ir::Stage& st = s_->pipeline->stages[static_cast<size_t>(id)];
    out.push_back({ir::userText(*s_->pipeline, id), st.type, st.rank()});
  }
  return out;
}

run::Binding CompiledPipeline::bind(const std::vector<std::vector<long long>>& inputExtents, const Values& values,
                                    const run::BindStyle& style) const {
  std::vector<run::GivenImage> images;
  std::vector<ImageInfo> ins = inputImages();
  for (size_t i = 0; i < inputExtents.size(); ++i)
    images.push_back({inputExtents[i], i < ins.size() ? "input '" + ins[i].name + "'" : "input " + std::to_string(i)});
  return run::bind(*s_->pipeline, images, values, style);
}

std::vector<long long> CompiledPipeline::outputExtent(size_t i, const std::vector<long long>& params) const {
  return run::stageExtent(*s_->pipeline, s_->pipeline->outputs.at(i), params);
}

void CompiledPipeline::run(const std::vector<ImageRef>& inputs, const Values& values,
                           const std::vector<ImageRef>& outputs) {
  run::BindStyle style;
  style.program = s_->source->path;
  style.giveValue = "values[\"NAME\"] = VALUE";
  style.giveImages = "the inputs";
  std::vector<std::vector<long long>> extents;
  std::vector<void*> in, out;
  for (const auto& r : inputs) {
    extents.push_back(r.extent);
    in.push_back(r.data);
  }
  run::Binding b = bind(extents, values, style);
  std::vector<ImageInfo> outs = outputImages();
  if (outputs.size() != outs.size())
    throw UserError(style.program + " returns " + std::to_string(outs.size()) + " image(s), but " +
                    std::to_string(outputs.size()) + " output buffer(s) were given");
  for (size_t i = 0; i < outputs.size(); ++i) {
    checkExtent("output '" + outs[i].name + "'", outputs[i].extent, outputExtent(i, b.params));
    out.push_back(outputs[i].data);
  }
  for (size_t i = 0; i < inputs.size(); ++i)
    if (!inputs[i].data) throw UserError("input '" + inputImages()[i].name + "' has no data (a null pointer)");
  for (size_t i = 0; i < outputs.size(); ++i)
    if (!outputs[i].data) throw UserError("output '" + outs[i].name + "' has no data (a null pointer)");
  run(b, in, out);
}

std::vector<long long> CompiledPipeline::loopRounds() const {
  std::lock_guard<std::mutex> lock(s_->mutex);
  return s_->prepared ? s_->executor->loopRounds() : std::vector<long long>{};
}

namespace {

// Prepares the executor for `b` (when its parameters changed) and calls
// `go(args)` with the entry point's arguments: images and scalars, outputs.
template <typename Go>
void withArguments(CompiledPipeline::State& s, const run::Binding& b, const std::vector<void*>& inputs,
                   const std::vector<void*>& outputs, Go&& go) {
  const ir::Pipeline& p = *s.pipeline;
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!s.prepared || s.preparedParams != b.params) {
    s.prepared = false;
    s.executor->prepare(b.params);
    s.prepared = true;
    s.preparedParams = b.params;
  }
  // Scalars by pointer, each in an 8-byte slot of its C type.
  std::vector<double> slots(p.scalars.size());
  for (size_t i = 0; i < p.scalars.size(); ++i) run::storeScalarArgument(p.scalars[i].type, b.scalars.at(i), &slots[i]);
  std::vector<void*> args;
  size_t nextImage = 0;
  for (const auto& in : p.inputs)
    args.push_back(in.kind == ir::EntryArg::Image ? inputs.at(nextImage++)
                                                  : static_cast<void*>(&slots[static_cast<size_t>(in.index)]));
  for (void* o : outputs) args.push_back(o);
  FORMAC_INTERNAL_CHECK(args.size() == p.inputs.size() + p.outputs.size(), "wrong number of run arguments");
  go(*s.executor, args.data());
}

}  // namespace

void CompiledPipeline::run(const run::Binding& b, const std::vector<void*>& inputs,
                           const std::vector<void*>& outputs) {
  withArguments(*s_, b, inputs, outputs, [](run::Executor& e, void* const* args) { e.run(args); });
}

void CompiledPipeline::runOnDevice(const run::Binding& b, const std::vector<void*>& inputs,
                                   const std::vector<void*>& outputs, void* stream) {
  withArguments(*s_, b, inputs, outputs,
                [stream](run::Executor& e, void* const* args) { e.runOnDevice(args, stream); });
}

}  // namespace formac
