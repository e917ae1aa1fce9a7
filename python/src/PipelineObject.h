// PipelineObject: a compiled pipeline as the Python callable
// `formac.CompiledPipeline`: `p(img, other, k=3.0, out=None)`.
//
// The call path is kept lean (a cached pipeline on a 1x1 image takes a few
// microseconds, bench/python): the signature's specs are computed once at
// compile time, and the binding (parameters found from the extents, output
// extents) is kept for the last input extents and values, so repeated
// calls on one shape skip it.
#pragma once

#include <pybind11/pybind11.h>

#include <string>
#include <vector>

#include "Arguments.h"
#include "DeviceArrays.h"
#include "Signature.h"

namespace formac::python {

// The options of `target` ("cpu", "eval" or "cuda"; UserError otherwise).
CompileOptions targetOptions(const std::string& target, bool fuse, const std::string& name);

class PipelineObject {
 public:
  // `target`: "cpu" (the JIT, or the evaluator where formac has no JIT),
  // "eval" (the reference evaluator) or "cuda". Throws UserError for a bad
  // program or target.
  PipelineObject(const std::string& text, const std::string& path, const std::string& target, bool fuse,
                 const std::string& name);
  // A pipeline compiled already (the builder's, python/src/Builder.cpp) for `target`.
  PipelineObject(CompiledPipeline compiled, const std::string& target);

  pybind11::object call(const pybind11::args& args, const pybind11::kwargs& kwargs);
  // Seconds a run through the C++ API alone (CompiledPipeline::run, or
  // runOnDevice) on these arguments, per round of `perRound` runs (cuda:
  // enqueued, then one wait): what the same call costs from C++, for
  // bench/python.
  std::vector<double> timeNative(int rounds, int perRound, const pybind11::args& args,
                                 const pybind11::kwargs& kwargs);

  const std::string& target() const { return target_; }
  const std::string& name() const { return compiled_.name(); }
  const char* backend() const { return backendName(compiled_.backend()); }
  const std::vector<ImageSpec>& inputs() const { return inputs_; }
  const std::vector<ImageSpec>& outputs() const { return outputs_; }
  const KeywordNames& keywords() const { return keywords_; }
  const CompiledPipeline& compiled() const { return compiled_; }
  std::string repr() const;

 private:
  // What the last extents and values bound to.
  struct Bound {
    std::vector<std::vector<long long>> extents;
    Values values;
    run::Binding binding;
    std::vector<std::vector<long long>> outputExtents;
  };
  const Bound& bind(std::vector<std::vector<long long>>& extents, Values& values);
  // A call's arrays checked, bound and its outputs made: numpy arrays
  // (HostArrays.h) or, for cuda, GPU arrays (DeviceArrays.h).
  struct Prepared {
    DeviceCall device;
    std::vector<void*> in, out;
    std::vector<pybind11::object> results;  // host: null for a number result, read from `numbers`
    std::vector<double> numbers;
    run::Binding binding;
  };
  void prepare(CallArguments& c, Prepared& p);
  void runPrepared(Prepared& p);  // without the GIL
  // A ValueError when an output's memory overlaps an input's (out= given an input).
  void checkNoOverlap(const Prepared& p, const std::vector<std::vector<long long>>& inputExtents,
                      const std::vector<std::vector<long long>>& outputExtents) const;

  CompiledPipeline compiled_;
  std::string target_;
  std::vector<ImageSpec> inputs_, outputs_;
  KeywordNames keywords_;
  run::BindStyle style_;
  Bound last_;
  bool haveLast_ = false;
};

}  // namespace formac::python
