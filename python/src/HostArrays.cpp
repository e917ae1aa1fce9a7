#include "HostArrays.h"

namespace py = pybind11;

namespace formac::python {
namespace {

std::string typeNameOf(py::handle h) {
  py::handle t = reinterpret_cast<PyObject*>(Py_TYPE(h.ptr()));
  return std::string(py::str(t.attr("__module__"))) + "." + std::string(py::str(t.attr("__qualname__")));
}

// Checks the array as image `s` ("input 'img'" / "out[0] ('edges')");
// returns its extent.
std::vector<long long> checkArray(const std::string& program, const std::string& what, const ImageSpec& s,
                                  const py::array& a) {
  auto* descr = py::detail::array_descriptor_proxy(py::detail::array_proxy(a.ptr())->descr);
  int alternative = 0;
  int want = numpyTypeNumber(s.element, &alternative);
  if ((descr->type_num != want && descr->type_num != alternative) || descr->byteorder == '>')
    throw py::type_error(program + ": " + what + " has dtype " + std::string(py::str(a.dtype())) + ", but the program's '" +
                         s.name + "' is " + s.describe() + "; formac converts nothing: pass an array of " +
                         dtypeName(s.element) + " (.astype(numpy." + dtypeName(s.element) + "))");
  std::vector<long long> shape(a.shape(), a.shape() + a.ndim());
  bool fits = a.ndim() == s.ndim() && (!s.fields || shape.back() == s.fields);
  if (!fits)
    throw py::value_error(program + ": " + what + " has shape " + shapeText(shape) + ", but the program's '" + s.name +
                          "' is " + s.describe());
  if (!(a.flags() & py::array::c_style))
    throw py::value_error(program + ": " + what + " is not C-contiguous (shape " + shapeText(shape) + ", strides " +
                          shapeText(std::vector<long long>(a.strides(), a.strides() + a.ndim())) +
                          "); formac copies nothing: pass numpy.ascontiguousarray(...)");
  if (s.fields) shape.pop_back();
  return shape;
}

}  // namespace

void notAHostArray(const std::string& program, const std::string& what, const ImageSpec& s, py::handle given) {
  bool gpu = py::hasattr(given, "__cuda_array_interface__") || py::hasattr(given, "__dlpack_device__");
  throw py::type_error(program + ": " + what + " is a " + typeNameOf(given) +
                       (gpu ? " (not a numpy array; a GPU array needs target='cuda')" : "") +
                       ", but this pipeline's target is the CPU: pass a numpy.ndarray of " + dtypeName(s.element) +
                       " (the program's '" + s.name + "' is " + s.describe() + ")");
}

void* hostInput(const std::string& program, const ImageSpec& s, py::handle given, std::vector<long long>& extent) {
  std::string what = "input '" + s.name + "'";
  if (!py::isinstance<py::array>(given)) notAHostArray(program, what, s, given);
  auto a = py::reinterpret_borrow<py::array>(given);
  extent = checkArray(program, what, s, a);
  return const_cast<void*>(a.data());
}

py::array hostOutput(const std::string& program, const ImageSpec& s, py::handle given,
                     const std::vector<long long>& extent) {
  std::vector<long long> shape = s.shapeOf(extent);
  if (given.is_none()) return py::array(py::dtype(dtypeName(s.element)), std::vector<py::ssize_t>(shape.begin(), shape.end()));
  std::string what = "out for '" + s.name + "'";
  if (!py::isinstance<py::array>(given)) notAHostArray(program, what, s, given);
  auto a = py::reinterpret_borrow<py::array>(given);
  std::vector<long long> e = checkArray(program, what, s, a);
  if (e != extent)
    throw py::value_error(program + ": " + what + " has shape " + shapeText(s.shapeOf(e)) + ", but the result has " +
                          shapeText(shape));
  if (!a.writeable()) throw py::value_error(program + ": " + what + " is read-only");
  return a;
}

py::object numberAt(ScalarKind k, const void* at) {
  switch (k) {
    case ScalarKind::Int8: return py::int_(*static_cast<const unsigned char*>(at));
    case ScalarKind::Int16: return py::int_(*static_cast<const short*>(at));
    case ScalarKind::Uint16: return py::int_(*static_cast<const unsigned short*>(at));
    case ScalarKind::Int: return py::int_(*static_cast<const int*>(at));
    case ScalarKind::Int64: return py::int_(*static_cast<const long long*>(at));
    case ScalarKind::Float: return py::float_(*static_cast<const float*>(at));
    case ScalarKind::Double: return py::float_(*static_cast<const double*>(at));
  }
  return py::none();
}

}  // namespace formac::python
