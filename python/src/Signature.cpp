#include "Signature.h"

namespace formac::python {

std::vector<long long> ImageSpec::shapeOf(const std::vector<long long>& extent) const {
  std::vector<long long> shape = extent;
  if (fields) shape.push_back(fields);
  return shape;
}

std::string ImageSpec::describe() const {
  std::string text = std::to_string(rank) + "-D " + dtypeName(element);
  if (fields) text += " with a last axis of " + std::to_string(fields) + " fields";
  return text + " (the program's " + std::to_string(rank) + "-D " + typeName + ")";
}

ImageSpec imageSpec(const ImageInfo& info) {
  ImageSpec s;
  s.name = info.name;
  s.typeName = info.type.name();
  s.rank = info.rank;
  s.elementBytes = typeSize(info.type);
  s.element = info.type.scalar;
  if (const StructType* st = info.type.structType) {
    s.fields = static_cast<int>(st->fields.size());
    s.element = st->fields.at(0).type;
    for (const auto& f : st->fields)
      if (f.type != s.element)
        throw UserError("image '" + info.name + "' is a struct " + st->name +
                        " whose fields have different types: no numpy array holds it (give every field one type)");
  }
  return s;
}

const char* dtypeName(ScalarKind k) {
  switch (k) {
    case ScalarKind::Int8: return "uint8";
    case ScalarKind::Int16: return "int16";
    case ScalarKind::Uint16: return "uint16";
    case ScalarKind::Int: return "int32";
    case ScalarKind::Int64: return "int64";
    case ScalarKind::Float: return "float32";
    case ScalarKind::Double: return "float64";
  }
  return "?";
}

int numpyTypeNumber(ScalarKind k, int* alternative) {
  // numpy's NPY_TYPES (stable across numpy 1 and 2); on LP64 Linux NPY_LONG
  // and NPY_LONGLONG are both 64 bits.
  enum { UByte = 2, Short = 3, UShort = 4, Int = 5, Long = 7, LongLong = 9, Float = 11, Double = 12 };
  int n = 0, alt = -1;
  switch (k) {
    case ScalarKind::Int8: n = UByte; break;
    case ScalarKind::Int16: n = Short; break;
    case ScalarKind::Uint16: n = UShort; break;
    case ScalarKind::Int: n = Int; break;
    case ScalarKind::Int64: n = Long, alt = LongLong; break;
    case ScalarKind::Float: n = Float; break;
    case ScalarKind::Double: n = Double; break;
  }
  if (alternative) *alternative = alt < 0 ? n : alt;
  return n;
}

std::string shapeText(const std::vector<long long>& shape) {
  std::string t = "(";
  for (size_t d = 0; d < shape.size(); ++d) t += (d ? ", " : "") + std::to_string(shape[d]);
  return t + (shape.size() == 1 ? ",)" : ")");
}

}  // namespace formac::python
