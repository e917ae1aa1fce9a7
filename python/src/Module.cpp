// formac._formac: the compiled half of the Python module `formac`
// (python/README.md); the pure-Python package (python/formac/) wraps it.
//
// Exceptions: formac.CompileError (a ValueError) for a bad program or
// target, with the compiler's `file:line:col: error: message` text;
// formac.Error (a RuntimeError) for a failure while running; TypeError and
// ValueError for arguments that do not fit (Arguments.h, HostArrays.h).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "Builder.h"
#include "DeviceBuffer.h"
#include "ImageFiles.h"
#include "PipelineObject.h"
#include "run/Executor.h"

namespace py = pybind11;
using formac::python::ImageSpec;
using formac::python::PipelineObject;

namespace {

py::dict describe(const ImageSpec& s) {
  py::dict d;
  d["name"] = s.name;
  d["type"] = s.typeName;
  d["dtype"] = formac::python::dtypeName(s.element);
  d["ndim"] = s.ndim();
  d["fields"] = s.fields;
  return d;
}

py::list describeAll(const std::vector<ImageSpec>& specs) {
  py::list l;
  for (const auto& s : specs) l.append(describe(s));
  return l;
}

}  // namespace

PYBIND11_MODULE(_formac, m) {
  m.doc() = "formac's compiler and runners (use the package `formac`)";
  // Plain handles, never released: a static py::object would be released
  // after the interpreter is gone.
  static py::handle error = PyErr_NewException("formac._formac.Error", PyExc_RuntimeError, nullptr);
  static py::handle compileError = PyErr_NewException("formac._formac.CompileError", PyExc_ValueError, nullptr);
  m.attr("Error") = error;
  m.attr("CompileError") = compileError;
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const formac::UserError& e) {
      PyErr_SetString(error.ptr(), e.what());
    }
  });

  formac::python::defineDeviceBuffer(m);
  formac::python::defineImageFiles(m);
  m.def("jit_available", &formac::run::jitAvailable,
        "True when this formac was built with the JIT (target='cpu' then runs compiled C, else the evaluator)");

  py::class_<PipelineObject>(m, "Pipeline")
      .def(py::init([](const std::string& text, const std::string& path, const std::string& target, bool fuse,
                       const std::string& name) {
             try {
               return new PipelineObject(text, path, target, fuse, name);
             } catch (const formac::UserError& e) {
               PyErr_SetString(compileError.ptr(), e.what());
               throw py::error_already_set();
             }
           }),
           py::arg("text"), py::arg("path") = "", py::arg("target") = "cpu", py::arg("fuse") = true,
           py::arg("name") = "")
      .def("__call__", &PipelineObject::call)
      .def("__repr__", &PipelineObject::repr)
      .def(
          "_time_native",
          [](PipelineObject& p, int repeat, const py::args& a, const py::kwargs& k) {
            return p.timeNative(repeat, 1, a, k);
          },
          "_time_native(repeat, *images, **values): seconds of each of `repeat` runs through the C++ API alone "
          "(cuda: each waited for)")
      .def("_time_native_queued", &PipelineObject::timeNative,
           "_time_native_queued(rounds, per_round, *images, **values): seconds a run through the C++ API alone, "
           "per round of `per_round` runs (cuda: enqueued, then one wait)")
      .def_property_readonly("name", &PipelineObject::name, "the entry point's name")
      .def_property_readonly("target", &PipelineObject::target)
      .def_property_readonly("backend", &PipelineObject::backend, "what runs it: jit, eval or cuda")
      .def_property_readonly(
          "inputs", [](const PipelineObject& p) { return describeAll(p.inputs()); },
          "the images it takes, in order: dicts of name, type, dtype, ndim, fields")
      .def_property_readonly(
          "outputs", [](const PipelineObject& p) { return describeAll(p.outputs()); }, "the results, in order")
      .def_property_readonly(
          "params", [](const PipelineObject& p) { return p.keywords().params; },
          "size parameters (found from the images' shapes where they stand alone as an extent)")
      .def_property_readonly(
          "scalars", [](const PipelineObject& p) { return p.keywords().scalars; }, "scalar inputs (keywords)")
      .def_property_readonly(
          "warnings", [](const PipelineObject& p) { return p.compiled().warnings(); },
          "the compiler's warnings, rendered")
      .def_property_readonly(
          "compile_seconds", [](const PipelineObject& p) { return p.compiled().compileSeconds(); });
  formac::python::defineBuilder(m, compileError);
}
