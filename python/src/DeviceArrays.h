// DeviceArrays: GPU arrays as a cuda pipeline's images, used in place (zero
// copy): torch tensors, CuPy and JAX arrays, anything with
// `__cuda_array_interface__` (read first: one dict) or `__dlpack__`.
//
// Every array must be on CUDA device 0 (the GPU formac's cuda backend runs
// on, in its primary context, which torch and CuPy share), have exactly
// the image's dtype and shape and be C-contiguous; else a TypeError or
// ValueError naming the argument, as HostArrays.h.
//
// Streams: the work goes on the caller's current stream of the first input's
// library (torch.cuda.current_stream(), cupy.cuda.get_current_stream()) and
// is not waited for, as that library's own operations. JAX has no current
// stream: its inputs are waited for (block_until_ready), the pipeline runs
// on the default stream and the call waits for it before returning. DLPack
// producers get that stream (`__dlpack__(stream=...)`) so they order their
// data before it.
//
// Outputs are allocated as the first input's kind: torch.empty and
// cupy.empty on device 0; for JAX and others formac allocates the memory
// (DeviceBuffer: `__cuda_array_interface__` and `__dlpack__`) and JAX
// receives it through jax.dlpack.from_dlpack, without a copy.
#pragma once

#include <pybind11/pybind11.h>

#include <string>
#include <vector>

#include "Signature.h"

namespace formac::python {

// What one call's GPU arrays share.
struct DeviceCall {
  enum Library { Torch, CuPy, Jax, Other } library = Other;
  void* stream = nullptr;                   // a CUstream; null: the default stream
  std::vector<void*> consumed;  // DLManagedTensor* of DLPack inputs, released after the run
  ~DeviceCall();
};

// Sets `call`'s library and stream from the first input.
void startDeviceCall(pybind11::handle first, DeviceCall& call);

// Input `s` from `given`: its device pointer; sets `extent`.
void* deviceInput(const std::string& program, const ImageSpec& s, pybind11::handle given,
                  std::vector<long long>& extent, DeviceCall& call);

// Output `s` of `extent`: `given` (None: allocated as the call's library
// does) and its device pointer in `data`.
pybind11::object deviceOutput(const std::string& program, const ImageSpec& s, pybind11::handle given,
                              const std::vector<long long>& extent, DeviceCall& call, void** data);

// After the run is enqueued: JAX waits, and gets its arrays.
void finishDeviceCall(DeviceCall& call, std::vector<pybind11::object>& results);

// A TypeError for a host array given to a GPU pipeline.
[[noreturn]] void notADeviceArray(const std::string& program, const std::string& what, const ImageSpec& s,
                                  pybind11::handle given, const std::string& why);

}  // namespace formac::python
