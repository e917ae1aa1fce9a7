#include "DeviceArrays.h"

#include <dlpack/dlpack.h>
#include <pybind11/stl.h>

#include <map>

#include "ArrayChecks.h"
#include "DeviceBuffer.h"
#include "run/CudaDriver.h"

namespace py = pybind11;

namespace formac::python {
namespace {

// The libraries' functions are kept in static handles, never released: a
// static py::object would be released after the interpreter is gone.

// An array as either protocol describes it.
struct ArrayView {
  void* data = nullptr;
  std::vector<long long> shape;
  std::vector<long long> strides;  // in bytes; empty: C-contiguous
  char kind = '?';                 // 'i', 'u', 'f'
  int bytes = 0;
  std::string dtype;  // for messages: "float32"
};

std::string dtypeText(char kind, int bytes) {
  return std::string(kind == 'f'   ? "float"
                     : kind == 'u' ? "uint"
                     : kind == 'i' ? "int"
                                   : "?") +
         std::to_string(8 * bytes);
}

std::vector<long long> longs(py::handle tuple) {
  std::vector<long long> v;
  for (auto x : py::reinterpret_borrow<py::tuple>(tuple)) v.push_back(x.cast<long long>());
  return v;
}

ArrayView fromInterface(const py::dict& cai) {
  ArrayView v;
  std::string typestr = py::str(cai["typestr"]);
  v.kind = typestr.size() > 2 && typestr[0] != '>' ? typestr[1] : '?';
  v.bytes = typestr.size() > 2 ? std::atoi(typestr.c_str() + 2) : 0;
  v.dtype = v.kind == '?' ? typestr : dtypeText(v.kind, v.bytes);
  v.shape = longs(cai["shape"]);
  if (cai.contains("strides") && !cai["strides"].is_none()) v.strides = longs(cai["strides"]);
  v.data = reinterpret_cast<void*>(py::reinterpret_borrow<py::tuple>(cai["data"])[0].cast<uintptr_t>());
  return v;
}

ArrayView fromDlpack(py::handle given, DeviceCall& call) {
  // The consumer's stream for the producer to order its work before: 1 is
  // the legacy default stream in the protocol.
  py::object stream = call.stream ? py::int_(reinterpret_cast<uintptr_t>(call.stream)) : py::int_(1);
  py::object capsule = given.attr("__dlpack__")(py::arg("stream") = stream);
  auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), "dltensor"));
  if (!m) throw py::error_already_set();
  PyCapsule_SetName(capsule.ptr(), "used_dltensor");
  call.consumed.push_back(m);
  const DLTensor& t = m->dl_tensor;
  ArrayView v;
  v.data = static_cast<char*>(t.data) + t.byte_offset;
  v.shape.assign(t.shape, t.shape + t.ndim);
  v.bytes = t.dtype.bits / 8;
  bool plain = t.dtype.lanes == 1 && t.dtype.bits % 8 == 0;
  v.kind = !plain                     ? '?'
           : t.dtype.code == kDLFloat ? 'f'
           : t.dtype.code == kDLUInt  ? 'u'
           : t.dtype.code == kDLInt   ? 'i'
                                      : '?';
  v.dtype = v.kind == '?' ? "DLPack type code " + std::to_string(t.dtype.code) : dtypeText(v.kind, v.bytes);
  if (t.strides)
    for (int d = 0; d < t.ndim; ++d) v.strides.push_back(t.strides[d] * v.bytes);
  return v;
}

DeviceCall::Library libraryOf(py::handle given) {
  std::string module = py::str(py::handle(reinterpret_cast<PyObject*>(Py_TYPE(given.ptr()))).attr("__module__"));
  if (module.rfind("torch", 0) == 0) return DeviceCall::Torch;
  if (module.rfind("cupy", 0) == 0) return DeviceCall::CuPy;
  if (module.rfind("jax", 0) == 0) return DeviceCall::Jax;
  return DeviceCall::Other;
}

// A torch tensor read directly: its __cuda_array_interface__ is a Python
// property that costs several microseconds a call.
ArrayView fromTorch(py::handle t) {
  static const std::map<std::string, std::pair<char, int>> kinds = {
      {"torch.uint8", {'u', 1}}, {"torch.int16", {'i', 2}},   {"torch.uint16", {'u', 2}}, {"torch.int32", {'i', 4}},
      {"torch.int64", {'i', 8}}, {"torch.float32", {'f', 4}}, {"torch.float64", {'f', 8}}};
  ArrayView v;
  v.dtype = py::str(t.attr("dtype"));
  auto kind = kinds.find(v.dtype);
  if (kind != kinds.end()) v.kind = kind->second.first, v.bytes = kind->second.second;
  v.shape = longs(t.attr("shape"));
  for (long long e : longs(t.attr("stride")())) v.strides.push_back(e * v.bytes);
  v.data = reinterpret_cast<void*>(t.attr("data_ptr")().cast<uintptr_t>());
  return v;
}

void checkDevice(const std::string& program, const std::string& what, const ImageSpec& s, py::handle given, int type,
                 int id) {
  if (type != kDLCUDA && type != kDLCUDAManaged)
    notADeviceArray(program, what, s, given,
                    "its memory is not on a CUDA device (DLPack device type " + std::to_string(type) + ")");
  if (id != 0)
    throw py::value_error(program + ": " + what + " is on CUDA device " + std::to_string(id) +
                          ", but formac's cuda target runs on device 0");
}

bool cContiguous(const ArrayView& v) {
  if (v.strides.empty()) return true;
  long long expect = v.bytes;
  for (size_t d = v.shape.size(); d-- > 0;) {
    if (v.shape[d] != 1 && v.strides[d] != expect) return false;
    expect *= v.shape[d];
  }
  return true;
}

// The array behind `given`, checked to be on CUDA device 0.
ArrayView viewOf(const std::string& program, const std::string& what, const ImageSpec& s, py::handle given,
                 DeviceCall& call) {
  if (libraryOf(given) == DeviceCall::Torch) {
    int id = given.attr("get_device")().cast<int>();  // -1: the CPU
    checkDevice(program, what, s, given, id < 0 ? kDLCPU : kDLCUDA, id);
    return fromTorch(given);
  }
  bool cai = py::hasattr(given, "__cuda_array_interface__");
  if (!cai && !py::hasattr(given, "__dlpack__"))
    notADeviceArray(program, what, s, given, "it has neither __cuda_array_interface__ nor __dlpack__");
  if (py::hasattr(given, "__dlpack_device__")) {
    py::tuple device = given.attr("__dlpack_device__")();
    checkDevice(program, what, s, given, device[0].cast<int>(), device[1].cast<int>());
  }
  return cai ? fromInterface(given.attr("__cuda_array_interface__")) : fromDlpack(given, call);
}

// The array's extent for image `s` (its shape less the field axis).
std::vector<long long> checkView(const std::string& program, const std::string& what, const ImageSpec& s,
                                 const ArrayView& v) {
  char kind = isFloating(s.element)                                                ? 'f'
              : (s.element == ScalarKind::Int8 || s.element == ScalarKind::Uint16) ? 'u'
                                                                                   : 'i';
  if (v.kind != kind || v.bytes != scalarSize(s.element))
    wrongDtype(program, what, s, v.dtype,
               std::string("torch: .to(torch.") + dtypeName(s.element) + "); CuPy, JAX: .astype(\"" +
                   dtypeName(s.element) + "\")");
  std::vector<long long> extent = extentOf(program, what, s, v.shape);
  if (!cContiguous(v)) notContiguous(program, what, v.shape, v.strides, "a contiguous array (.contiguous(), .copy())");
  return extent;
}

py::object allocate(const ImageSpec& s, const std::vector<long long>& shape, const DeviceCall& call, void** data) {
  py::tuple dims = py::cast(shape);
  if (call.library == DeviceCall::Torch) {
    static py::handle torch = py::module_::import("torch").release();
    py::object t =
        torch.attr("empty")(dims, py::arg("dtype") = torch.attr(dtypeName(s.element)), py::arg("device") = "cuda:0");
    *data = reinterpret_cast<void*>(t.attr("data_ptr")().cast<uintptr_t>());
    return t;
  }
  if (call.library == DeviceCall::CuPy) {
    static py::handle cupy = py::module_::import("cupy").release();
    py::object a = cupy.attr("empty")(dims, py::arg("dtype") = dtypeName(s.element));
    *data = reinterpret_cast<void*>(a.attr("data").attr("ptr").cast<uintptr_t>());
    return a;
  }
  auto buffer = std::make_unique<DeviceBuffer>(shape, s.element);
  *data = buffer->data();
  return py::cast(std::move(buffer));
}

}  // namespace

DeviceCall::~DeviceCall() {
  for (void* m : consumed) {
    auto* t = static_cast<DLManagedTensor*>(m);
    if (t->deleter) t->deleter(t);
  }
}

void notADeviceArray(const std::string& program, const std::string& what, const ImageSpec& s, py::handle given,
                     const std::string& why) {
  throw py::type_error(program + ": " + what + " is a " + typeNameOf(given) + " and " + why +
                       ", but this pipeline's target is 'cuda': pass a GPU array (torch, CuPy, JAX) of " +
                       dtypeName(s.element) + " (the program's '" + s.name + "' is " + s.describe() +
                       "), or compile for target='cpu' for numpy arrays");
}

void startDeviceCall(py::handle first, DeviceCall& call) {
  call.library = libraryOf(first);
  if (call.library == DeviceCall::Torch) {
    static py::handle currentStream = py::object(py::module_::import("torch.cuda").attr("current_stream")).release();
    call.stream = reinterpret_cast<void*>(currentStream(0).attr("cuda_stream").cast<uintptr_t>());
  } else if (call.library == DeviceCall::CuPy) {
    static py::handle currentStream = py::object(py::module_::import("cupy.cuda").attr("get_current_stream")).release();
    call.stream = reinterpret_cast<void*>(currentStream().attr("ptr").cast<uintptr_t>());
  }
}

void* deviceInput(const std::string& program, const ImageSpec& s, py::handle given, std::vector<long long>& extent,
                  DeviceCall& call) {
  std::string what = "input '" + s.name + "'";
  ArrayView v = viewOf(program, what, s, given, call);
  extent = checkView(program, what, s, v);
  if (call.library == DeviceCall::Jax && py::hasattr(given, "block_until_ready")) given.attr("block_until_ready")();
  return v.data;
}

py::object deviceOutput(const std::string& program, const ImageSpec& s, py::handle given,
                        const std::vector<long long>& extent, DeviceCall& call, void** data) {
  if (given.is_none()) return allocate(s, s.shapeOf(extent), call, data);
  std::string what = "out for '" + s.name + "'";
  ArrayView v = viewOf(program, what, s, given, call);
  std::vector<long long> e = checkView(program, what, s, v);
  if (e != extent) wrongOutExtent(program, what, s, e, extent);
  *data = v.data;
  return py::reinterpret_borrow<py::object>(given);
}

void finishDeviceCall(DeviceCall& call, std::vector<py::object>& results) {
  if (call.library == DeviceCall::Torch || call.library == DeviceCall::CuPy) return;
  {
    py::gil_scoped_release unlocked;
    run::cuda::driver().check(run::cuda::driver().cuCtxSynchronize(), "waiting for the pipeline (cuCtxSynchronize)");
  }
  if (call.library != DeviceCall::Jax) return;
  static py::handle fromDlpack = py::object(py::module_::import("jax.dlpack").attr("from_dlpack")).release();
  // JAX with its 64-bit types off (its default) would turn a float64 or int64
  // result into 32 bits on import: an error, never a silent conversion.
  static py::handle canonical = py::object(py::module_::import("jax.dtypes").attr("canonicalize_dtype")).release();
  for (auto& r : results)
    if (r && py::isinstance<DeviceBuffer>(r)) {
      std::string dtype = py::str(r.attr("dtype")), jax = py::str(canonical(r.attr("dtype")));
      if (jax != dtype)
        throw py::type_error("a result is " + dtype + ", which JAX turns into " + jax +
                             " while its 64-bit types are off: call jax.config.update(\"jax_enable_x64\", True) "
                             "first, or pass torch or CuPy arrays");
      r = fromDlpack(r);
    }
}

}  // namespace formac::python
