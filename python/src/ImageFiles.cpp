#include "ImageFiles.h"

#include <pybind11/numpy.h>

#include <cstring>

#include "Signature.h"
#include "run/ImageIO.h"

namespace py = pybind11;

namespace formac::python {
namespace {

ScalarKind kindOfDtype(const py::dtype& d) {
  for (ScalarKind k : {ScalarKind::Int8, ScalarKind::Int16, ScalarKind::Uint16, ScalarKind::Int, ScalarKind::Int64,
                       ScalarKind::Float, ScalarKind::Double}) {
    int alternative = 0;
    int n = numpyTypeNumber(k, &alternative);
    if (d.num() == n || d.num() == alternative) return k;
  }
  throw py::type_error("formac image files hold uint8, int16, uint16, int32, int64, float32 or float64 samples, not " +
                       std::string(py::str(static_cast<const py::handle&>(d))));
}

// The element type of `channels` samples of kind `k` (a struct for 2 to 4).
struct Element {
  StructType rgba;
  Type type;
  Element(ScalarKind k, int channels) {
    if (channels < 1 || channels > 4)
      throw py::value_error("channels must be 1, 2, 3 or 4, not " + std::to_string(channels));
    const char* names[] = {"r", "g", "b", "a"};
    rgba.name = "pixel";
    for (int c = 0; c < channels; ++c) rgba.fields.push_back({channels == 2 ? (c ? "a" : "v") : names[c], k});
    type = channels == 1 ? Type::of(k) : Type::ofStruct(&rgba);
  }
};

py::array imread(const std::string& path, const py::object& dtype, int channels) {
  py::dtype d = py::dtype::from_args(dtype);
  ScalarKind k = kindOfDtype(d);
  Element e(k, channels);
  run::InputFile f = run::readInputImage(path, "image", e.type, 2, channels == 1);
  std::vector<py::ssize_t> shape(f.image.extent.begin(), f.image.extent.end());
  if (channels > 1) shape.push_back(channels);
  py::array a(d, shape);
  std::memcpy(a.mutable_data(), f.image.bytes.data(), f.image.bytes.size());
  return a;
}

void imwrite(const std::string& path, const py::array& given, py::object depth) {
  py::array a = py::array::ensure(given, py::array::c_style);
  ScalarKind k = kindOfDtype(a.dtype());
  std::vector<long long> extent(a.shape(), a.shape() + a.ndim());
  int channels = a.ndim() == 3 && (extent.back() == 3 || extent.back() == 4) ? static_cast<int>(extent.back()) : 1;
  if (channels > 1) extent.pop_back();
  Element e(k, channels);
  run::HostImage img{e.type, extent, {}};
  img.bytes.assign(static_cast<const unsigned char*>(a.data()),
                   static_cast<const unsigned char*>(a.data()) + a.nbytes());
  int bits = depth.is_none() ? (k == ScalarKind::Uint16 ? 16 : 8) : depth.cast<int>();
  if (bits != 8 && bits != 16 && bits != 32)
    throw py::value_error("depth must be 8, 16 or 32, not " + std::to_string(bits));
  run::writeOutputImage(path, "image", img,
                        bits == 8    ? run::SampleFormat::U8
                        : bits == 16 ? run::SampleFormat::U16
                                     : run::SampleFormat::F32);
}

}  // namespace

void defineImageFiles(py::module_& m) {
  m.def("imread", &imread, py::arg("path"), py::arg("dtype") = "float32", py::arg("channels") = 1,
        "Reads an image file as an array of `dtype` (float: 0..1 for 8/16-bit files); channels=1 gray, 3/4 RGB(A)");
  m.def("imwrite", &imwrite, py::arg("path"), py::arg("array"), py::arg("depth") = py::none(),
        "Writes an array to an image file, the format by the extension; a last axis of 3 or 4 is RGB(A)");
}

}  // namespace formac::python
