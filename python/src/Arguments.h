// Arguments: a call `p(img, other, k=3.0, out=None)` sorted into images,
// values and `out`, with Python's TypeErrors for what does not fit.
//
// Images come positionally in the program's declaration order, or by name
// as keywords; parameters and scalar inputs only by keyword; `out` is an
// array, a tuple of arrays (None for one to allocate), or None.
#pragma once

#include <pybind11/pybind11.h>

#include <string>
#include <vector>

#include "Signature.h"

namespace formac::python {

struct CallArguments {
  std::vector<pybind11::handle> images;  // one per input, in declaration order
  Values values;                         // the parameters and scalars given
  std::vector<pybind11::handle> out;     // one per output; None where not given
};

// What the program takes by keyword besides its images.
struct KeywordNames {
  std::vector<std::string> params;
  std::vector<std::string> scalars;  // each needs a value
};

// Throws pybind11::type_error naming the argument for anything missing,
// repeated, unknown, or not a number.
CallArguments sortArguments(const std::string& program, const std::vector<ImageSpec>& inputs,
                            const std::vector<ImageSpec>& outputs, const KeywordNames& names,
                            const pybind11::args& args, const pybind11::kwargs& kwargs);

}  // namespace formac::python
