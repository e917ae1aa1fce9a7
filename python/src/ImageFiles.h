// ImageFiles: formac's own image files (PNG, JPEG, TIFF, PGM/PPM, PFM,
// .npy: compiler/run/ImageIO.h) as numpy arrays, so that examples and
// scripts need no imaging library:
//   formac.imread(path, dtype="float32", channels=1)  -> array
//   formac.imwrite(path, array, depth=None)
// Samples convert as `formac run` converts them (README "Using it": a float
// array holds 0..1 for an 8- or 16-bit file). channels=1 reads gray (RGB
// converted as OpenCV's RGB2GRAY), 3 or 4 an [H, W, channels] array; an
// array written with a last axis of 3 or 4 is RGB(A). depth 8 or 16 picks
// the file's samples (default: 16 for uint16 arrays, else 8; 32: float TIFF).
#pragma once

#include <pybind11/pybind11.h>

namespace formac::python {

void defineImageFiles(pybind11::module_& m);

}  // namespace formac::python
