#include "ArrayChecks.h"

namespace py = pybind11;

namespace formac::python {

std::string typeNameOf(py::handle h) {
  py::handle t = reinterpret_cast<PyObject*>(Py_TYPE(h.ptr()));
  return std::string(py::str(t.attr("__module__"))) + "." + std::string(py::str(t.attr("__qualname__")));
}

void wrongDtype(const std::string& program, const std::string& what, const ImageSpec& s, const std::string& dtype,
                const std::string& fix) {
  throw py::type_error(program + ": " + what + " has dtype " + dtype + ", but the program's '" + s.name + "' is " +
                       s.describe() + "; formac converts nothing: pass an array of " + dtypeName(s.element) + " (" +
                       fix + ")");
}

std::vector<long long> extentOf(const std::string& program, const std::string& what, const ImageSpec& s,
                                const std::vector<long long>& shape) {
  if (static_cast<int>(shape.size()) != s.ndim() || (s.fields && shape.back() != s.fields))
    throw py::value_error(program + ": " + what + " has shape " + shapeText(shape) + ", but the program's '" + s.name +
                          "' is " + s.describe());
  std::vector<long long> extent = shape;
  if (s.fields) extent.pop_back();
  return extent;
}

void notContiguous(const std::string& program, const std::string& what, const std::vector<long long>& shape,
                   const std::vector<long long>& strides, const std::string& fix) {
  throw py::value_error(program + ": " + what + " is not C-contiguous (shape " + shapeText(shape) +
                        ", strides in bytes " + shapeText(strides) + "); formac copies nothing: pass " + fix);
}

void wrongOutExtent(const std::string& program, const std::string& what, const ImageSpec& s,
                    const std::vector<long long>& given, const std::vector<long long>& result) {
  throw py::value_error(program + ": " + what + " has shape " + shapeText(s.shapeOf(given)) + ", but the result has " +
                        shapeText(s.shapeOf(result)));
}

}  // namespace formac::python
