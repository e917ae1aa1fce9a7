// formac._formac.builder: the embedded builder's bindings (Builder.cpp).
#pragma once

#include <pybind11/pybind11.h>

namespace formac::python {

// Adds the submodule `builder` to `m`; its errors raise `compileError`.
void defineBuilder(pybind11::module_& m, pybind11::handle compileError);

}  // namespace formac::python
