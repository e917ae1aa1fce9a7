// DeviceBuffer: GPU memory formac allocates (cuMemAlloc on device 0's
// primary context) for the results of a call on arrays of a library it
// cannot ask to allocate (JAX, others). Python sees formac._formac.DeviceBuffer
// with `shape`, `dtype`, `__cuda_array_interface__` (version 3) and
// `__dlpack__` / `__dlpack_device__`, so any array library takes it without a
// copy; the memory is freed when the last holder lets go.
#pragma once

#include <pybind11/pybind11.h>

#include <vector>

#include "run/CudaDriver.h"
#include "ir/Types.h"

namespace formac::python {

class DeviceBuffer {
 public:
  DeviceBuffer(std::vector<long long> shape, ScalarKind element);
  ~DeviceBuffer();
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  void* data() const { return reinterpret_cast<void*>(pointer_); }
  const std::vector<long long>& shape() const { return shape_; }
  ScalarKind element() const { return element_; }

 private:
  run::cuda::CUdeviceptr pointer_ = 0;
  std::vector<long long> shape_;
  ScalarKind element_;
};

void defineDeviceBuffer(pybind11::module_& m);

}  // namespace formac::python
