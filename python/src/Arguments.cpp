#include "Arguments.h"

#include <pybind11/numpy.h>

#include <algorithm>

namespace py = pybind11;

namespace formac::python {
namespace {

std::string listOf(const std::vector<std::string>& names) {
  std::string t;
  for (const auto& n : names) t += (t.empty() ? "'" : ", '") + n + "'";
  return t.empty() ? "none" : t;
}

bool contains(const std::vector<std::string>& names, const std::string& n) {
  return std::find(names.begin(), names.end(), n) != names.end();
}

// A parameter's or scalar's value: a Python int, float or bool, or a numpy
// scalar (np.float32(3)); never an array or a tensor, which would be read
// from the GPU or converted silently.
double numberOf(const std::string& program, const std::string& name, py::handle v) {
  if (PyFloat_Check(v.ptr())) return PyFloat_AS_DOUBLE(v.ptr());
  bool number = PyLong_Check(v.ptr()) ||
                (PyNumber_Check(v.ptr()) && !py::isinstance<py::array>(v) && !py::hasattr(v, "__dlpack__") &&
                 !py::hasattr(v, "__cuda_array_interface__"));
  if (number) {
    double d = PyFloat_AsDouble(v.ptr());
    if (!PyErr_Occurred()) return d;
    PyErr_Clear();
  }
  throw py::type_error(program + ": '" + name + "' takes a number, got " +
                       std::string(py::str(py::type::of(v).attr("__name__"))));
}

}  // namespace

CallArguments sortArguments(const std::string& program, const std::vector<ImageSpec>& inputs,
                            const std::vector<ImageSpec>& outputs, const KeywordNames& names,
                            const py::args& args, const py::kwargs& kwargs) {
  CallArguments c;
  c.images.assign(inputs.size(), py::handle());
  c.out.assign(outputs.size(), py::none());
  if (args.size() > inputs.size())
    throw py::type_error(program + " takes " + std::to_string(inputs.size()) + " image(s) positionally (" +
                         [&] {
                           std::vector<std::string> n;
                           for (const auto& s : inputs) n.push_back(s.name);
                           return listOf(n);
                         }() +
                         "), but " + std::to_string(args.size()) +
                         " were given; parameters and scalars go by keyword (k=3.0)");
  for (size_t i = 0; i < args.size(); ++i) c.images[i] = args[i];
  for (auto kv : kwargs) {
    std::string key = py::str(kv.first);
    py::handle v = kv.second;
    auto image = std::find_if(inputs.begin(), inputs.end(), [&](const ImageSpec& s) { return s.name == key; });
    if (image != inputs.end()) {
      size_t i = static_cast<size_t>(image - inputs.begin());
      if (c.images[i]) throw py::type_error(program + " got image '" + key + "' both positionally and by keyword");
      c.images[i] = v;
    } else if (key == "out") {
      if (v.is_none()) continue;
      if (!py::isinstance<py::tuple>(v)) {
        if (outputs.size() != 1)
          throw py::type_error(program + " returns " + std::to_string(outputs.size()) +
                               " results: out= takes a tuple with one entry (an array or None) per result");
        c.out[0] = v;
        continue;
      }
      py::tuple t = py::reinterpret_borrow<py::tuple>(v);
      if (t.size() != outputs.size())
        throw py::type_error(program + " returns " + std::to_string(outputs.size()) + " result(s), but out= has " +
                             std::to_string(t.size()) + " entries");
      for (size_t i = 0; i < t.size(); ++i) c.out[i] = t[i];
    } else if (contains(names.params, key) || contains(names.scalars, key)) {
      if (!v.is_none()) c.values[key] = numberOf(program, key, v);
    } else {
      std::vector<std::string> all;
      for (const auto& s : inputs) all.push_back(s.name);
      all.insert(all.end(), names.params.begin(), names.params.end());
      all.insert(all.end(), names.scalars.begin(), names.scalars.end());
      all.push_back("out");
      throw py::type_error(program + " got an unexpected keyword argument '" + key + "' (it takes " + listOf(all) +
                           ")");
    }
  }
  for (size_t i = 0; i < inputs.size(); ++i)
    if (!c.images[i])
      throw py::type_error(program + " is missing image '" + inputs[i].name + "' (" + inputs[i].describe() + ")");
  for (const auto& s : names.scalars)
    if (!c.values.count(s)) throw py::type_error(program + " is missing keyword argument '" + s + "' (a scalar input)");
  return c;
}

}  // namespace formac::python
