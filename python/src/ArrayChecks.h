// ArrayChecks: the checks and messages numpy arrays (HostArrays.h) and GPU
// arrays (DeviceArrays.h) share: an array's dtype, rank and field axis
// against an image's spec, worded "PROGRAM: WHAT has ..., but the
// program's 'NAME' is ...".
#pragma once

#include <pybind11/pybind11.h>

#include <string>
#include <vector>

#include "Signature.h"

namespace formac::python {

// "numpy.ndarray", "torch.Tensor".
std::string typeNameOf(pybind11::handle h);

// A TypeError: `what` has dtype `dtype` instead of `s`'s; `fix` says how to
// convert ("x.astype(numpy.float32)").
[[noreturn]] void wrongDtype(const std::string& program, const std::string& what, const ImageSpec& s,
                             const std::string& dtype, const std::string& fix);

// The extent of an array of `shape` as image `s` (the shape without the
// field axis); a ValueError when its rank or field axis does not fit.
std::vector<long long> extentOf(const std::string& program, const std::string& what, const ImageSpec& s,
                                const std::vector<long long>& shape);

// A ValueError: the array is not C-contiguous; `fix` says how to make it so.
[[noreturn]] void notContiguous(const std::string& program, const std::string& what,
                                const std::vector<long long>& shape, const std::vector<long long>& strides,
                                const std::string& fix);

// A ValueError: `out=` for `s` has another extent than the result's.
[[noreturn]] void wrongOutExtent(const std::string& program, const std::string& what, const ImageSpec& s,
                                 const std::vector<long long>& given, const std::vector<long long>& result);

}  // namespace formac::python
