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

// The tensor of a DLPack capsule, which `call` releases after the run; its
// device in `device` (DLPack's type, id).
ArrayView fromCapsule(const py::object& capsule, DeviceCall& call, std::pair<int, int>& device) {
  auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), "dltensor"));
  if (!m) throw py::error_already_set();
  PyCapsule_SetName(capsule.ptr(), "used_dltensor");
  call.consumed.push_back(m);
  const DLTensor& t = m->dl_tensor;
  device = {static_cast<int>(t.device.device_type), t.device.device_id};
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

ArrayView fromDlpack(py::handle given, DeviceCall& call) {
  // The consumer's stream for the producer to order its work before: 1 is
  // the legacy default stream in the protocol.
  py::object stream = call.stream ? py::int_(reinterpret_cast<uintptr_t>(call.stream)) : py::int_(1);
  std::pair<int, int> device;
  return fromCapsule(given.attr("__dlpack__")(py::arg("stream") = stream), call, device);
}

// torch's C module (imported once, at the first torch array).
py::handle torchC() {
  static py::handle m = py::module_::import("torch._C").release();
  return m;
}

DeviceCall::Library libraryOf(py::handle given) {
  // By the array's type, found once a type (the cache keeps the type alive).
  static std::map<PyObject*, DeviceCall::Library> known;
  PyObject* type = reinterpret_cast<PyObject*>(Py_TYPE(given.ptr()));
  auto k = known.find(type);
  if (k != known.end()) return k->second;
  std::string module = py::str(py::handle(type).attr("__module__"));
  DeviceCall::Library library = module.rfind("torch", 0) == 0  ? DeviceCall::Torch
                                : module.rfind("cupy", 0) == 0 ? DeviceCall::CuPy
                                : module.rfind("jax", 0) == 0  ? DeviceCall::Jax
                                                               : DeviceCall::Other;
  Py_INCREF(type);
  known[type] = library;
  return library;
}

// The items of a tuple of ints (torch.Size, a stride tuple).
std::vector<long long> tupleLongs(py::handle tuple) {
  PyObject* t = tuple.ptr();
  if (!PyTuple_Check(t)) return longs(tuple);
  std::vector<long long> v(static_cast<size_t>(PyTuple_GET_SIZE(t)));
  for (size_t i = 0; i < v.size(); ++i) v[i] = PyLong_AsLongLong(PyTuple_GET_ITEM(t, static_cast<Py_ssize_t>(i)));
  if (PyErr_Occurred()) throw py::error_already_set();
  return v;
}

// A torch tensor through its attributes (data_ptr(), dtype, shape, stride()):
// about 3 us a tensor. torch's dtypes are singletons, so a dtype is known by
// its identity after the first call.
ArrayView fromTorchAttributes(py::handle t) {
  static const std::map<std::string, std::pair<char, int>> kinds = {
      {"torch.uint8", {'u', 1}}, {"torch.int16", {'i', 2}},   {"torch.uint16", {'u', 2}}, {"torch.int32", {'i', 4}},
      {"torch.int64", {'i', 8}}, {"torch.float32", {'f', 4}}, {"torch.float64", {'f', 8}}};
  struct Kind {
    std::string name;
    char kind = '?';
    int bytes = 0;
  };
  static std::map<PyObject*, Kind> seen;  // each dtype kept alive
  py::object dtype = t.attr("dtype");
  auto k = seen.find(dtype.ptr());
  if (k == seen.end()) {
    Kind d{py::str(dtype)};
    auto known = kinds.find(d.name);
    if (known != kinds.end()) d.kind = known->second.first, d.bytes = known->second.second;
    k = seen.emplace(dtype.inc_ref().ptr(), d).first;
  }
  ArrayView v;
  v.dtype = k->second.name;
  v.kind = k->second.kind;
  v.bytes = k->second.bytes;
  v.shape = tupleLongs(t.attr("shape"));
  for (long long e : tupleLongs(t.attr("stride")())) v.strides.push_back(e * v.bytes);
  v.data = reinterpret_cast<void*>(PyLong_AsVoidPtr(t.attr("data_ptr")().ptr()));
  if (PyErr_Occurred()) throw py::error_already_set();
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
    // torch._C._to_dlpack gives the pointer, dtype, shape, strides and device
    // in one C call, without the stream handshake of __dlpack__ (the run is
    // on torch's current stream): under 1 us a tensor. A tensor that torch
    // does not export (one that requires grad, a conjugate view) and a dtype
    // that formac has no name for take the attributes, which name torch's
    // dtypes in messages.
    static py::handle toDlpack =
        py::hasattr(torchC(), "_to_dlpack") ? py::object(torchC().attr("_to_dlpack")).release() : py::handle();
    if (toDlpack) {
      py::object capsule;
      try {
        capsule = toDlpack(given);
      } catch (const py::error_already_set&) {
      }
      if (capsule) {
        std::pair<int, int> device;
        ArrayView v = fromCapsule(capsule, call, device);
        checkDevice(program, what, s, given, device.first, device.second);
        if (v.kind != '?') {
          v.dtype = "torch." + v.dtype;
          return v;
        }
      }
    }
    int id = given.attr("get_device")().cast<int>();  // -1: the CPU
    checkDevice(program, what, s, given, id < 0 ? kDLCPU : kDLCUDA, id);
    return fromTorchAttributes(given);
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
    static py::handle empty = py::object(torch.attr("empty")).release();
    static py::handle device = py::object(torch.attr("device")("cuda", 0)).release();
    py::object t = empty(dims, py::arg("dtype") = torch.attr(dtypeName(s.element)), py::arg("device") = device);
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
    // torch's raw current stream (what torch.cuda.current_stream(0).cuda_stream
    // gives, without building a Stream object: microseconds a call).
    static bool raw = py::hasattr(torchC(), "_cuda_getCurrentRawStream");
    static py::handle currentStream =
        raw ? py::object(torchC().attr("_cuda_getCurrentRawStream")).release()
            : py::object(py::module_::import("torch.cuda").attr("current_stream")).release();
    py::object s = currentStream(0);
    call.stream = reinterpret_cast<void*>((raw ? s : s.attr("cuda_stream")).cast<uintptr_t>());
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
