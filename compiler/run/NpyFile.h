// NpyFile: NumPy's .npy format (version 1.0 to 3.0), for `formac run`'s
// exact values and volumes.
//
// Reads little-endian, C-order arrays of dtype u1, u2, i2, i4, f4 or f8 and
// of rank 1 to 5 into a typed buffer and the array's shape; writes the same
// (version 1.0, header padded to 64 bytes as NumPy does). Every problem is a
// UserError naming the file: not .npy, big-endian, Fortran order, another
// dtype, a bad header, data shorter than the shape says, more than 2^31
// values.
#pragma once

#include <string>
#include <vector>

#include "formac_image.h"

namespace formac::run {

struct NpyArray {
  formac_pixel_type type = FORMAC_U8;  // u1 U8, u2 U16, i2 I16, i4 I32, f4 F32, f8 F64
  std::vector<long long> shape;
  std::vector<unsigned char> bytes;  // the values, host (little-endian) order
};

// True when `path` starts with the .npy magic ("\x93NUMPY").
bool isNpyFile(const std::string& path);

NpyArray readNpy(const std::string& path);

void writeNpy(const std::string& path, const NpyArray& a);

}  // namespace formac::run
