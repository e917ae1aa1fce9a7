#include "PipelineObject.h"

#include <chrono>

#include "DeviceArrays.h"
#include "HostArrays.h"
#include "run/CudaDriver.h"

namespace py = pybind11;

namespace formac::python {

CompileOptions targetOptions(const std::string& target, bool fuse, const std::string& name) {
  CompileOptions o;
  if (target == "cpu") o.backend = Backend::Default;
  else if (target == "eval") o.backend = Backend::Eval;
  else if (target == "cuda") o.backend = Backend::Cuda;
  else throw UserError("unknown target '" + target + "' (cpu, cuda or eval)");
  o.fuse = fuse;
  o.name = name;
  return o;
}

namespace {

CompileOptions withPath(CompileOptions o, const std::string& path) {
  o.sourcePath = path;
  return o;
}

}  // namespace

PipelineObject::PipelineObject(const std::string& text, const std::string& path, const std::string& target,
                               bool fuse, const std::string& name)
    : PipelineObject(compile(text, withPath(targetOptions(target, fuse, name), path)), target) {}

PipelineObject::PipelineObject(CompiledPipeline compiled, const std::string& target)
    : compiled_(std::move(compiled)), target_(target) {
  for (const auto& info : compiled_.inputImages()) inputs_.push_back(imageSpec(info));
  for (const auto& info : compiled_.outputImages()) outputs_.push_back(imageSpec(info));
  const ir::Pipeline& p = compiled_.pipeline();
  for (const auto& param : p.params) keywords_.params.push_back(param.name);
  for (const auto& s : p.scalars) keywords_.scalars.push_back(s.name);
  style_.program = compiled_.name();
  style_.giveValue = "NAME=VALUE";
  style_.giveImages = "the images";
}

const PipelineObject::Bound& PipelineObject::bind(std::vector<std::vector<long long>>& extents, Values& values) {
  if (haveLast_ && last_.extents == extents && last_.values == values) return last_;
  haveLast_ = false;
  try {
    last_.binding = compiled_.bind(extents, values, style_);
  } catch (const UserError& e) {
    throw py::value_error(e.what());
  }
  last_.outputExtents.clear();
  for (size_t i = 0; i < outputs_.size(); ++i)
    last_.outputExtents.push_back(compiled_.outputExtent(i, last_.binding.params));
  last_.extents.swap(extents);
  last_.values.swap(values);
  haveLast_ = true;
  return last_;
}

namespace {

py::object resultOf(std::vector<py::object>& results) {
  if (results.size() == 1) return results[0];
  py::tuple t(results.size());
  for (size_t i = 0; i < results.size(); ++i) t[i] = std::move(results[i]);
  return std::move(t);
}

}  // namespace

py::object PipelineObject::call(const py::args& args, const py::kwargs& kwargs) {
  CallArguments c = sortArguments(style_.program, inputs_, outputs_, keywords_, args, kwargs);
  Prepared p;
  prepare(c, p);
  {
    py::gil_scoped_release unlocked;
    runPrepared(p);
  }
  if (target_ == "cuda") {
    finishDeviceCall(p.device, p.results);
  } else {
    for (size_t i = 0; i < outputs_.size(); ++i)
      if (!p.results[i]) p.results[i] = numberAt(outputs_[i].element, &p.numbers[i]);
  }
  return resultOf(p.results);
}

std::vector<double> PipelineObject::timeNative(int rounds, int perRound, const py::args& args,
                                               const py::kwargs& kwargs) {
  CallArguments c = sortArguments(style_.program, inputs_, outputs_, keywords_, args, kwargs);
  Prepared p;
  prepare(c, p);
  std::vector<double> seconds;
  py::gil_scoped_release unlocked;
  for (int r = 0; r < rounds; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    for (int k = 0; k < perRound; ++k) runPrepared(p);
    if (target_ == "cuda") run::cuda::driver().check(run::cuda::driver().cuCtxSynchronize(), "cuCtxSynchronize");
    seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / perRound);
  }
  return seconds;
}

void PipelineObject::prepare(CallArguments& c, Prepared& p) {
  const std::string& program = style_.program;
  bool device = target_ == "cuda";
  if (device && !c.images.empty()) startDeviceCall(c.images[0], p.device);
  std::vector<std::vector<long long>> extents(inputs_.size());
  p.in.resize(inputs_.size());
  for (size_t i = 0; i < inputs_.size(); ++i)
    p.in[i] = device ? deviceInput(program, inputs_[i], c.images[i], extents[i], p.device)
                     : hostInput(program, inputs_[i], c.images[i], extents[i]);
  const Bound& b = bind(extents, c.values);
  p.binding = b.binding;  // last_ may change while the GIL is released

  p.results.resize(outputs_.size());
  p.out.resize(outputs_.size());
  p.numbers.resize(outputs_.size());
  for (size_t i = 0; i < outputs_.size(); ++i) {
    const ImageSpec& s = outputs_[i];
    if (device) {  // a rank-0 result: a 0-d array, read without waiting
      p.results[i] = deviceOutput(program, s, c.out[i], b.outputExtents[i], p.device, &p.out[i]);
    } else if (s.rank == 0 && !s.fields) {
      if (!c.out[i].is_none())
        throw py::type_error(program + ": result '" + s.name + "' is a number: its out= entry must be None");
      p.out[i] = &p.numbers[i];
    } else {
      py::array a = hostOutput(program, s, c.out[i], b.outputExtents[i]);
      p.out[i] = a.mutable_data();
      p.results[i] = std::move(a);
    }
  }
  checkNoOverlap(p, b.extents, b.outputExtents);  // b.extents: the inputs' (bind() took them)
}

void PipelineObject::checkNoOverlap(const Prepared& p, const std::vector<std::vector<long long>>& inputExtents,
                                    const std::vector<std::vector<long long>>& outputExtents) const {
  auto range = [](void* data, const ImageSpec& s, const std::vector<long long>& extent) {
    size_t bytes = s.elementBytes;
    for (long long e : extent) bytes *= static_cast<size_t>(e);
    auto* begin = static_cast<const char*>(data);
    return std::make_pair(begin, begin + bytes);
  };
  for (size_t o = 0; o < outputs_.size(); ++o) {
    auto out = range(p.out[o], outputs_[o], outputExtents[o]);
    for (size_t i = 0; i < inputs_.size(); ++i) {
      auto in = range(p.in[i], inputs_[i], inputExtents[i]);
      if (out.first < in.second && in.first < out.second && out.first != out.second)
        throw py::value_error(style_.program + ": out for '" + outputs_[o].name + "' shares memory with input '" +
                              inputs_[i].name + "'; formac does not run in place: give another array");
    }
  }
}

void PipelineObject::runPrepared(Prepared& p) {
  if (target_ == "cuda")
    compiled_.runOnDevice(p.binding, p.in, p.out, p.device.stream);
  else
    compiled_.run(p.binding, p.in, p.out);
}

std::string PipelineObject::repr() const {
  auto list = [](const std::vector<ImageSpec>& specs) {
    std::string t;
    for (const auto& s : specs)
      t += (t.empty() ? "" : ", ") + s.name + ": " + std::to_string(s.rank) + "-D " + s.typeName;
    return t;
  };
  std::string keywords;
  for (const auto& n : keywords_.params) keywords += ", " + n + "=<size>";
  for (const auto& n : keywords_.scalars) keywords += ", " + n + "=<number>";
  return "<formac.CompiledPipeline " + name() + "(" + list(inputs_) + keywords + ") -> (" + list(outputs_) + ") target='" +
         target_ + "' (" + backend() + ")>";
}

}  // namespace formac::python
