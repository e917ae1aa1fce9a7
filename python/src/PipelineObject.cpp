#include "PipelineObject.h"

#include "DeviceArrays.h"
#include "HostArrays.h"

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
  return target_ == "cuda" ? callOnDevice(c) : callOnHost(c);
}

py::object PipelineObject::callOnHost(CallArguments& c) {
  const std::string& program = style_.program;
  std::vector<std::vector<long long>> extents(inputs_.size());
  std::vector<void*> in(inputs_.size());
  for (size_t i = 0; i < inputs_.size(); ++i) in[i] = hostInput(program, inputs_[i], c.images[i], extents[i]);
  const Bound& b = bind(extents, c.values);

  std::vector<py::object> results(outputs_.size());
  std::vector<void*> out(outputs_.size());
  std::vector<double> numbers(outputs_.size());  // rank-0 results of a number type
  for (size_t i = 0; i < outputs_.size(); ++i) {
    const ImageSpec& s = outputs_[i];
    if (s.rank == 0 && !s.fields) {
      if (!c.out[i].is_none())
        throw py::type_error(program + ": result '" + s.name + "' is a number: its out= entry must be None");
      out[i] = &numbers[i];
      continue;
    }
    py::array a = hostOutput(program, s, c.out[i], b.outputExtents[i]);
    out[i] = a.mutable_data();
    results[i] = std::move(a);
  }
  run::Binding binding = b.binding;  // last_ may change while the GIL is released
  {
    py::gil_scoped_release unlocked;
    compiled_.run(binding, in, out);
  }
  for (size_t i = 0; i < outputs_.size(); ++i)
    if (!results[i]) results[i] = numberAt(outputs_[i].element, &numbers[i]);
  return resultOf(results);
}

py::object PipelineObject::callOnDevice(CallArguments& c) {
  const std::string& program = style_.program;
  DeviceCall call;
  if (!c.images.empty()) startDeviceCall(c.images[0], call);
  std::vector<std::vector<long long>> extents(inputs_.size());
  std::vector<void*> in(inputs_.size());
  for (size_t i = 0; i < inputs_.size(); ++i)
    in[i] = deviceInput(program, inputs_[i], c.images[i], extents[i], call);
  const Bound& b = bind(extents, c.values);

  std::vector<py::object> results(outputs_.size());  // a rank-0 result: a 0-d array, read without waiting
  std::vector<void*> out(outputs_.size());
  for (size_t i = 0; i < outputs_.size(); ++i)
    results[i] = deviceOutput(program, outputs_[i], c.out[i], b.outputExtents[i], call, &out[i]);
  run::Binding binding = b.binding;
  {
    py::gil_scoped_release unlocked;
    compiled_.runOnDevice(binding, in, out, call.stream);
  }
  finishDeviceCall(call, results);
  return resultOf(results);
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
  return "<formac.Pipeline " + name() + "(" + list(inputs_) + keywords + ") -> (" + list(outputs_) +
         ") target='" + target_ + "' (" + backend() + ")>";
}

}  // namespace formac::python
