// HostArrays: numpy arrays as a CPU pipeline's images, without conversion
// or copy: an input must have exactly the image's dtype, rank (and field
// axis) and be C-contiguous; else a TypeError (dtype, not an array) or
// ValueError (shape, layout) naming the argument and both sides.
#pragma once

#include <pybind11/numpy.h>

#include <string>
#include <vector>

#include "Signature.h"

namespace formac::python {

// Input `s` from `given`: returns its data and sets `extent` (the array's
// shape without the field axis).
void* hostInput(const std::string& program, const ImageSpec& s, pybind11::handle given,
                std::vector<long long>& extent);

// Output `s` of `extent`: `given` (None: a new array) checked as an input
// is, and writeable.
pybind11::array hostOutput(const std::string& program, const ImageSpec& s, pybind11::handle given,
                           const std::vector<long long>& extent);

// A TypeError for a GPU array given to a CPU pipeline (or other non-arrays).
[[noreturn]] void notAHostArray(const std::string& program, const std::string& what, const ImageSpec& s,
                                pybind11::handle given);

// The Python number a rank-0 result of number type `k` holds at `at`.
pybind11::object numberAt(ScalarKind k, const void* at);

}  // namespace formac::python
