#include "DeviceBuffer.h"

#include <dlpack/dlpack.h>

#include "Signature.h"

namespace py = pybind11;

namespace formac::python {
namespace {

using run::cuda::driver;

// Device 0's primary context made current (the cuda backend's, torch's,
// CuPy's); retained per buffer and released with it.
void usePrimaryContext() {
  run::cuda::CUcontext context = nullptr;
  driver().check(driver().cuDevicePrimaryCtxRetain(&context, 0), "cuDevicePrimaryCtxRetain");
  driver().check(driver().cuCtxSetCurrent(context), "cuCtxSetCurrent");
}

size_t bytesOf(const std::vector<long long>& shape, ScalarKind k) {
  size_t n = static_cast<size_t>(scalarSize(k));
  for (long long e : shape) n *= static_cast<size_t>(e);
  return n;
}

DLDataType dlpackType(ScalarKind k) {
  DLDataType t;
  t.code = isFloating(k) ? kDLFloat : (k == ScalarKind::Int8 || k == ScalarKind::Uint16) ? kDLUInt : kDLInt;
  t.bits = static_cast<uint8_t>(8 * scalarSize(k));
  t.lanes = 1;
  return t;
}

// The array interface's type string: "<f4".
std::string typestrOf(ScalarKind k) {
  char kind = isFloating(k) ? 'f' : dlpackType(k).code == kDLUInt ? 'u' : 'i';
  return std::string("<") + kind + std::to_string(scalarSize(k));
}

// One export: the tensor, its shape, and a reference to the buffer.
struct Export {
  DLManagedTensor tensor;
  std::vector<int64_t> shape;
  PyObject* owner;
};

void releaseExport(DLManagedTensor* t) {
  auto* e = static_cast<Export*>(t->manager_ctx);
  PyGILState_STATE gil = PyGILState_Ensure();  // consumers may let go without the GIL
  Py_DECREF(e->owner);
  PyGILState_Release(gil);
  delete e;
}

// A capsule never consumed still owns its tensor.
void releaseCapsule(PyObject* capsule) {
  if (!PyCapsule_IsValid(capsule, "dltensor")) return;
  auto* t = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, "dltensor"));
  t->deleter(t);
}

py::capsule exportBuffer(py::object self) {
  const auto& b = self.cast<const DeviceBuffer&>();
  auto* e = new Export;
  e->shape.assign(b.shape().begin(), b.shape().end());
  e->owner = self.release().ptr();
  DLTensor& t = e->tensor.dl_tensor;
  t.data = b.data();
  t.device = DLDevice{kDLCUDA, 0};
  t.ndim = static_cast<int>(e->shape.size());
  t.dtype = dlpackType(b.element());
  t.shape = e->shape.data();
  t.strides = nullptr;  // C-contiguous
  t.byte_offset = 0;
  e->tensor.manager_ctx = e;
  e->tensor.deleter = releaseExport;
  return py::capsule(&e->tensor, "dltensor", releaseCapsule);
}

}  // namespace

DeviceBuffer::DeviceBuffer(std::vector<long long> shape, ScalarKind element)
    : shape_(std::move(shape)), element_(element) {
  usePrimaryContext();
  size_t bytes = bytesOf(shape_, element_);
  driver().check(driver().cuMemAlloc(&pointer_, bytes ? bytes : 1),
                 "allocating " + std::to_string(bytes) + " bytes for a result (cuMemAlloc)");
}

DeviceBuffer::~DeviceBuffer() {
  if (driver().cuMemFree(pointer_) == 0) driver().cuDevicePrimaryCtxRelease(0);
}

void defineDeviceBuffer(py::module_& m) {
  py::class_<DeviceBuffer>(m, "DeviceBuffer", "GPU memory formac allocated for a result (DeviceBuffer.h)")
      .def_property_readonly("shape", [](const DeviceBuffer& b) { return py::tuple(py::cast(b.shape())); })
      .def_property_readonly("dtype", [](const DeviceBuffer& b) { return dtypeName(b.element()); })
      .def_property_readonly("__cuda_array_interface__",
                             [](const DeviceBuffer& b) {
                               py::dict d;
                               d["shape"] = py::tuple(py::cast(b.shape()));
                               d["typestr"] = typestrOf(b.element());
                               d["data"] = py::make_tuple(reinterpret_cast<uintptr_t>(b.data()), false);
                               d["strides"] = py::none();
                               d["version"] = 3;
                               return d;
                             })
      .def("__dlpack__", [](py::object self, py::kwargs) { return exportBuffer(std::move(self)); })
      .def("__dlpack_device__", [](const DeviceBuffer&) { return py::make_tuple(static_cast<int>(kDLCUDA), 0); });
}

}  // namespace formac::python
