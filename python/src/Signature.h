// Signature: a pipeline's images as Python sees them (arrays of a dtype and
// shape), and the text its error messages use.
//
// An image of a number type is an array of that type's dtype with the
// program's rank (shape = the extent, [rows, columns] for 2-D); an image of a
// struct whose fields all have one type is an array of that type with one
// more axis, last, holding the fields (an `rgb` of 3 floats: shape [H, W, 3]).
// Forma's types map to numpy's as the generated C does: int8 = uint8,
// uint16, int16, int = int32, int64, float = float32, double = float64.
#pragma once

#include <string>
#include <vector>

#include "run/Pipeline.h"

namespace formac::python {

struct ImageSpec {
  std::string name;      // as the program writes it ("out", "g<4>")
  std::string typeName;  // Forma's spelling of the element type: "float", "rgb"
  ScalarKind element = ScalarKind::Float;  // a struct's one field type
  int fields = 0;        // 0: a number; else the struct's fields (the last axis)
  int rank = 0;          // the program's rank
  size_t elementBytes = 0;
  int ndim() const { return rank + (fields ? 1 : 0); }
  // The array shape for a program extent.
  std::vector<long long> shapeOf(const std::vector<long long>& extent) const;
  // "float32 (the program's float)", "3-D uint8 [..., 3] (the program's rgb)".
  std::string describe() const;
};

// Throws UserError for a struct whose fields differ in type (no array holds it).
ImageSpec imageSpec(const ImageInfo& info);

const char* dtypeName(ScalarKind k);  // numpy's name: "float32"
// numpy's type number (NPY_FLOAT...); `alternative` is a second number with
// the same meaning on this platform (int64: NPY_LONG and NPY_LONGLONG), else
// the same.
int numpyTypeNumber(ScalarKind k, int* alternative = nullptr);
std::string shapeText(const std::vector<long long>& shape);  // "(3, 4)", "(5,)"

}  // namespace formac::python
